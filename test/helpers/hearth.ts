// Starts real Hearth instances for tests: a temporary data directory, port 0, real sockets.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHearth, type Hearth, type HearthOptions } from '../../bin/instance.ts';

export interface TestHearth {
  hearth: Hearth;
  base: string;
  dataDir: string;
  lines: string[];
}

/** A fresh data directory, optionally with a configuration.yaml. */
export async function dataDirWith(configYaml?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-test-'));
  if (configYaml !== undefined) await writeFile(join(dir, 'configuration.yaml'), configYaml);
  return dir;
}

/** Starts an instance on 127.0.0.1 and a free port; stopped when the test ends. */
export async function startTestHearth(
  t: { teardown(fn: () => unknown): void },
  options: { config?: string; dataDir?: string } & Partial<HearthOptions> = {},
): Promise<TestHearth> {
  const dataDir = options.dataDir ?? (await dataDirWith(options.config));
  const lines: string[] = [];
  const hearth = await startHearth({ port: 0, host: '127.0.0.1', log: (l) => lines.push(l), ...options, dataDir });
  t.teardown(() => hearth.stop());
  return { hearth, base: `http://127.0.0.1:${hearth.port}`, dataDir, lines };
}

export const CLIENT_ID = 'http://127.0.0.1/';

/** Onboards the owner through the public API and exchanges the code for tokens. */
export async function onboard(base: string, user = { name: 'Owner', username: 'owner', password: 'correct horse battery' }) {
  const res = await fetch(`${base}/api/onboarding/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: CLIENT_ID, language: 'en', ...user }),
  });
  if (res.status !== 200) throw new Error(`onboarding failed: ${res.status} ${await res.text()}`);
  const { auth_code } = (await res.json()) as { auth_code: string };
  return exchangeCode(base, auth_code);
}

/** The authorization-code grant. */
export async function exchangeCode(base: string, code: string) {
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, client_id: CLIENT_ID }).toString(),
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string; refresh_token: string; expires_in: number; token_type: string };
}

/** A fetch with the bearer token and JSON body. */
export function api(base: string, token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  };
}
