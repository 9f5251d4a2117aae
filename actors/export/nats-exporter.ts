// Mirrors every committed record of the log, in commit order, to a NATS JetStream stream.
//
// Position: the stream itself is the truth. At each (re)connect the exporter reads the stream's
// last message, whose `Nats-Msg-Id` is the seq of the last record JetStream acknowledged, and
// reads the log after it (`log.read({gt})`). No record of the exporter's own is written to the
// log for this: a position record would itself be a record to export. Every publish carries the
// record's seq as its msgID, so a record sent twice across a reconnect is dropped by JetStream's
// duplicate window, and the resume-from-last-message rule keeps the rest exact.
//
// The write path only hands each committed batch over (onCommit): the exporter keeps the
// batches not yet acked (TAIL_LIMIT records at most) and publishes them from memory, so a primary
// that keeps up never reads its own log back. What is older than that tail (after an outage of
// NATS, or a restart) is read from the log. Publishing runs beside the write path, at most
// WINDOW publishes awaiting their acks, acks taken in order; the records on hand are published
// without yielding, so the NATS client sends them in one socket write. Any failure (NATS gone, a
// refused publish, no ack within ACK_TIMEOUT_MS) closes the connection and starts again from the
// stream's last message.
//
// Every second at most: the lag (log's last seq - the seq exported, auth records skipped count as
// exported) goes to `sensor.hearth_export_lag` when it changed, and to `<data>/export-nats.json`
// for `hearth export status`.

import { readFile, rename, writeFile } from 'node:fs/promises';
import { connect, createInbox, credsAuthenticator, headers, type JetStreamClient, type NatsConnection } from 'nats';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { Redactor } from '../../store/redact.ts';
import type { NatsExportConfig } from './config.ts';
import { isExported, subjectOf } from './subjects.ts';
import { Pause } from '../nats/pause.ts';
import { publishSnapshot, snapshotSeq, type AreaPart } from '../replica/snapshots.ts';

export const LAG_ENTITY = 'sensor.hearth_export_lag';
export const STATUS_FILE = 'export-nats.json';
const WINDOW = 1024;
const ACK_TIMEOUT_MS = 10_000;
const READ_CHUNK = 512;
const STOP_ACKS_MS = 2000;
/** committed records kept in memory for publishing; past it, the oldest are read back from the log */
const TAIL_LIMIT = 50_000;
const RETRY_MS = 1000;
const TICK_MS = 1000;
const SNAPSHOT_RETRY_MS = 30_000;

/** What `<data>/export-nats.json` holds (written at most once a second, and at stop). */
export interface ExportStatus {
  exporter: 'nats';
  stream: string;
  servers: string[];
  /** every record up to this seq is in the stream (or is never exported: auth/) */
  acked_seq: number;
  /** the log's last seq when this was written */
  last_seq: number;
  lag: number;
  connected: boolean;
  /** epoch ms */
  updated: number;
}

export interface NatsExporterOptions {
  log: EventLog;
  config: NatsExportConfig;
  /** writes the lag entity */
  writeLag: (lag: number, acked: number) => Promise<unknown>;
  /** where export-nats.json goes (the data directory) */
  statusPath: string;
  warn: (line: string) => void;
  info: (line: string) => void;
  now?: () => number;
  /** the replicas' areas as they are now, at the log's last seq (read synchronously) */
  snapshot?: () => { seq: number; parts: AreaPart[] };
}

export class NatsExporter {
  readonly #o: NatsExporterOptions;
  readonly #redactor = new Redactor();
  #acked = 0;
  #known = false;
  #connected = false;
  #stopped = false;
  #nc: NatsConnection | undefined;
  #wake: (() => void) | undefined;
  /** between two connection attempts (a commit does not end it: that would hammer a dead server) */
  readonly #pause = new Pause();
  #unlisten: (() => void) | undefined;
  /** committed batches, in seq order: every record after #tailFrom is in them until acked */
  #tail: EventRecord[][] = [];
  #tailSize = 0;
  #tailFrom = 0;
  #commitTimer: ReturnType<typeof setTimeout> | undefined;
  /** published and not yet acked */
  #inflight = 0;
  #tick: ReturnType<typeof setInterval> | undefined;
  #loop: Promise<void> | undefined;
  #lastLag: number | undefined;
  #lagWarned = false;
  #downWarned = false;
  #lastStatus = '';
  #ticking: Promise<void> = Promise.resolve();
  /** the JetStream seq of the last message acknowledged */
  #ackedStreamSeq = 0;
  /** the seq of the replicas' latest snapshot in the object store (-1: not read yet) */
  #snapshotSeq = -1;
  #snapshotting: Promise<void> | undefined;
  #snapshotRetryAt = 0;

  constructor(options: NatsExporterOptions) {
    this.#o = options;
  }

  /** The seq up to which every record is exported (0 until the stream has been read). */
  get acked(): number {
    return this.#acked;
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Starts exporting in the background; never waits for NATS. */
  start(): void {
    this.#tailFrom = this.#o.log.lastSeq();
    this.#unlisten = this.#o.log.onCommit((records) => {
      this.#tail.push(records);
      this.#tailSize += records.length;
      while (this.#tailSize > TAIL_LIMIT && this.#tail.length > 1) {
        const dropped = this.#tail.shift()!;
        this.#tailSize -= dropped.length;
        this.#tailFrom = dropped[dropped.length - 1].seq;
      }
      // Not at once: the listener runs before the commit's appends resolve, so a publish here
      // would come before their answers. A timer runs after them and after the next group
      // commit has been handed to LevelDB, while its thread writes; commits meanwhile join it.
      this.#commitTimer ??= setTimeout(() => {
        this.#commitTimer = undefined;
        this.#poke();
      }, 0);
    });
    this.#tick = setInterval(() => {
      this.#ticking = this.#ticking.then(() => this.#report()).catch((err) => this.#o.warn(`export status not written: ${(err as Error).message}`));
    }, TICK_MS);
    this.#tick.unref();
    this.#loop = this.#run();
  }

  /**
   * Stops publishing. The acks of what is in flight are awaited a moment (STOP_ACKS_MS), so the
   * position written at stop is the stream's last message; what is still unacked after that is
   * abandoned: the next start resends it, deduplicated.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#tick) clearInterval(this.#tick);
    clearTimeout(this.#commitTimer);
    this.#poke();
    this.#pause.cut();
    const until = performance.now() + STOP_ACKS_MS;
    while (this.#connected && this.#inflight > 0 && performance.now() < until) await new Promise((ok) => setTimeout(ok, 5));
    await this.#nc?.close().catch(() => {});
    await this.#loop;
    await this.#snapshotting;
    await this.#ticking;
    await this.#writeStatus().catch(() => {});
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#session();
      } catch (err) {
        if (this.#stopped) break;
        this.#down(err);
      } finally {
        this.#connected = false;
        this.#inflight = 0;
        const nc = this.#nc;
        this.#nc = undefined;
        await nc?.close().catch(() => {});
      }
      // stop() cuts this wait short
      if (!this.#stopped) await this.#pause.wait(RETRY_MS);
    }
  }

  #down(err: unknown): void {
    if (this.#downWarned) return;
    this.#downWarned = true;
    this.#o.warn(`NATS export: ${this.#o.config.servers.join(', ')} unreachable or refusing (${(err as Error).message}); records wait in the log and are sent when it answers`);
  }

  /** One connection: find the position, then publish until something fails. */
  async #session(): Promise<void> {
    const { config } = this.#o;
    const authenticator = config.credentials === undefined ? undefined : credsAuthenticator(await readFile(config.credentials));
    const nc = await connect({ servers: config.servers, reconnect: false, timeout: 2000, authenticator, name: 'hearth-exporter' });
    this.#nc = nc;
    if (this.#stopped) return;
    const jsm = await nc.jetstreamManager({ timeout: 5000 });
    let lastSeq = 0;
    try {
      const info = await jsm.streams.info(config.stream);
      const wanted = `${config.subject_prefix}.>`;
      if (!info.config.subjects?.includes(wanted)) {
        throw new Error(`stream ${config.stream} exists without the subjects ${wanted} (it takes ${JSON.stringify(info.config.subjects ?? [])}): change subject_prefix or the stream`);
      }
      lastSeq = info.state.last_seq;
    } catch (err) {
      if (!/stream not found/i.test((err as Error).message)) throw err;
      // a stream of this name made meanwhile by someone else is checked at the next connect
      await jsm.streams.add({ name: config.stream, subjects: [`${config.subject_prefix}.>`] });
    }
    let position = 0;
    if (lastSeq > 0) {
      const last = await jsm.streams.getMessage(config.stream, { seq: lastSeq });
      const id = last.header?.get('Nats-Msg-Id') ?? '';
      position = Number(id);
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(position)) throw new Error(`the last message of stream ${config.stream} has no Hearth msg id (${JSON.stringify(id)}): is the stream shared?`);
    }
    if (position > this.#o.log.lastSeq()) {
      // records up to there would be taken as exported: a stream of another (or a wiped) data directory
      throw new Error(`stream ${config.stream} already holds seq ${position}, past this log's last seq ${this.#o.log.lastSeq()}: is it the stream of another data directory?`);
    }
    // the stream is the truth, even when it went back (emptied or made anew by someone):
    // auth records after its last message are only read, and skipped, again
    this.#acked = position;
    this.#ackedStreamSeq = lastSeq;
    this.#known = true;
    this.#connected = true;
    if (this.#downWarned) {
      this.#downWarned = false;
      this.#o.info(`NATS export: ${config.servers.join(', ')} answers again; exporting after seq ${this.#acked}`);
    }
    if (this.#o.snapshot) this.#snapshotSeq = await snapshotSeq(nc.jetstream({ timeout: 10_000 }), config.stream);
    await this.#publish(nc);
  }

  /**
   * Publishes every record after `acked` until the connection fails or stop(). JetStream acks
   * each message on its reply subject; one subscription takes them all (`<inbox>.<seq>`), so a
   * publish costs no promise, timer or request object of its own.
   */
  async #publish(nc: NatsConnection): Promise<void> {
    const { config } = this.#o;
    const js = nc.jetstream({ timeout: 10_000 });
    const closed = nc.closed().then((err) => {
      throw err ?? new Error('connection closed');
    });
    closed.catch(() => {});
    // published or skipped (auth/) and not yet acked, in seq order; `done` once its ack is in
    const pending: Array<{ seq: number; done: boolean; streamSeq?: number }> = [];
    let head = 0;
    let failure: Error | undefined;
    let lastProgress = performance.now();
    const advance = () => {
      while (head < pending.length && pending[head].done) {
        const entry = pending[head++];
        this.#acked = entry.seq;
        if (entry.streamSeq !== undefined) this.#ackedStreamSeq = entry.streamSeq;
      }
      if (head === pending.length) {
        pending.length = 0;
        head = 0;
      } else if (head > 4096) {
        pending.splice(0, head);
        head = 0;
      }
      lastProgress = performance.now();
    };
    const inbox = createInbox();
    const bySeq = new Map<number, { seq: number; done: boolean; streamSeq?: number }>();
    nc.subscribe(`${inbox}.*`, {
      callback: (err, msg) => {
        if (err) failure ??= err;
        else if (msg.headers?.hasError) failure ??= new Error(`JetStream answered ${msg.headers.code} ${msg.headers.description}`);
        else {
          let answer: { stream?: string; seq?: number; error?: { code?: number; description?: string } } | undefined;
          try {
            answer = JSON.parse(msg.string());
          } catch {
            // an empty or odd answer is no ack
          }
          if (!answer || answer.error || !answer.stream) failure ??= new Error(`JetStream refused a publish: ${answer?.error ? `${answer.error.code} ${answer.error.description}` : JSON.stringify(msg.string())}`);
          else {
            const entry = bySeq.get(Number(msg.subject.slice(inbox.length + 1)));
            if (entry) {
              bySeq.delete(entry.seq);
              this.#inflight = bySeq.size;
              entry.done = true;
              entry.streamSeq = answer.seq;
              if (entry === pending[head]) advance();
            }
          }
        }
        this.#poke();
      },
    });
    /** Publishes `records` (in seq order, after `sent`) without yielding: one socket write for all. */
    const send = (records: readonly EventRecord[]) => {
      for (const record of records) {
        if (record.seq <= sent) continue;
        sent = record.seq;
        if (!isExported(record.stream)) {
          // learnt, never sent: a token quoted elsewhere is hidden there too
          this.#redactor.learn(record);
          pending.push({ seq: record.seq, done: true });
          continue;
        }
        const h = headers();
        h.set('Nats-Msg-Id', String(record.seq));
        const entry = { seq: record.seq, done: false };
        pending.push(entry);
        bySeq.set(record.seq, entry);
        this.#inflight = bySeq.size;
        nc.publish(subjectOf(config.subject_prefix, record.stream, record.type), this.#payload(record), { reply: `${inbox}.${record.seq}`, headers: h });
      }
      advance();
    };
    let sent = this.#acked;
    this.#dropTail();
    for (;;) {
      if (failure) throw failure;
      this.#maybeSnapshot(js);
      const inflight = bySeq.size;
      // once stopped, nothing more is sent; stop() waits a moment for the acks of what was
      if (this.#stopped && inflight === 0) break;
      if (inflight > 0 && performance.now() - lastProgress > ACK_TIMEOUT_MS) throw new Error(`no ack from JetStream within ${ACK_TIMEOUT_MS} ms`);
      const room = this.#stopped ? 0 : WINDOW - inflight;
      if (room > 0 && sent < this.#o.log.lastSeq()) {
        if (sent >= this.#tailFrom) send(this.#fromTail(sent, room));
        else {
          // older than what the commits handed over (NATS was away): read back from the log
          const chunk: EventRecord[] = [];
          for await (const record of this.#o.log.read({ gt: sent, limit: Math.min(room, READ_CHUNK) })) chunk.push(record);
          if (this.#stopped) break;
          send(chunk);
        }
        this.#dropTail();
        // let the acks and the write path in between two chunks
        await new Promise<void>((ok) => setImmediate(ok));
        continue;
      }
      const woken = new Promise<void>((ok) => (this.#wake = ok));
      // a commit or an ack between the checks above and here is seen on the next pass
      if (!failure && bySeq.size === inflight && (room <= 0 || sent >= this.#o.log.lastSeq())) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<void>((ok) => (timer = setTimeout(ok, ACK_TIMEOUT_MS)));
        await Promise.race([woken, closed, timeout]);
        clearTimeout(timer);
      }
      this.#wake = undefined;
    }
  }

  /** Up to `max` committed records after `after` from the tail the commits handed over. */
  #fromTail(after: number, max: number): EventRecord[] {
    const out: EventRecord[] = [];
    for (const batch of this.#tail) {
      if (batch[batch.length - 1].seq <= after) continue;
      for (const record of batch) {
        if (record.seq <= after) continue;
        out.push(record);
        if (out.length >= max) return out;
      }
    }
    return out;
  }

  /** Forgets the tail's batches that are acked. */
  #dropTail(): void {
    while (this.#tail.length > 0 && this.#tail[0][this.#tail[0].length - 1].seq <= this.#acked) {
      const dropped = this.#tail.shift()!;
      this.#tailSize -= dropped.length;
      this.#tailFrom = Math.max(this.#tailFrom, dropped[dropped.length - 1].seq);
    }
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Publishes the replicas' snapshot when none is in the store yet, or `snapshot_every` records
   * were exported since the last one. Taken now, at the log's last seq S: every message
   * acknowledged so far holds a record at or below S, and every record above S is published
   * after them, so a replica starts after the last acknowledged message and skips what is <= S.
   */
  #maybeSnapshot(js: JetStreamClient): void {
    const take = this.#o.snapshot;
    if (!take || this.#snapshotting || this.#snapshotSeq < 0 || this.#acked === 0 || Date.now() < this.#snapshotRetryAt) return;
    if (this.#snapshotSeq > 0 && this.#acked - this.#snapshotSeq < this.#o.config.snapshot_every) return;
    const { seq, parts } = take();
    const { stream } = this.#o.config;
    this.#snapshotting = publishSnapshot(js, stream, seq, this.#ackedStreamSeq, parts)
      .then(() => {
        this.#snapshotSeq = seq;
      })
      .catch((err) => {
        this.#snapshotRetryAt = Date.now() + SNAPSHOT_RETRY_MS;
        this.#o.warn(`NATS export: the replicas' snapshot at seq ${seq} was not stored (${(err as Error).message}); tried again in ${SNAPSHOT_RETRY_MS / 1000} s`);
      })
      .finally(() => (this.#snapshotting = undefined));
  }

  /** The record as `hearth replay` prints it (json), secrets as "***". */
  #payload(record: EventRecord): string {
    const secretKeys = this.#redactor.learn(record);
    return this.#redactor.scrub(this.#redactor.json(record, secretKeys) ?? '');
  }

  async #report(): Promise<void> {
    if (!this.#known) {
      if (!this.#connected) await this.#writeStatus();
      return;
    }
    const lag = Math.max(0, this.#o.log.lastSeq() - this.#acked);
    // the file first: whoever sees the entity's new lag finds export status at least as new
    await this.#writeStatus();
    if (lag !== this.#lastLag) {
      this.#lastLag = lag;
      await this.#o.writeLag(lag, this.#acked);
    }
    if (lag > this.#o.config.lag_warning && !this.#lagWarned) {
      this.#lagWarned = true;
      this.#o.warn(`NATS export: ${lag} records behind the log (over lag_warning ${this.#o.config.lag_warning})`);
    } else if (lag <= this.#o.config.lag_warning && this.#lagWarned) {
      this.#lagWarned = false;
      this.#o.info(`NATS export: caught up to ${lag} records behind the log`);
    }
  }

  status(): ExportStatus {
    const last = this.#o.log.lastSeq();
    return {
      exporter: 'nats',
      stream: this.#o.config.stream,
      servers: this.#o.config.servers,
      acked_seq: this.#acked,
      last_seq: last,
      lag: Math.max(0, last - this.#acked),
      connected: this.#connected,
      updated: (this.#o.now ?? Date.now)(),
    };
  }

  async #writeStatus(): Promise<void> {
    const s = this.status();
    const key = `${s.acked_seq}/${s.last_seq}/${s.connected}`;
    if (key === this.#lastStatus) return;
    this.#lastStatus = key;
    const tmp = `${this.#o.statusPath}.tmp`;
    await writeFile(tmp, JSON.stringify(s) + '\n');
    await rename(tmp, this.#o.statusPath);
  }
}

/** The lag entity's writer over EntityActors-like `write`. */
export function lagWriter(
  write: (entityId: string, w: { state: string; attributes: Record<string, unknown>; force_update: boolean }, context: Context) => Promise<unknown>,
  newContext: () => Context,
): (lag: number) => Promise<unknown> {
  return (lag) =>
    write(LAG_ENTITY, { state: String(lag), attributes: { state_class: 'measurement', unit_of_measurement: 'records', friendly_name: 'Hearth export lag' }, force_update: false }, newContext());
}
