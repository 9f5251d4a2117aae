import { StoreError, messageOf } from './errors.ts';

/** Told once the write holding a submission has succeeded (no error) or failed. */
export type Done = (err?: StoreError) => void;

/**
 * Turns many small submissions into few writes: everything submitted in one turn of the event
 * loop, plus everything submitted while a write is in flight, goes into the next single write.
 * Only one write is in flight at a time, so writes land in submission order. Submitters are
 * told through callbacks, not a promise each: this is the path of every append.
 */
export class GroupCommit<T> {
  readonly #write: (items: T[]) => Promise<void>;
  readonly #committed: (items: T[]) => void;
  #items: T[] = [];
  #done: Done[] = [];
  #scheduled = false;
  #writing = false;
  #idle: (() => void)[] = [];

  /**
   * `write` persists one group; `committed` runs synchronously after it succeeds and before
   * any submitter is told. A failed write fails only its own group: `write` is responsible for
   * leaving the store fit for the next one.
   */
  constructor(write: (items: T[]) => Promise<void>, committed: (items: T[]) => void) {
    this.#write = write;
    this.#committed = committed;
  }

  /** Queues `item` for the next write; `done` is called once that write has succeeded or failed. */
  submit(item: T, done: Done): void {
    this.#items.push(item);
    this.#done.push(done);
    if (!this.#writing) this.#schedule();
  }

  /** Resolves once nothing is queued or being written. */
  async drain(): Promise<void> {
    while (this.#scheduled || this.#writing || this.#items.length > 0) {
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate rather than a microtask: it runs after every promise continuation of the
    // current turn, so appends issued from awaited code in the same turn share the write
    setImmediate(() => {
      this.#scheduled = false;
      if (!this.#writing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    const items = this.#items;
    const done = this.#done;
    this.#items = [];
    this.#done = [];
    if (items.length > 0) {
      this.#writing = true;
      let failure: StoreError | undefined;
      try {
        await this.#write(items);
      } catch (err) {
        failure =
          err instanceof StoreError
            ? err
            : new StoreError('HEARTH_LOG_WRITE_FAILED', `event log write failed: ${messageOf(err)}`, { cause: err });
      }
      this.#writing = false;
      if (failure) {
        for (const d of done) d(failure);
      } else {
        try {
          this.#committed(items);
        } finally {
          for (const d of done) d();
        }
      }
    }
    // what arrived during the write goes out next; follow-up submissions from the told
    // submitters' continuations come later in this turn and join it or schedule themselves
    if (this.#writing) return;
    if (this.#items.length > 0) this.#schedule();
    else if (!this.#scheduled) for (const wake of this.#idle.splice(0)) wake();
  }
}
