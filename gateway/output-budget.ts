/** A connection whose unsent output counts against the budget. */
export interface Backlogged {
  /** who it is, for the log line */
  readonly who: string;
  /** ends it at once, dropping what it has waiting */
  drop(): void;
}

/**
 * What the server holds, all connections together, for clients that do not read as fast as
 * they are written to (SSE streams, WebSocket subscribers). Each connection has its own limit
 * too, but a hundred slow clients each just under theirs would still take gigabytes; past this
 * budget the client furthest behind is dropped, with a log line, until the total fits again.
 */
export class OutputBudget {
  private total = 0;
  private readonly backlog = new Map<Backlogged, number>();

  constructor(
    readonly limit: number,
    private readonly logLine: (line: string) => void,
  ) {}

  /** Records how many bytes `c` has waiting now (0 when drained or gone). */
  set(c: Backlogged, bytes: number): void {
    const before = this.backlog.get(c) ?? 0;
    if (bytes === before) return;
    this.total += bytes - before;
    if (bytes > 0) this.backlog.set(c, bytes);
    else this.backlog.delete(c);
    while (this.total > this.limit) this.dropFurthest();
  }

  /** Bytes waiting for all clients together. */
  get used(): number {
    return this.total;
  }

  private dropFurthest(): void {
    let furthest: Backlogged | undefined;
    let most = 0;
    // only connections that are behind are in the map: usually none, rarely many
    for (const [c, bytes] of this.backlog) {
      if (bytes > most) {
        furthest = c;
        most = bytes;
      }
    }
    if (!furthest) return void (this.total = 0);
    this.backlog.delete(furthest);
    this.total -= most;
    this.logLine(`Hearth holds more than ${this.limit} bytes for clients that do not read; dropping ${furthest.who}, the furthest behind (${most} bytes)`);
    furthest.drop();
  }
}

/** The default budget: far above what readers that keep up ever leave waiting. */
export const OUTPUT_BUDGET_BYTES = 64 * 1024 * 1024;
