import { closeSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';

/** Where the file turns over when no size is given: the current file plus one older, 20 MiB at most. */
export const LOG_FILE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The log file (`<data>/hearth.log`), as the original keeps home-assistant.log: the previous
 * run's file becomes `<file>.1` at start; beyond the original, the file also turns over when it
 * passes `maxBytes`, so the two together stay bounded. Lines gathered in one tick are written
 * with one synchronous write at its end: a crash loses nothing already flushed, and `read` and
 * `close` flush first, so they see every line.
 */
export class LogFile {
  private fd: number;
  private size = 0;
  private pending: string[] = [];
  private scheduled = false;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly maxBytes = LOG_FILE_MAX_BYTES,
    /** where a failure to write goes (stderr): the log cannot report on itself */
    private readonly complain: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.turnOver();
    this.fd = openSync(path, 'a');
  }

  /** Queues a line (without its newline). */
  write(line: string): void {
    if (this.closed) return;
    this.pending.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** The current file, with every queued line in it. */
  read(): string {
    this.flush();
    return readFileSync(this.path, 'utf8');
  }

  /** Writes what is queued and closes the file. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.fd);
  }

  private flush(): void {
    this.scheduled = false;
    if (this.closed || this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    try {
      this.size += writeSync(this.fd, text);
    } catch (err) {
      this.complain(`hearth.logging: cannot write ${this.path}: ${(err as Error).message}`);
      return;
    }
    if (this.size >= this.maxBytes) this.startAnew();
  }

  /** Moves the full file aside and opens an empty one; without a file, lines are dropped, not thrown. */
  private startAnew(): void {
    closeSync(this.fd);
    try {
      this.turnOver();
      this.fd = openSync(this.path, 'a');
      this.size = 0;
    } catch (err) {
      this.complain(`hearth.logging: cannot start a new ${this.path}: ${(err as Error).message}; no more lines are written to it`);
      this.closed = true;
    }
  }

  private turnOver(): void {
    try {
      renameSync(this.path, `${this.path}.1`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
