import type Docker from 'dockerode';

/** A container's `die` as the engine reports it. */
export interface ContainerDeath {
  name: string;
  exitCode: number;
}

/**
 * Follows the engine's `die` events of the containers a filter picks (the watchdogs of the core
 * and of the apps), reconnecting after the engine drops the stream until closed. Starting is
 * idempotent: the first caller connects, later ones find it connected.
 */
export class DieEvents {
  private stream?: NodeJS.ReadableStream & { destroy?: () => void };
  private started = false;
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly filters: Record<string, string[]>,
    private readonly onDeath: (death: ContainerDeath) => void,
  ) {}

  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.connect();
  }

  close(): void {
    this.closed = true;
    this.stream?.destroy?.();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    try {
      const stream = (await this.docker.getEvents({ filters: { type: ['container'], event: ['die'], ...this.filters } })) as unknown as NodeJS.ReadableStream & { destroy?: () => void };
      if (this.closed) return stream.destroy?.();
      this.stream = stream;
      let buffer = '';
      stream.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) this.read(line);
        }
      });
      let ended = false;
      const again = () => {
        if (ended) return;
        ended = true;
        this.stream = undefined;
        if (!this.closed) setTimeout(() => void this.connect(), 2000).unref();
      };
      stream.on('end', again);
      stream.on('error', again);
    } catch {
      if (!this.closed) setTimeout(() => void this.connect(), 5000).unref();
    }
  }

  private read(line: string): void {
    let event: any;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    if (event.Action !== 'die') return;
    this.onDeath({ name: String(event.Actor?.Attributes?.name ?? ''), exitCode: Number(event.Actor?.Attributes?.exitCode ?? 0) });
  }
}
