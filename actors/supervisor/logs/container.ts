import { hostname as osHostname } from 'node:os';
import type Docker from 'dockerode';
import { SupervisorError } from '../errors.ts';
import { selectRange, type FollowFrom, type LogEntry, type LogRange, type LogSource } from './types.ts';

/**
 * A container's logs as the engine keeps them (`GET /containers/{id}/logs`, stdout and stderr,
 * with timestamps). Without a journal there are no cursors; each line gets a synthetic one from
 * its engine timestamp in nanoseconds and its index among earlier lines of the same timestamp:
 * `s=<epoch ns>;i=<n>` (n is almost always 0). Reads ask the engine for as little as the range
 * needs: `tail` for the last lines, `since` for a cursor or a start time; `since` is inclusive,
 * so a read always begins with every line of its first timestamp and the indices stay exact.
 * Lines are in the engine's order, which is assumed to follow their timestamps.
 */

/** One line's place: nanoseconds since the epoch, and its index within equal timestamps. */
interface Position {
  ns: bigint;
  i: number;
}

const CURSOR = /^s=(\d{1,25});i=(\d{1,9})$/;

export function containerCursor(p: Position): string {
  return `s=${p.ns};i=${p.i}`;
}

/** The position a cursor names, or undefined when it is not one of this source's cursors. */
export function parseContainerCursor(cursor: string): Position | undefined {
  const m = CURSOR.exec(cursor);
  return m ? { ns: BigInt(m[1]), i: Number(m[2]) } : undefined;
}

const before = (a: Position, b: Position) => a.ns < b.ns || (a.ns === b.ns && a.i < b.i);

/** The engine's `since`: `<seconds>.<nanoseconds>`. */
function sinceArg(ns: bigint): string {
  return `${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`;
}

/** Past this many lines a tail is a read of everything (the engine takes a tail as an int). */
const MAX_TAIL = 1_000_000_000;

const usToNs = (us: number) => BigInt(Math.floor(us)) * 1000n;

const STAMPED = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z ?/;

/**
 * Splits the engine's log stream into lines: the 8-byte frame headers (stream, size) removed
 * when the container has no TTY, each line's leading timestamp parsed, equal timestamps indexed.
 */
export class LogLines {
  private frames: Buffer = Buffer.alloc(0);
  private partial: Buffer[] = [Buffer.alloc(0), Buffer.alloc(0), Buffer.alloc(0)];
  private last: Position | undefined;

  constructor(
    private readonly multiplexed: boolean,
    private readonly emit: (p: Position, realtime: number, message: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (!this.multiplexed) return this.text(0, chunk);
    this.frames = this.frames.length ? Buffer.concat([this.frames, chunk]) : chunk;
    let at = 0;
    while (this.frames.length - at >= 8) {
      const size = this.frames.readUInt32BE(at + 4);
      if (this.frames.length - at - 8 < size) break;
      const stream = this.frames[at] <= 2 ? this.frames[at] : 0;
      this.text(stream, this.frames.subarray(at + 8, at + 8 + size));
      at += 8 + size;
    }
    this.frames = this.frames.subarray(at);
  }

  /** What is left without a newline at the end of the stream. */
  end(): void {
    for (let s = 0; s < this.partial.length; s++) {
      if (this.partial[s].length) this.line(this.partial[s].toString('utf8'));
      this.partial[s] = Buffer.alloc(0);
    }
  }

  private text(stream: number, data: Buffer): void {
    let buf = this.partial[stream].length ? Buffer.concat([this.partial[stream], data]) : data;
    let nl: number;
    while ((nl = buf.indexOf(0x0a)) >= 0) {
      this.line(buf.subarray(0, nl).toString('utf8'));
      buf = buf.subarray(nl + 1);
    }
    this.partial[stream] = Buffer.from(buf);
  }

  private line(raw: string): void {
    const m = STAMPED.exec(raw);
    if (!m) return; // every line the engine sends with timestamps has one
    const seconds = BigInt(Date.parse(`${m[1]}Z`) / 1000);
    const ns = seconds * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0') || '0');
    const i = this.last && this.last.ns === ns ? this.last.i + 1 : 0;
    this.last = { ns, i };
    this.emit(this.last, Number(ns / 1000n), raw.slice(m[0].length).replace(/\r$/, ''));
  }
}

/** An engine time (`2024-05-01T18:04:05.123456789Z`) in epoch µs; undefined for the zero time. */
function engineTime(value: unknown): number | undefined {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(String(value ?? ''));
  if (!m || m[1].startsWith('0001-')) return undefined;
  return Date.parse(`${m[1]}Z`) * 1000 + Math.floor(Number((m[2] ?? '').padEnd(9, '0') || '0') / 1000);
}

export interface ContainerLogOptions {
  docker: Docker;
  /** the container's name (also the entries' identifier) */
  name: string;
  /** the error a missing container is answered with */
  missing(): SupervisorError;
  hostname?: string;
}

export class ContainerLogSource implements LogSource {
  private readonly hostname: string;

  constructor(private readonly options: ContainerLogOptions) {
    this.hostname = options.hostname ?? osHostname();
  }

  async read(range: LogRange, since?: number): Promise<LogEntry[]> {
    const tty = await this.tty();
    const floor = since === undefined ? undefined : usToNs(since);
    let cursor: Position | undefined;
    if (range.cursor) {
      cursor = parseContainerCursor(range.cursor);
      if (!cursor) throw new SupervisorError(`Invalid cursor ${range.cursor} in the Range header`, { status: 400, plain: true });
    }
    const max = (a: bigint | undefined, b: bigint | undefined) => (a === undefined ? b : b === undefined ? a : a > b ? a : b);
    let entries: LogEntry[];
    if (!cursor && range.skip < 0) {
      // the last 1-skip lines; when the tail was full it may have cut a group of equal
      // timestamps, so read again from the first one to number the group from its start
      const tail = 1 - range.skip;
      entries = await this.fetch(tty, { tail: tail <= MAX_TAIL ? tail : undefined, since: floor });
      if (entries.length >= tail) entries = await this.fetch(tty, { since: max(floor, parseContainerCursor(entries[0].cursor)!.ns) });
    } else if (cursor && range.skip >= 0) entries = await this.fetch(tty, { since: max(floor, cursor.ns) });
    else entries = await this.fetch(tty, { since: floor });
    let at = 0;
    if (cursor) {
      at = entries.findIndex((e) => !before(parseContainerCursor(e.cursor)!, cursor!));
      if (at < 0) at = entries.length;
    }
    return selectRange(entries, range, at);
  }

  async follow(from: FollowFrom, onEntry: (entry: LogEntry) => void, onEnd: () => void): Promise<() => void> {
    const tty = await this.tty();
    const after = from.after ? parseContainerCursor(from.after) : undefined;
    const since = after?.ns ?? (from.since === undefined ? undefined : usToNs(from.since));
    let stream: NodeJS.ReadableStream;
    try {
      stream = await this.container().logs({ stdout: true, stderr: true, timestamps: true, follow: true, ...(since === undefined ? {} : { since: sinceArg(since) as never }) });
    } catch (err) {
      throw this.failure(err);
    }
    const lines = new LogLines(!tty, (p, realtime, message) => {
      if (after && !before(after, p)) return;
      onEntry(this.entry(p, realtime, message));
    });
    let stopped = false;
    const finish = () => {
      if (stopped) return;
      stopped = true;
      lines.end();
      onEnd();
    };
    stream.on('data', (chunk: Buffer) => lines.push(chunk));
    stream.on('end', finish);
    stream.on('close', finish);
    stream.on('error', finish);
    return () => {
      stopped = true;
      (stream as unknown as { destroy(): void }).destroy();
    };
  }

  /**
   * Where the lines of the last start begin. The engine stamps StartedAt only after the process
   * runs, so its first lines come before it; a running container's previous stop (FinishedAt,
   * kept across the start) is the bound instead, and a container that never stopped has only
   * lines of this start. A stopped container's last run is taken from a second before its start.
   */
  async lastStart(): Promise<number> {
    const state = (await this.inspect()).State ?? {};
    const started = engineTime(state.StartedAt);
    const finished = engineTime(state.FinishedAt);
    if (started === undefined) return Date.now() * 1000; // never started: nothing is since its start
    if (state.Running) return finished !== undefined && finished < started ? finished : 0;
    return Math.max(started - 1_000_000, 0);
  }

  private container() {
    return this.options.docker.getContainer(this.options.name);
  }

  private async inspect(): Promise<any> {
    try {
      return await this.container().inspect();
    } catch (err) {
      throw this.failure(err);
    }
  }

  private async tty(): Promise<boolean> {
    return (await this.inspect()).Config?.Tty === true;
  }

  private async fetch(tty: boolean, q: { tail?: number; since?: bigint }): Promise<LogEntry[]> {
    let data: Buffer;
    try {
      data = (await this.container().logs({
        stdout: true,
        stderr: true,
        timestamps: true,
        follow: false,
        ...(q.tail === undefined ? {} : { tail: q.tail }),
        ...(q.since === undefined ? {} : { since: sinceArg(q.since) as never }),
      })) as Buffer;
    } catch (err) {
      throw this.failure(err);
    }
    const out: LogEntry[] = [];
    const lines = new LogLines(!tty, (p, realtime, message) => out.push(this.entry(p, realtime, message)));
    lines.push(Buffer.isBuffer(data) ? data : Buffer.from(String(data)));
    lines.end();
    return out;
  }

  private entry(p: Position, realtime: number, message: string): LogEntry {
    return { cursor: containerCursor(p), realtime, hostname: this.hostname, identifier: this.options.name, message };
  }

  private failure(err: unknown): SupervisorError {
    if (err instanceof SupervisorError) return err;
    const e = err as { statusCode?: number; code?: string; message?: string };
    if (e?.statusCode === 404) return this.options.missing();
    if (e?.code === 'ENOENT' || e?.code === 'ECONNREFUSED' || e?.code === 'EACCES') {
      return new SupervisorError('Unable to connect to the container engine', { status: 400, plain: true });
    }
    return new SupervisorError(`Cannot read the logs of ${this.options.name}: ${e?.message ?? String(err)}`, { status: 500, plain: true });
  }
}
