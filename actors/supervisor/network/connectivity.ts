/**
 * Whether this host reaches the internet: a HEAD request to a check URL (the original's
 * `checkonline` address by default), any HTTP answer meaning yes. Probes coalesce: a caller
 * arriving while one runs waits for it; without `force`, a result younger than the minimum
 * interval (10 minutes when connected, 5 s when not, as the original) is reused.
 * The supervisor runs on the host itself, so one probe answers both `supervisor_internet` and
 * `host_internet` (the original asks NetworkManager for the latter). With no URL the check is
 * off: `host_internet` is null, as the original's when connectivity checking is disabled.
 */

export const DEFAULT_CONNECTIVITY_URL = 'https://checkonline.home-assistant.io/online.txt';
const TIMEOUT_MS = 10_000;
const MIN_INTERVAL_CONNECTED_MS = 600_000;
const MIN_INTERVAL_DISCONNECTED_MS = 5_000;

export interface ConnectivityDeps {
  /** the URL probed; null turns the check off */
  url(): string | null;
  now(): number;
  /** told when the state changes */
  changed?(connected: boolean): void;
  logLine?(line: string): void;
}

export class Connectivity {
  /** the original assumes a connection until a probe says otherwise */
  private connected = true;
  private probed = false;
  private lastCheck = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private rerun = false;
  private readonly stopped = new AbortController();

  constructor(private readonly deps: ConnectivityDeps) {}

  get enabled(): boolean {
    return this.deps.url() !== null;
  }

  /** The supervisor's connection (true until a probe fails). */
  get supervisor(): boolean {
    return this.connected;
  }

  /** The host's connection: null while the check is off or before the first probe. */
  get host(): boolean | null {
    return this.enabled && this.probed ? this.connected : null;
  }

  /** Probes unless a recent result stands (always with `force`); resolves when the state is known. */
  async check(options: { force?: boolean } = {}): Promise<void> {
    if (!this.enabled || this.stopped.signal.aborted) return;
    if (this.inFlight) {
      if (options.force) this.rerun = true;
      await this.inFlight;
      return;
    }
    if (!options.force) {
      const interval = this.connected ? MIN_INTERVAL_CONNECTED_MS : MIN_INTERVAL_DISCONNECTED_MS;
      if (this.deps.now() - this.lastCheck < interval) return;
    }
    const probe = this.probe();
    this.inFlight = probe;
    try {
      await probe;
    } finally {
      this.inFlight = undefined;
    }
    this.lastCheck = this.deps.now();
    if (this.rerun) {
      this.rerun = false;
      await this.check({ force: true });
    }
  }

  /** Ends a probe in flight and any later one (the supervisor is stopping). */
  stop(): void {
    this.stopped.abort();
  }

  private async probe(): Promise<void> {
    const url = this.deps.url();
    if (url === null) return;
    let ok: boolean;
    try {
      const res = await fetch(url, { method: 'HEAD', signal: AbortSignal.any([AbortSignal.timeout(TIMEOUT_MS), this.stopped.signal]) });
      await res.body?.cancel();
      ok = true;
    } catch (err) {
      if (this.stopped.signal.aborted) return;
      this.deps.logLine?.(`connectivity check against ${url} failed: ${(err as any)?.cause?.code ?? (err as Error)?.message ?? err}`);
      ok = false;
    }
    const changed = ok !== this.connected || !this.probed;
    this.connected = ok;
    this.probed = true;
    if (changed) this.deps.changed?.(ok);
  }
}
