/**
 * A small POSIX (PAX) tar writer, enough for the original's backups (supervisor-wire §5.1/§5.4):
 * headers laid out the way Python's `tarfile` writes them in PAX format, a streaming entry writer
 * for inner archives, and a file writer whose member header is rewritten once its size is known.
 * Reading is node-tar's (tar-read.ts).
 */
import type { FileHandle } from 'node:fs/promises';
import { floatRepr } from '../../../../machines/python/float.ts';
import type { ByteSource } from '../securetar/bytes.ts';

export const BLOCK = 512;
/** Python's tarfile pads a closed archive to a whole record of 20 blocks. */
export const RECORD = BLOCK * 20;

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'character' | 'block' | 'fifo';

export interface TarEntry {
  name: string;
  type: TarEntryType;
  /** permission bits (and setuid/setgid/sticky) */
  mode: number;
  /** seconds since the epoch; a fraction forces a PAX header, as in the original */
  mtime: number;
  size: number;
  linkname?: string;
  uid?: number;
  gid?: number;
  uname?: string;
  gname?: string;
  devmajor?: number;
  devminor?: number;
}

export class TarFormatError extends Error {
  readonly code = 'HEARTH_TAR_FORMAT';
  constructor(message: string) {
    super(message);
    this.name = 'TarFormatError';
  }
}

const TYPE_FLAG: Record<TarEntryType, string> = { file: '0', hardlink: '1', symlink: '2', character: '3', block: '4', directory: '5', fifo: '6' };

const isAscii = (text: string) => /^[\x00-\x7f]*$/.test(text);
export const padding = (size: number) => (BLOCK - (size % BLOCK)) % BLOCK;

/** A PAX record: its length counts itself, so the digits are found by trying. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const bodyLength = Buffer.byteLength(body);
  let length = bodyLength + 1;
  while (String(length).length + bodyLength !== length) length = String(length).length + bodyLength;
  return Buffer.from(`${length}${body}`, 'utf8');
}

/** The PAX records an entry needs (Python's rule: names too long or not ASCII, numbers too wide, a fractional mtime). */
function paxRecordsFor(entry: TarEntry): Array<[string, string]> {
  const records: Array<[string, string]> = [];
  const name = entryName(entry);
  const text: Array<[string, string, number]> = [['path', name, 100], ['linkpath', entry.linkname ?? '', 100], ['uname', entry.uname ?? '', 32], ['gname', entry.gname ?? '', 32]];
  for (const [key, value, width] of text) {
    if (!isAscii(value) || Buffer.byteLength(value) > width) records.push([key, value]);
  }
  const numbers: Array<[string, number, number]> = [['uid', entry.uid ?? 0, 8], ['gid', entry.gid ?? 0, 8], ['size', entry.size, 12], ['mtime', entry.mtime, 12]];
  for (const [key, value, digits] of numbers) {
    const whole = Math.round(value);
    if (whole < 0 || whole >= 8 ** (digits - 1)) records.push([key, key === 'mtime' ? floatRepr(value) : String(value)]);
    else if (!Number.isInteger(value)) records.push([key, floatRepr(value)]);
  }
  return records;
}

// Python writes a directory's name with a trailing slash
const entryName = (entry: TarEntry) => (entry.type === 'directory' && !entry.name.endsWith('/') ? `${entry.name}/` : entry.name);

function octal(value: number, width: number): string {
  const digits = Math.max(0, Math.round(value)).toString(8);
  return digits.length > width - 1 ? '0'.repeat(width - 1) : digits.padStart(width - 1, '0');
}

function putText(block: Buffer, offset: number, width: number, text: string): void {
  // a field that cannot hold the value keeps what fits; the PAX record carries the real one
  Buffer.from(text, isAscii(text) ? 'latin1' : 'utf8').copy(block, offset, 0, width);
}

function ustarBlock(entry: TarEntry, name: string, typeflag: string, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  putText(block, 0, 100, name);
  putText(block, 100, 8, octal(entry.mode & 0o7777, 8));
  putText(block, 108, 8, octal(entry.uid ?? 0, 8));
  putText(block, 116, 8, octal(entry.gid ?? 0, 8));
  putText(block, 124, 12, octal(size, 12));
  putText(block, 136, 12, octal(entry.mtime, 12));
  block.fill(0x20, 148, 156);
  block.write(typeflag, 156, 'latin1');
  putText(block, 157, 100, entry.linkname ?? '');
  block.write('ustar\x0000', 257, 'latin1');
  putText(block, 265, 32, entry.uname ?? '');
  putText(block, 297, 32, entry.gname ?? '');
  putText(block, 329, 8, octal(entry.devmajor ?? 0, 8));
  putText(block, 337, 8, octal(entry.devminor ?? 0, 8));
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

/** The header blocks of one entry: a PAX extended header when needed, then the ustar block. */
export function encodeHeader(entry: TarEntry): Buffer {
  if (!Number.isSafeInteger(entry.size) || entry.size < 0) throw new TarFormatError(`tar entry ${entry.name} has an invalid size ${entry.size}`);
  if (!Number.isFinite(entry.mtime)) throw new TarFormatError(`tar entry ${entry.name} has an invalid mtime`);
  const records = paxRecordsFor(entry);
  const main = ustarBlock(entry, entryName(entry), TYPE_FLAG[entry.type], entry.size);
  if (records.length === 0) return main;
  const data = Buffer.concat(records.map(([key, value]) => paxRecord(key, value)));
  const pax = ustarBlock({ name: '', type: 'file', mode: 0, mtime: 0, size: data.length }, '././@PaxHeader', 'x', data.length);
  return Buffer.concat([pax, data, Buffer.alloc(padding(data.length)), main]);
}

/** The end of an archive: two zero blocks, then zeros up to a whole record (Python's tarfile). */
export function archiveEnd(offset: number): Buffer {
  const end = offset + 2 * BLOCK;
  return Buffer.alloc(2 * BLOCK + ((RECORD - (end % RECORD)) % RECORD));
}

/**
 * An inner archive as a byte stream: entries whose data comes from a source of known size.
 * The caller pipes the chunks on (gzip, SecureTar, the outer file).
 */
export class TarStreamWriter {
  private offset = 0;

  /** Header and data of one entry; a source shorter or longer than `entry.size` is an error. */
  async *entry(entry: TarEntry, data?: ByteSource): AsyncGenerator<Buffer> {
    const header = encodeHeader(entry);
    this.offset += header.length;
    yield header;
    if (entry.size === 0) return;
    if (!data) throw new TarFormatError(`tar entry ${entry.name} has no data for its ${entry.size} bytes`);
    let written = 0;
    for await (const chunk of data instanceof Uint8Array ? [data] : data) {
      written += chunk.length;
      if (written > entry.size) throw new TarFormatError(`${entry.name} grew while it was archived (more than ${entry.size} bytes)`);
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    if (written !== entry.size) throw new TarFormatError(`${entry.name} shrank while it was archived (${written} of ${entry.size} bytes)`);
    this.offset += written + padding(written);
    if (padding(written)) yield Buffer.alloc(padding(written));
  }

  /** The end-of-archive blocks. */
  end(): Buffer {
    const end = archiveEnd(this.offset);
    this.offset += end.length;
    return end;
  }
}

/**
 * An uncompressed tar written into a file at known offsets, so a member can be written before its
 * size is known and its header rewritten afterwards (the original's way of putting an inner
 * archive straight into the outer file).
 */
export class TarFileWriter {
  private offset = 0;
  private open?: string;

  constructor(private readonly file: FileHandle) {}

  /** Bytes written so far. */
  get position(): number {
    return this.offset;
  }

  private async write(data: Buffer): Promise<void> {
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await this.file.write(data, done, data.length - done, this.offset + done);
      done += bytesWritten;
    }
    this.offset += data.length;
  }

  /** A whole member with its data in hand. */
  async add(entry: TarEntry, data: Buffer = Buffer.alloc(0)): Promise<void> {
    this.assertIdle();
    if (data.length !== entry.size) throw new TarFormatError(`tar entry ${entry.name} declares ${entry.size} bytes but has ${data.length}`);
    await this.write(encodeHeader(entry));
    await this.write(Buffer.concat([data, Buffer.alloc(padding(data.length))]));
  }

  /**
   * A member whose data is streamed in: a provisional header (size 0) now, its real size written
   * over it by `end()`. The PAX header must keep its length; it always does unless a record
   * pushes it past a block boundary, which is refused rather than overwriting data.
   */
  async begin(entry: Omit<TarEntry, 'size'>): Promise<{ write(chunk: Uint8Array): Promise<void>; end(): Promise<number> }> {
    this.assertIdle();
    this.open = entry.name;
    const headerAt = this.offset;
    const provisional = encodeHeader({ ...entry, size: 0 });
    await this.write(provisional);
    const dataAt = this.offset;
    return {
      write: async (chunk) => {
        if (this.open !== entry.name) throw new TarFormatError(`tar member ${entry.name} is already finished`);
        await this.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      },
      end: async () => {
        if (this.open !== entry.name) throw new TarFormatError(`tar member ${entry.name} is already finished`);
        const size = this.offset - dataAt;
        const header = encodeHeader({ ...entry, size });
        if (header.length !== provisional.length) throw new TarFormatError(`tar member ${entry.name}: header for ${size} bytes no longer fits its provisional place`);
        await this.write(Buffer.alloc(padding(size)));
        const { bytesWritten } = await this.file.write(header, 0, header.length, headerAt);
        if (bytesWritten !== header.length) throw new TarFormatError(`tar member ${entry.name}: short header write`);
        this.open = undefined;
        return size;
      },
    };
  }

  /** Writes the end-of-archive blocks. */
  async finish(): Promise<void> {
    this.assertIdle();
    await this.write(archiveEnd(this.offset));
  }

  private assertIdle(): void {
    if (this.open !== undefined) throw new TarFormatError(`tar member ${this.open} is still being written`);
  }
}
