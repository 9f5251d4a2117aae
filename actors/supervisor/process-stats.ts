import { readFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import type { ContainerStats } from './docker/engine.ts';

/**
 * The supervisor's own resource statistics. The original's supervisor is a container and reads
 * them from the engine; Hearth's is a host process, so they come from the process itself:
 *  - cpu_percent: CPU time used since the previous sample over the wall time of all CPUs;
 *  - memory: resident set size against the host's memory;
 *  - blk_read / blk_write: bytes the process caused to be read from / written to storage
 *    (`/proc/self/io`; 0 where the kernel does not expose it);
 *  - network_rx / network_tx: 0 — the kernel counts traffic per interface, not per process, and
 *    reporting the host's interface counters as the supervisor's would be wrong.
 */
export class ProcessStats {
  private last: { cpu: NodeJS.CpuUsage; wall: bigint };

  constructor() {
    this.last = { cpu: process.cpuUsage(), wall: process.hrtime.bigint() };
  }

  async sample(): Promise<ContainerStats> {
    const cpu = process.cpuUsage();
    const wall = process.hrtime.bigint();
    const usedMicros = cpu.user - this.last.cpu.user + (cpu.system - this.last.cpu.system);
    const wallMicros = Number(wall - this.last.wall) / 1000;
    this.last = { cpu, wall };
    const cores = Math.max(1, cpus().length);
    const cpuPercent = wallMicros > 0 && usedMicros > 0 ? (usedMicros / (wallMicros * cores)) * 100 : 0;
    const memoryUsage = process.memoryUsage.rss();
    const memoryLimit = totalmem();
    const io = await readFile('/proc/self/io', 'utf8').catch(() => '');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, 'm').exec(io)?.[1] ?? 0);
    return {
      cpu_percent: round2(Math.min(cpuPercent, 100)),
      memory_usage: memoryUsage,
      memory_limit: memoryLimit,
      memory_percent: memoryLimit > 0 ? round2((memoryUsage / memoryLimit) * 100) : 0,
      network_rx: 0,
      network_tx: 0,
      blk_read: field('read_bytes'),
      blk_write: field('write_bytes'),
    };
  }
}

const round2 = (n: number) => Math.round(n * 100) / 100;
