// Waiting in tests: a promise opened by hand, and polling until something holds.

/** A promise with its resolve and reject, for a test to hold work at a point and let it go. */
export function gate<T = void>() {
  let open!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((ok, no) => {
    open = ok;
    fail = no;
  });
  return { promise, open, fail };
}

/** Asks `probe` again (each after the event loop turned) until it answers something truthy; its last answer after `tries`. */
export async function until<T>(probe: () => T | Promise<T>, tries = 500): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await probe();
    if (v || i >= tries) return v;
    await new Promise((ok) => setImmediate(ok));
  }
}

/**
 * Polls `probe` every `every` ms until it answers something truthy, and answers that. A probe
 * that throws is asked again; after `ms` it fails naming `what` and the probe's last error.
 */
export async function eventually<T>(what: string, probe: () => T | Promise<T>, ms = 20_000, every = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((ok) => setTimeout(ok, every));
  }
}
