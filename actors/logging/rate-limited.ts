/** How many lines of one kind a window lets through. */
export interface LineLimit {
  lines: number;
  windowMs: number;
}

/** Lines of one kind per minute, by default: enough to see who and what, too few to fill a disk. */
export const DEFAULT_LINE_LIMIT: LineLimit = { lines: 10, windowMs: 60_000 };

interface Window {
  written: number;
  suppressed: number;
  timer: NodeJS.Timeout;
}

/**
 * Lines that clients can cause as fast as they can send (refused requests): at most
 * `limit.lines` of each kind per window, the first ones; the rest are counted, and when the
 * window ends one line says how many were left out. Kinds are a fixed set chosen by the caller,
 * never a client's words, so the windows kept stay few.
 */
export class RateLimitedLines {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logLine: (line: string) => void,
    private readonly limit: LineLimit = DEFAULT_LINE_LIMIT,
  ) {}

  /** Writes the line `text` makes (made only when it is written), unless its kind is past the limit. */
  write(kind: string, text: () => string): void {
    let window = this.windows.get(kind);
    if (!window) {
      window = { written: 0, suppressed: 0, timer: setTimeout(() => this.end(kind), this.limit.windowMs).unref() };
      this.windows.set(kind, window);
    }
    if (window.written >= this.limit.lines) {
      window.suppressed++;
      return;
    }
    window.written++;
    this.logLine(text());
  }

  /** Ends every window now, saying what each left out (at shutdown, so no count is lost). */
  close(): void {
    for (const kind of [...this.windows.keys()]) this.end(kind);
  }

  private end(kind: string): void {
    const window = this.windows.get(kind);
    if (!window) return;
    clearTimeout(window.timer);
    this.windows.delete(kind);
    if (window.suppressed === 0) return;
    const { lines, windowMs } = this.limit;
    const span = windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`;
    this.logLine(`${window.suppressed} more ${kind} suppressed (at most ${lines} line${lines === 1 ? '' : 's'} of them every ${span})`);
  }
}
