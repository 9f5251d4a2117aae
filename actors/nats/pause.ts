/**
 * The wait between two attempts to reach NATS (the exporter's, a replica's), which stop() cuts
 * short: a stopping process must not sit out the retry interval.
 */
export class Pause {
  #cut: (() => void) | undefined;

  wait(ms: number): Promise<void> {
    return new Promise<void>((ok) => {
      const timer = setTimeout(() => this.#end(ok), ms);
      this.#cut = () => {
        clearTimeout(timer);
        this.#end(ok);
      };
    });
  }

  /** Ends the wait in progress, if any, at once. */
  cut(): void {
    this.#cut?.();
  }

  #end(ok: () => void): void {
    this.#cut = undefined;
    ok();
  }
}
