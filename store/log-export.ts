import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Level } from 'level';
import { decodeRecord } from './codec.ts';
import { StoreError, messageOf } from './errors.ts';
import { historyEntity, historyKey, seqKey, seqOfKey, splitStreamKey, streamKey } from './keys.ts';

/**
 * A copy of the event log at one seq, taken from a LevelDB snapshot while appends go on, for
 * a backup to carry instead of the live `log/` directory. It is the log's own key/value
 * entries (records, indexes, area snapshots, meta) in one file, so a restore writes them
 * back without parsing a record, and a manifest beside it holding the seq, the counts and
 * the file's SHA-256, so a damaged copy is refused before it becomes a log.
 */

/** `full`: the whole log; `state`: what rebuilds the current state, without history. */
export type ExportMode = 'full' | 'state';

export interface ExportManifest {
  format: typeof FORMAT;
  version: 1;
  /** the last seq the export holds: every record up to it, none after */
  seq: number;
  mode: ExportMode;
  /** the data file's name, in the manifest's directory */
  file: string;
  /** key/value entries in the file */
  entries: number;
  /** of which records (the rest are index, snapshot and meta entries) */
  records: number;
  bytes: number;
  sha256: string;
  /** epoch ms when it was taken */
  created: number;
}

export interface ExportOptions {
  /** the directory the export is written to (created if missing) */
  dir: string;
  mode: ExportMode;
  /**
   * In `state` mode, streams whose every record is needed to rebuild them (an area whose
   * last record does not hold the whole state); others keep their last record only.
   */
  keepAll?: (stream: string) => boolean;
  now?: number;
}

const FORMAT = 'hearth-log-export';
const MAGIC = Buffer.from('HLOGEXP1');
// the log's sublevels as raw key prefixes (abstract-level's `!name!`)
const REC = '!rec!';
const BY_STREAM = '!idx-stream!';
const BY_ENTITY_TIME = '!idx-entity-time!';
const SNAPSHOT = '!snapshot!';
const META = '!meta!';
const LAST_SEQ_KEY = META + 'last_seq';
const CHUNK = 1000;
// writes to the file and to the restored LevelDB in pieces of about this size
const FLUSH_BYTES = 4 * 1024 * 1024;

type Db = Level<string, string>;
const RAW = { keyEncoding: 'buffer', valueEncoding: 'buffer' } as const;

/** The range of one raw key prefix: `!name!` up to `!name"`. */
const prefixRange = (prefix: string) => ({ gte: prefix, lt: prefix.slice(0, -1) + '"' });

/** The data file and manifest names of an export at `seq`. */
export const exportFileNames = (seq: number) => ({ data: `log-${seq}.hlog`, manifest: `log-${seq}.json` });
const MANIFEST_NAME = /^log-(\d+)\.json$/;

/**
 * Writes an export of `db` (the event log's LevelDB, open) as it is at this instant: the
 * snapshot is taken synchronously, so each group commit is in it entirely or not at all.
 */
export async function exportLog(db: Db, options: ExportOptions): Promise<ExportManifest> {
  await mkdir(options.dir, { recursive: true });
  const snapshot = db.snapshot();
  const partial = join(options.dir, `log-export-${process.pid}-${Date.now()}.partial`);
  const out = new ExportWriter(partial);
  try {
    await out.open();
    const seq = await lastSeqAt(db, snapshot);
    if (options.mode === 'full') await copyRange(db, snapshot, { gte: '' }, out);
    else await copyState(db, snapshot, seq, options.keepAll ?? (() => false), out);
    const { bytes, sha256 } = await out.close();
    const names = exportFileNames(seq);
    const manifest: ExportManifest = {
      format: FORMAT,
      version: 1,
      seq,
      mode: options.mode,
      file: names.data,
      entries: out.entries,
      records: out.records,
      bytes,
      sha256,
      created: options.now ?? Date.now(),
    };
    await rename(partial, join(options.dir, names.data));
    // the manifest comes last: an export without one was never finished
    const tmp = join(options.dir, names.manifest + '.partial');
    await writeFile(tmp, JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });
    await rename(tmp, join(options.dir, names.manifest));
    return manifest;
  } catch (err) {
    await out.abort();
    await rm(partial, { force: true });
    throw err instanceof StoreError ? err : new StoreError('HEARTH_LOG_WRITE_FAILED', `cannot write the log export in ${options.dir}: ${messageOf(err)}`, { cause: err });
  } finally {
    await snapshot.close();
  }
}

/** The highest seq the snapshot knows: its last record, or the meta entry that outlives a purge. */
async function lastSeqAt(db: Db, snapshot: ReturnType<Db['snapshot']>): Promise<number> {
  const [lastKey] = await db.keys({ ...prefixRange(REC), reverse: true, limit: 1, snapshot }).all();
  const stored = await db.get(LAST_SEQ_KEY, { snapshot });
  return Math.max(lastKey === undefined ? 0 : seqOfKey(lastKey), stored === undefined ? 0 : Number(stored));
}

async function copyRange(db: Db, snapshot: ReturnType<Db['snapshot']>, range: { gte: string; lt?: string }, out: ExportWriter): Promise<void> {
  // the range is given as text and read as bytes: the keys are copied without decoding
  const it = db.iterator<Buffer, Buffer>({ ...(range as any), ...RAW, snapshot, highWaterMarkBytes: 256 * 1024 });
  try {
    for (;;) {
      const chunk = await it.nextv(CHUNK);
      if (chunk.length === 0) break;
      for (const [key, value] of chunk) await out.put(key, value);
    }
  } finally {
    await it.close();
  }
}

/**
 * The current state without history: every record of the streams `keepAll` names, the last
 * record of every other stream, the indexes of those records, the areas' snapshots, and the
 * seq, so a restored log goes on after it.
 */
async function copyState(db: Db, snapshot: ReturnType<Db['snapshot']>, seq: number, keepAll: (stream: string) => boolean, out: ExportWriter): Promise<void> {
  const kept: number[] = [];
  const keys = db.keys({ ...prefixRange(BY_STREAM), snapshot, highWaterMarkBytes: 256 * 1024 });
  let stream = '';
  let whole = false;
  let lastOfStream = 0;
  try {
    for (;;) {
      const chunk = await keys.nextv(CHUNK * 4);
      if (chunk.length === 0) break;
      for (const key of chunk) {
        const k = splitStreamKey(key.slice(BY_STREAM.length));
        if (k.stream !== stream) {
          if (lastOfStream && !whole) kept.push(lastOfStream);
          stream = k.stream;
          whole = keepAll(stream);
        }
        if (whole) kept.push(k.seq);
        lastOfStream = k.seq;
      }
    }
  } finally {
    await keys.close();
  }
  if (lastOfStream && !whole) kept.push(lastOfStream);
  kept.sort((a, b) => a - b);
  for (let i = 0; i < kept.length; i += CHUNK) {
    const part = kept.slice(i, i + CHUNK);
    const values = await db.getMany(part.map((s) => REC + seqKey(s)), { snapshot });
    for (let j = 0; j < part.length; j++) {
      const value = values[j];
      if (value === undefined) continue;
      const record = decodeRecord(part[j], value);
      await out.put(Buffer.from(REC + seqKey(record.seq)), Buffer.from(value));
      await out.put(Buffer.from(BY_STREAM + streamKey(record.stream, record.seq)), Buffer.alloc(0));
      const entity = historyEntity(record);
      if (entity !== undefined) await out.put(Buffer.from(BY_ENTITY_TIME + historyKey(entity, record.time, record.seq)), Buffer.alloc(0));
    }
  }
  await copyRange(db, snapshot, prefixRange(SNAPSHOT), out);
  await out.put(Buffer.from(LAST_SEQ_KEY), Buffer.from(String(seq)));
}

/**
 * The export file: the magic, then each entry as key length, value length (u32 BE), key, value.
 * Entries are packed into one buffer; while it is written to the file the next one fills,
 * so reading the snapshot and writing the file overlap.
 */
class ExportWriter {
  entries = 0;
  records = 0;
  readonly #path: string;
  readonly #hash = createHash('sha256');
  #file: Awaited<ReturnType<typeof open>> | undefined;
  #buf = Buffer.allocUnsafe(FLUSH_BYTES);
  #spare = Buffer.allocUnsafe(FLUSH_BYTES);
  #used = 0;
  #writing: Promise<unknown> = Promise.resolve();
  #bytes = 0;

  constructor(path: string) {
    this.#path = path;
  }

  async open(): Promise<void> {
    // the log it copies holds secrets (password hashes, token keys): readable by the owner only
    this.#file = await open(this.#path, 'wx', 0o600);
    this.#used = MAGIC.copy(this.#buf, 0);
  }

  async put(key: Buffer, value: Buffer): Promise<void> {
    const size = 8 + key.length + value.length;
    if (this.#used + size > this.#buf.length) await this.#flush();
    if (size > this.#buf.length) {
      // an entry larger than the buffer (a big area snapshot) is written on its own
      const own = Buffer.allocUnsafe(size);
      this.#frame(own, 0, key, value);
      await this.#writing;
      await this.#write(own);
    } else this.#used = this.#frame(this.#buf, this.#used, key, value);
    this.entries++;
    if (startsWith(key, REC_BYTES)) this.records++;
  }

  async close(): Promise<{ bytes: number; sha256: string }> {
    await this.#flush();
    await this.#writing;
    await this.#file!.sync();
    await this.#file!.close();
    this.#file = undefined;
    return { bytes: this.#bytes, sha256: this.#hash.digest('hex') };
  }

  async abort(): Promise<void> {
    await this.#writing.catch(() => undefined);
    await this.#file?.close().catch(() => undefined);
    this.#file = undefined;
  }

  #frame(target: Buffer, at: number, key: Buffer, value: Buffer): number {
    target.writeUInt32BE(key.length, at);
    target.writeUInt32BE(value.length, at + 4);
    key.copy(target, at + 8);
    value.copy(target, at + 8 + key.length);
    return at + 8 + key.length + value.length;
  }

  /** Hands the filled buffer to the file and fills the spare one meanwhile (once its own write is done). */
  async #flush(): Promise<void> {
    if (this.#used === 0) return;
    await this.#writing;
    const full = this.#buf.subarray(0, this.#used);
    [this.#buf, this.#spare] = [this.#spare, this.#buf];
    this.#used = 0;
    this.#writing = this.#write(full);
    // a failed write is reported by the next flush or close, not as unhandled
    this.#writing.catch(() => undefined);
  }

  async #write(data: Buffer): Promise<void> {
    this.#hash.update(data);
    this.#bytes += data.length;
    let at = 0;
    while (at < data.length) at += (await this.#file!.write(data, at, data.length - at)).bytesWritten;
  }
}

const REC_BYTES = Buffer.from(REC);
const startsWith = (buf: Buffer, prefix: Buffer) => buf.length >= prefix.length && buf.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

/** The finished exports in `dir` (those with a manifest), highest seq first. */
export async function listExports(dir: string): Promise<{ seq: number; manifest: string }[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .map((name) => MANIFEST_NAME.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ seq: Number(m[1]), manifest: join(dir, m[0]) }))
    .sort((a, b) => b.seq - a.seq);
}

/** Removes every export (finished or not) from `dir`. */
export async function removeExports(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const ours = names.filter((n) => /^log-\d+\.(hlog|json)$/.test(n) || /^log-.*\.partial$/.test(n));
  await Promise.all(ours.map((n) => rm(join(dir, n), { force: true })));
}

/** Reads and checks a manifest's fields; a StoreError naming the problem otherwise. */
export async function readManifest(path: string): Promise<ExportManifest> {
  const bad = (why: string) => new StoreError('HEARTH_LOG_CORRUPT', `the log export manifest ${path} ${why}`);
  let m: any;
  try {
    m = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw bad(`cannot be read: ${messageOf(err)}`);
  }
  if (m === null || typeof m !== 'object' || m.format !== FORMAT) throw bad(`is not a ${FORMAT} manifest`);
  if (m.version !== 1) throw bad(`has version ${String(m.version)}; this Hearth reads version 1`);
  for (const field of ['seq', 'entries', 'records', 'bytes'] as const) {
    if (!Number.isSafeInteger(m[field]) || m[field] < 0) throw bad(`has no valid ${field}`);
  }
  if (m.mode !== 'full' && m.mode !== 'state') throw bad(`has an unknown mode ${JSON.stringify(m.mode)}`);
  if (typeof m.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(m.sha256)) throw bad('has no valid sha256');
  if (typeof m.file !== 'string' || m.file !== basename(m.file)) throw bad('names no data file in its directory');
  return m as ExportManifest;
}

/**
 * Builds the log at `logPath` (which must not exist) from the export a manifest describes.
 * The entries go to a LevelDB beside it, which becomes the log only once the file's size,
 * SHA-256 and counts matched the manifest; otherwise it is removed and a StoreError says
 * what is wrong, the export and the data directory left as they were.
 */
export async function importLog(manifestPath: string, logPath: string): Promise<ExportManifest> {
  const manifest = await readManifest(manifestPath);
  const dataPath = join(manifestPath, '..', manifest.file);
  const damaged = (why: string) =>
    new StoreError('HEARTH_LOG_CORRUPT', `the log export ${dataPath} is damaged (${why}); nothing was restored and the files are left as they were`);
  let size: number;
  try {
    size = (await stat(dataPath)).size;
  } catch (err) {
    throw new StoreError('HEARTH_LOG_CORRUPT', `the log export ${dataPath} that ${manifestPath} names cannot be read: ${messageOf(err)}`);
  }
  if (size !== manifest.bytes) throw damaged(`${size} bytes where the manifest says ${manifest.bytes}`);

  const building = `${logPath}.restoring`;
  await rm(building, { recursive: true, force: true });
  const db = new Level<Buffer, Buffer>(building, RAW);
  await db.open();
  let closed = false;
  try {
    const counts = await writeEntries(createReadStream(dataPath, { highWaterMark: 1024 * 1024 }), db, damaged);
    if (counts.sha256 !== manifest.sha256) throw damaged('its SHA-256 is not the one in the manifest');
    if (counts.entries !== manifest.entries || counts.records !== manifest.records) {
      throw damaged(`${counts.entries} entries and ${counts.records} records where the manifest says ${manifest.entries} and ${manifest.records}`);
    }
    await db.close();
    closed = true;
    await rename(building, logPath);
    return manifest;
  } catch (err) {
    if (!closed) await db.close().catch(() => undefined);
    await rm(building, { recursive: true, force: true });
    throw err instanceof StoreError ? err : damaged(messageOf(err));
  }
}

/** Parses the frames of an export stream into LevelDB batches, hashing the bytes as they pass. */
async function writeEntries(input: AsyncIterable<Buffer>, db: Level<Buffer, Buffer>, damaged: (why: string) => Error) {
  const hash = createHash('sha256');
  let rest: Buffer = Buffer.alloc(0);
  let magicSeen = false;
  let entries = 0;
  let records = 0;
  let batch = db.batch();
  let batchBytes = 0;
  for await (const chunk of input) {
    hash.update(chunk);
    let buf = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
    let at = 0;
    if (!magicSeen) {
      if (buf.length < MAGIC.length) {
        rest = buf;
        continue;
      }
      if (!buf.subarray(0, MAGIC.length).equals(MAGIC)) throw damaged('it does not start as a Hearth log export');
      magicSeen = true;
      at = MAGIC.length;
    }
    while (buf.length - at >= 8) {
      const klen = buf.readUInt32BE(at);
      const vlen = buf.readUInt32BE(at + 4);
      if (buf.length - at - 8 < klen + vlen) break;
      const key = buf.subarray(at + 8, at + 8 + klen);
      const value = buf.subarray(at + 8 + klen, at + 8 + klen + vlen);
      batch.put(key, value);
      batchBytes += klen + vlen;
      entries++;
      if (startsWith(key, REC_BYTES)) records++;
      at += 8 + klen + vlen;
    }
    rest = at === buf.length ? Buffer.alloc(0) : Buffer.from(buf.subarray(at));
    buf = Buffer.alloc(0);
    if (batchBytes >= FLUSH_BYTES) {
      await batch.write();
      batch = db.batch();
      batchBytes = 0;
    }
  }
  if (!magicSeen) throw damaged('it is shorter than its header');
  if (rest.length > 0) throw damaged(`it ends inside an entry (${rest.length} bytes left over)`);
  // the last batch is written with fsync, so the restored log is on disk before it is renamed into place
  await batch.write({ sync: true });
  return { entries, records, sha256: hash.digest('hex') };
}
