import Docker from 'dockerode';

/**
 * The local container engine, reached over its socket with dockerode. Everything the
 * supervisor does to containers goes through here (one place to point at another socket).
 */

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

/**
 * What went wrong when `err` is a failure to reach the engine over its socket
 * (`connect ENOENT /var/run/docker.sock`), else undefined: the engine is down or not installed,
 * which a caller answers as such rather than as a failure of its own.
 */
export function engineUnreachable(err: unknown): string | undefined {
  const e = err as { syscall?: unknown; code?: unknown; address?: unknown } | null;
  if (!e || e.syscall !== 'connect' || typeof e.address !== 'string' || !e.address.startsWith('/')) return undefined;
  return `connect ${String(e.code)} ${e.address}`;
}

/** The original's resource statistics of one container. */
export interface ContainerStats {
  cpu_percent: number;
  memory_usage: number;
  memory_limit: number;
  memory_percent: number;
  network_rx: number;
  network_tx: number;
  blk_read: number;
  blk_write: number;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The statistics from one engine sample (`GET /containers/{id}/stats?stream=false`), computed
 * as the original does: memory without the page cache, CPU as the share of the host's time
 * since the previous sample (not multiplied by the CPU count), network and block I/O summed.
 */
export function statsOf(sample: any): ContainerStats {
  const mem = sample?.memory_stats ?? {};
  let memoryUsage = 0;
  let memoryLimit = 0;
  if (typeof mem.usage === 'number' && typeof mem.limit === 'number') {
    const s = mem.stats ?? {};
    const cache = s.total_inactive_file ?? s.cache ?? s.inactive_file ?? 0;
    memoryUsage = mem.usage - cache;
    memoryLimit = mem.limit;
  }
  const cpuDelta = (sample?.cpu_stats?.cpu_usage?.total_usage ?? 0) - (sample?.precpu_stats?.cpu_usage?.total_usage ?? 0);
  const systemDelta = (sample?.cpu_stats?.system_cpu_usage ?? 0) - (sample?.precpu_stats?.system_cpu_usage ?? 0);
  const cpuPercent = cpuDelta > 0 && systemDelta > 0 ? (cpuDelta / systemDelta) * 100 : 0;
  let rx = 0;
  let tx = 0;
  for (const n of Object.values<any>(sample?.networks ?? {})) {
    rx += n?.rx_bytes ?? 0;
    tx += n?.tx_bytes ?? 0;
  }
  let read = 0;
  let write = 0;
  for (const e of sample?.blkio_stats?.io_service_bytes_recursive ?? []) {
    const op = String(e?.op ?? '').toLowerCase();
    if (op === 'read') read += e.value ?? 0;
    else if (op === 'write') write += e.value ?? 0;
  }
  return {
    cpu_percent: round2(cpuPercent),
    memory_usage: memoryUsage,
    memory_limit: memoryLimit,
    memory_percent: memoryLimit > 0 ? round2((memoryUsage / memoryLimit) * 100) : 0,
    network_rx: rx,
    network_tx: tx,
    blk_read: read,
    blk_write: write,
  };
}

/** What the engine says about itself (`/info` and `/version`), as the supervisor uses it. */
export interface EngineInfo {
  version: string;
  apiVersion: string;
  storageDriver: string;
  loggingDriver: string;
  cgroupVersion: string;
}

export class Engine {
  readonly docker: Docker;

  /** `docker`: the client to use instead of dockerode over `socketPath` (tests hand a fake engine). */
  constructor(
    readonly socketPath: string = DEFAULT_DOCKER_SOCKET,
    docker?: Docker,
  ) {
    this.docker = docker ?? new Docker({ socketPath });
  }

  /** The engine's version and drivers; rejects when the engine cannot be reached. */
  async info(): Promise<EngineInfo> {
    const [version, info] = await Promise.all([this.docker.version(), this.docker.info()]);
    return {
      version: version.Version,
      apiVersion: version.ApiVersion,
      storageDriver: info.Driver,
      loggingDriver: info.LoggingDriver,
      cgroupVersion: String(info.CgroupVersion ?? '1'),
    };
  }

  /** Whether the engine answers. */
  async reachable(): Promise<boolean> {
    try {
      await this.docker.ping();
      return true;
    } catch {
      return false;
    }
  }

  /** A container as the engine describes it, or null when there is none by that name. */
  async inspect(container: string): Promise<Docker.ContainerInspectInfo | null> {
    try {
      return await this.docker.getContainer(container).inspect();
    } catch (err: any) {
      if (err?.statusCode === 404) return null;
      throw err;
    }
  }

  /** One statistics sample of a running container. */
  async stats(container: string): Promise<ContainerStats> {
    const sample = await this.docker.getContainer(container).stats({ stream: false });
    return statsOf(sample);
  }
}
