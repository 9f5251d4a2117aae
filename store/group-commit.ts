import { StoreError, messageOf } from './errors.ts';

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Turns many small submissions into few writes: everything submitted in one turn of the event
 * loop, plus everything submitted while a write is in flight, goes into the next single write.
 * Only one write is in flight at a time, so writes land in submission order.
 */
export class GroupCommit<T> {
  readonly #write: (items: T[]) => Promise<void>;
  readonly #committed: (items: T[]) => void;
  #queue: Waiting<T>[] = [];
  #scheduled = false;
  #writing = false;
  #idle: (() => void)[] = [];

  /**
   * `write` persists one group; `committed` runs synchronously after it succeeds and before
   * any submitter's promise resolves. A failed write rejects only its own group: `write` is
   * responsible for leaving the store fit for the next one.
   */
  constructor(write: (items: T[]) => Promise<void>, committed: (items: T[]) => void) {
    this.#write = write;
    this.#committed = committed;
  }

  /** Queues `item` for the next write; resolves once that write has succeeded. */
  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once nothing is queued or being written. */
  async drain(): Promise<void> {
    while (this.#scheduled || this.#writing || this.#queue.length > 0) {
      await new Promise<void>((resolve) => this.#idle.push(resolve));
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing) return;
    this.#scheduled = true;
    // setImmediate rather than a microtask: it runs after every promise continuation of the
    // current turn, so appends issued from awaited code in the same turn share the write
    setImmediate(() => void this.#flush());
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const group = this.#queue;
    this.#queue = [];
    if (group.length > 0) {
      this.#writing = true;
      const items = group.map((w) => w.item);
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
        for (const w of group) w.reject(failure);
      } else {
        try {
          this.#committed(items);
        } finally {
          for (const w of group) w.resolve();
        }
      }
    }
    // what arrived during the write goes out next; follow-up submissions from the resolved
    // submitters' continuations come later in this turn and schedule themselves
    if (this.#queue.length > 0) this.#schedule();
    else for (const wake of this.#idle.splice(0)) wake();
  }
}
