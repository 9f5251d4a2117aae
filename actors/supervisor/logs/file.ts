import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { hostname as osHostname } from 'node:os';
import { SupervisorError } from '../errors.ts';
import { selectRange, type FollowFrom, type LogEntry, type LogRange, type LogSource } from './types.ts';

/**
 * A log file written by actors/logging (the supervisor's `<data>/supervisor.log`): one entry per
 * line, `2024-05-01 18:04:05.123 INFO (MainThread) [hearth.supervisor] message` in local time; a
 * line without a time (a stack under an error) takes the time of the line before. Cursors are
 * line offsets in the current file, `f=<inode>;n=<line>`: the file starts anew at each start of
 * the supervisor and when it grows too large, and a cursor of an older file stands before the
 * first line of the current one. Following polls the file's size.
 */

const CURSOR = /^f=(\d{1,20});n=(\d{1,12})$/;
const STAMP = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) /;
const POLL_MS = 200;

export interface FileLogOptions {
  path: string;
  identifier: string;
  pid?: number;
  hostname?: string;
  pollMs?: number;
}

/** The file's identity and its complete lines (a last line without its newline is not yet one). */
interface Snapshot {
  ino: number;
  lines: string[];
  /** bytes of the complete lines */
  bytes: number;
}

export class FileLogSource implements LogSource {
  private readonly hostname: string;

  constructor(private readonly options: FileLogOptions) {
    this.hostname = options.hostname ?? osHostname();
  }

  async read(range: LogRange, since?: number): Promise<LogEntry[]> {
    let at = 0;
    let cursor: { ino: number; n: number } | undefined;
    if (range.cursor) {
      const m = CURSOR.exec(range.cursor);
      if (!m) throw new SupervisorError(`Invalid cursor ${range.cursor} in the Range header`, { status: 400, plain: true });
      cursor = { ino: Number(m[1]), n: Number(m[2]) };
    }
    const snap = this.snapshot(0);
    let entries = this.entries(snap.lines, snap.ino, 0);
    if (cursor && cursor.ino === snap.ino) at = Math.min(cursor.n, entries.length);
    if (since !== undefined) {
      const first = entries.findIndex((e) => e.realtime >= since);
      const cut = first < 0 ? entries.length : first;
      entries = entries.slice(cut);
      at = Math.max(at - cut, 0);
    }
    return selectRange(entries, range, at);
  }

  async follow(from: FollowFrom, onEntry: (entry: LogEntry) => void, _onEnd: () => void): Promise<() => void> {
    const snap = this.snapshot(0);
    const all = this.entries(snap.lines, snap.ino, 0);
    // where the follow starts: after the cursor's line (a cursor of an older file: the first
    // line), from a time on, or at the end of what is there now
    const m = from.after ? CURSOR.exec(from.after) : null;
    let start = all.length;
    if (m) start = Number(m[1]) === snap.ino ? Math.min(Number(m[2]) + 1, all.length) : 0;
    else if (from.since !== undefined) {
      const first = all.findIndex((e) => e.realtime >= from.since!);
      start = first < 0 ? all.length : first;
    }
    for (const e of all.slice(start)) onEntry(e);
    let ino = snap.ino;
    let line = all.length;
    let offset = snap.bytes;
    let time = all.at(-1)?.realtime ?? 0;
    const timer = setInterval(() => {
      try {
        const now = statSync(this.options.path);
        if (now.ino !== ino || now.size < offset) {
          // turned over: the new file from its first line
          ino = now.ino;
          offset = 0;
          line = 0;
        }
        if (now.size === offset) return;
        const more = this.snapshot(offset);
        if (more.ino !== ino || more.lines.length === 0) return;
        for (const e of this.entries(more.lines, ino, line, time)) {
          time = e.realtime;
          onEntry(e);
        }
        line += more.lines.length;
        offset += more.bytes;
      } catch {
        // the file is between turning over and being made anew; the next poll sees it
      }
    }, this.options.pollMs ?? POLL_MS);
    return () => clearInterval(timer);
  }

  async lastStart(): Promise<number> {
    // the file began with this run of the supervisor: "since the last start" is all of it
    const snap = this.snapshot(0);
    const first = this.entries(snap.lines, snap.ino, 0)[0];
    return first ? first.realtime : Date.now() * 1000;
  }

  /** The file's complete lines from byte `offset` on. */
  private snapshot(offset: number): Snapshot {
    let fd: number;
    try {
      fd = openSync(this.options.path, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ino: 0, lines: [], bytes: 0 };
      throw new SupervisorError(`Cannot read ${this.options.path}: ${(err as Error).message}`, { status: 500, plain: true });
    }
    try {
      const { ino, size } = statSync(this.options.path);
      const length = Math.max(size - offset, 0);
      const buf = Buffer.alloc(length);
      let got = 0;
      while (got < length) {
        const n = readSync(fd, buf, got, length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      const end = buf.lastIndexOf(0x0a, got - 1);
      if (end < 0) return { ino, lines: [], bytes: 0 };
      return { ino, lines: buf.subarray(0, end).toString('utf8').split('\n'), bytes: end + 1 };
    } finally {
      closeSync(fd);
    }
  }

  /** Entries for `lines`, the first being line `base` of the file; `carried` is the time before them. */
  private entries(lines: string[], ino: number, base: number, carried = 0): LogEntry[] {
    const out: LogEntry[] = [];
    let time = carried;
    for (let n = 0; n < lines.length; n++) {
      const text = lines[n];
      const m = STAMP.exec(text);
      if (m) time = new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], +m[7]).getTime() * 1000;
      out.push({ cursor: `f=${ino};n=${base + n}`, realtime: time, hostname: this.hostname, identifier: this.options.identifier, pid: this.options.pid, message: text });
    }
    return out;
  }
}
