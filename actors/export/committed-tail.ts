// The batches the log committed and the exporter has not had acked yet, kept in memory so a
// primary that keeps up never reads its own log back. Past TAIL_LIMIT records the oldest batches
// are dropped: what they held is read from the log instead.
import type { EventRecord } from '../../store/types.ts';

/** committed records kept in memory for publishing; past it, the oldest are read back from the log */
const TAIL_LIMIT = 50_000;

/** Committed batches in seq order: every record after `from` is in them until acked. */
export class CommittedTail {
  #batches: EventRecord[][] = [];
  #size = 0;
  #from: number;

  /** `from`: the log's last seq when the tail starts */
  constructor(from: number) {
    this.#from = from;
  }

  /** The seq after which every committed record is in the tail. */
  get from(): number {
    return this.#from;
  }

  /** Adds a committed batch, dropping the oldest past the limit. */
  push(records: EventRecord[]): void {
    this.#batches.push(records);
    this.#size += records.length;
    while (this.#size > TAIL_LIMIT && this.#batches.length > 1) {
      const dropped = this.#batches.shift()!;
      this.#size -= dropped.length;
      this.#from = dropped[dropped.length - 1].seq;
    }
  }

  /** Up to `max` committed records after `after`. */
  after(after: number, max: number): EventRecord[] {
    const out: EventRecord[] = [];
    for (const batch of this.#batches) {
      if (batch[batch.length - 1].seq <= after) continue;
      for (const record of batch) {
        if (record.seq <= after) continue;
        out.push(record);
        if (out.length >= max) return out;
      }
    }
    return out;
  }

  /** Forgets the batches acked up to `acked`. */
  dropAcked(acked: number): void {
    while (this.#batches.length > 0 && this.#batches[0][this.#batches[0].length - 1].seq <= acked) {
      const dropped = this.#batches.shift()!;
      this.#size -= dropped.length;
      this.#from = Math.max(this.#from, dropped[dropped.length - 1].seq);
    }
  }
}
