// Starts real read replicas for tests: a temporary data directory, port 0, a real nats-server.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplica, type Replica, type ReplicaOptions } from '../../bin/replica-instance.ts';

export interface TestReplica {
  replica: Replica;
  base: string;
  dataDir: string;
  lines: string[];
}

/** A replica of stream `hearth` on the nats-server at `natsPort`; stopped when the test ends. */
export async function startTestReplica(t: { teardown(fn: () => unknown): void }, natsPort: number, options: Partial<ReplicaOptions> = {}): Promise<TestReplica> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'hearth-replica-')));
  const lines: string[] = [];
  const replica = await startReplica({ nats: { servers: [`nats://127.0.0.1:${natsPort}`], stream: 'hearth' }, port: 0, host: '127.0.0.1', log: (l) => lines.push(l), logFile: false, ...options, dataDir });
  t.teardown(() => replica.stop());
  return { replica, base: `http://127.0.0.1:${replica.port}`, dataDir, lines };
}
