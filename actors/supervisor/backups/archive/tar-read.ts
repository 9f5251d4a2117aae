/**
 * Reading tars with node-tar (npm's own tar, pure JS): its Parser decodes the headers — PAX, GNU
 * long names, base-256 numbers, checksums — and this module adds what backups need around it:
 * entries described as TarEntry, a parser fed from an async source and waited for until it has
 * settled, and the outer backup file scanned from its headers alone.
 */
import type { FileHandle } from 'node:fs/promises';
import { Parser, type ReadEntry } from 'tar';
import { BLOCK, TarFormatError, type TarEntry, type TarEntryType } from './tar.ts';

/** The options every parser here gets: warnings are errors, and nothing but a plain tar is guessed at. */
export const PARSER_OPTIONS = { strict: true, brotli: false, zstd: false } as const;

const TYPES: Partial<Record<string, TarEntryType>> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Link: 'hardlink',
  SymbolicLink: 'symlink',
  CharacterDevice: 'character',
  BlockDevice: 'block',
  Directory: 'directory',
  GNUDumpDir: 'directory',
  FIFO: 'fifo',
};

const unsupported = (entry: ReadEntry) => new TarFormatError(`tar entry ${entry.path} has a type (${entry.type ?? entry.header.typeKey}) a backup does not hold`);

/**
 * node-tar keeps times as Dates, whole milliseconds; Python writes an mtime with its microseconds
 * in a PAX record. The record text node-tar read before the entry gives the digits back, taken
 * only when they agree with node-tar's own Date (so a record meant for another entry never is).
 */
function exactMtime(entry: ReadEntry, records: string): number {
  const milliseconds = entry.mtime?.getTime() ?? 0;
  const seconds = Number(/(?:^|\n)\d+ mtime=([^\n]*)\n/.exec(records)?.[1]);
  return Number.isFinite(seconds) && Math.trunc(seconds * 1000) === milliseconds ? seconds : milliseconds / 1000;
}

/**
 * Describes, in archive order, the entries a parser reads: call it once for each entry (from the
 * filter or from `onReadEntry`), before the parser reads on.
 */
export function entryDescriber(parser: Parser): (entry: ReadEntry) => TarEntry {
  let records = '';
  parser.on('meta', (text: string) => (records += text));
  parser.on('ignoredEntry', () => (records = ''));
  return (entry) => {
    const type = TYPES[entry.type];
    if (!type) throw unsupported(entry);
    const mtime = exactMtime(entry, records);
    records = '';
    return {
      // Python writes a directory's name with a trailing slash; the entry is the directory
      name: type === 'directory' ? entry.path.replace(/\/+$/, '') || '/' : entry.path,
      type,
      mode: (entry.mode ?? 0) & 0o7777,
      mtime,
      size: type === 'file' ? entry.size : 0,
      linkname: entry.linkpath,
      uid: entry.uid,
      gid: entry.gid,
      uname: entry.uname,
      gname: entry.gname,
    };
  };
}

const FORMAT_CODES = new Set(['TAR_ENTRY_INVALID', 'TAR_BAD_ARCHIVE', 'TAR_ABORT']);

/** A damaged archive as node-tar reports it, as a TarFormatError; any other failure as it is. */
function formatError(error: Error & { tarCode?: string; entry?: ReadEntry }): Error {
  if (!error.tarCode || !FORMAT_CODES.has(error.tarCode)) return error;
  // only an entry read whole has a name to go by: a bad header's would be noise
  const where = error.entry?.path;
  return new TarFormatError(`tar archive is damaged${where ? ` at ${where}` : ''}: ${error.message.replace(/^TAR_[A-Z_]+: /, '')}`);
}

/**
 * Writes `chunks` into a node-tar parser (a Parser, or an Unpack that extracts) with its
 * backpressure, then waits until it has settled — for an Unpack, every file written and closed —
 * and throws the first failure: the source's (a wrong password, a gzip CRC), one node-tar reports
 * (strict: every warning is one), or a refusal a filter emitted as an 'error'. Nothing more is
 * handed to the parser after a failure. Past the end-of-archive blocks the source is still read to its end, so gunzip
 * and SecureTar check their trailers, but no longer handed to the parser.
 */
export async function parse(parser: Parser, chunks: AsyncIterable<Buffer>): Promise<void> {
  let failure: Error | undefined;
  let ended = false;
  let aborted = false;
  let wake: (() => void) | undefined;
  const settled = new Promise<void>((resolve) => {
    parser.once('close', resolve);
    // an aborted parser never closes
    parser.once('abort', () => {
      aborted = true;
      resolve();
    });
  });
  parser.on('error', (error: Error) => (failure ??= formatError(error)));
  // node-tar passes quietly over what it cannot read; a restore must not: an entry of a type it
  // does not know (a sparse file, a tape volume) would be missing, and past an extended header too
  // large to be real the next entry would have its own name in place of the one the header meant
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    if (entry.meta) failure ??= new TarFormatError(`tar extended header of ${entry.size} bytes is larger than any real one`);
    else if (!TYPES[entry.type]) failure ??= unsupported(entry);
  });
  parser.on('eof', () => (ended = true));
  parser.on('drain', () => wake?.());
  void settled.then(() => wake?.());
  try {
    for await (const chunk of chunks) {
      if (failure) break;
      if (ended || parser.write(chunk) || aborted) continue;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } catch (error) {
    failure ??= error as Error;
  }
  parser.end();
  await settled;
  if (failure) throw failure;
  if (!ended) throw new TarFormatError('tar archive ends before its end-of-archive blocks (truncated)');
}

/** An uncompressed tar member and where its data starts in the file. */
export interface TarMember {
  entry: TarEntry;
  dataOffset: number;
}

// node-tar walks past the data of an entry its filter left out without looking at it: zeros
// stand in for that data, which is never read from disk
const SKIPPED = Buffer.alloc(1024 * 1024);

/**
 * Lists the members of an uncompressed tar file with their data offsets, reading only the header
 * blocks, so a backup of many gigabytes is scanned in a few reads.
 */
export async function scanTarFile(file: FileHandle): Promise<TarMember[]> {
  const { size: fileSize } = await file.stat();
  const members: TarMember[] = [];
  let position = 0;
  let skip = 0;
  const parser = new Parser({
    ...PARSER_OPTIONS,
    filter: (_path, read) => {
      const entry = describe(read as ReadEntry);
      if (position + entry.size > fileSize) parser.emit('error', new TarFormatError(`tar member ${entry.name} runs past the end of the file (truncated)`));
      members.push({ entry, dataOffset: position });
      skip = (read as ReadEntry).startBlockSize;
      return false;
    },
  });
  const describe = entryDescriber(parser);
  let ended = false;
  parser.on('eof', () => (ended = true));
  const blocks = async function* (): AsyncGenerator<Buffer> {
    while (!ended && position < fileSize) {
      if (skip > 0) {
        const length = Math.min(skip, SKIPPED.length, fileSize - position);
        [skip, position] = [skip - length, position + length];
        yield SKIPPED.subarray(0, length);
        continue;
      }
      // one block at a time: the filter learns each entry's data offset while its header is parsed
      const block = Buffer.alloc(Math.min(BLOCK, fileSize - position));
      const { bytesRead } = await file.read(block, 0, block.length, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield block.subarray(0, bytesRead);
    }
  };
  await parse(parser, blocks());
  return members;
}
