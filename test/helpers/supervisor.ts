// Starts real supervisors for tests: a temporary data directory, port 0, real sockets.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSupervisor, type Supervisor, type SupervisorOptions } from '../../bin/supervisor-instance.ts';
import { enableV2 } from './fixture-apps.ts';

export interface TestSupervisor {
  supervisor: Supervisor;
  base: string;
  dataDir: string;
  lines: string[];
  /** a request with the given token (the operator's by default) as `Authorization: Bearer` */
  call(method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** the same, answering the parsed JSON body and the status */
  json(method: string, path: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any }>;
}

export async function supervisorDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hearth-supervisor-test-'));
}

/** Starts a supervisor on 127.0.0.1 and a free port; stopped when the test ends. */
export async function startTestSupervisor(
  t: { teardown(fn: () => unknown): void },
  options: Partial<SupervisorOptions> = {},
): Promise<TestSupervisor> {
  const dataDir = options.dataDir ?? (await supervisorDataDir());
  const lines: string[] = [];
  const supervisor = await startSupervisor({ port: 0, host: '127.0.0.1', log: (l) => lines.push(l), bootCore: false, backupsCheck: false, ...options, dataDir });
  t.teardown(() => supervisor.stop());
  const base = `http://127.0.0.1:${supervisor.port}`;
  const call: TestSupervisor['call'] = (method, path, options = {}) => {
    const token = options.token === undefined ? supervisor.adminToken : options.token;
    const headers: Record<string, string> = { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['Content-Type'] ??= 'application/json';
    }
    return fetch(base + path, { method, headers, body });
  };
  return {
    supervisor,
    base,
    dataDir,
    lines,
    call,
    json: async (method, path, options) => {
      const res = await call(method, path, options);
      const textBody = await res.text();
      let body: unknown = textBody;
      try {
        body = JSON.parse(textBody);
      } catch {}
      return { status: res.status, body };
    },
  };
}

/** A supervisor serving both trees: the v2 flag is read at start, so it is set, then started again. */
export async function startTestSupervisorWithV2(t: { teardown(fn: () => unknown): void }, options: Partial<SupervisorOptions> = {}): Promise<TestSupervisor> {
  const dataDir = options.dataDir ?? (await supervisorDataDir());
  const first = await startTestSupervisor(t, { ...options, dataDir });
  await enableV2(first.supervisor);
  await first.supervisor.stop();
  return startTestSupervisor(t, { ...options, dataDir });
}
