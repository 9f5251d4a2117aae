// Hearth as a child process for the fuzz, so a crash or a blocked event loop in it cannot take
// the test runner along; and the owner's tokens of a fresh login.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CLIENT_ID } from '../helpers/hearth.ts';

/** A Hearth child process: where it listens, what it printed, when it exits. */
export interface HearthProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

const BIN = fileURLToPath(new URL('../../bin/hearth.js', import.meta.url));

/** `hearth serve` as a child process (like test/helpers/process.ts, without a timer outliving the start). */
export async function spawnHearth(dataDir: string, nodeArgs: string[] = []): Promise<HearthProcess> {
  const child = spawn(process.execPath, [...nodeArgs, BIN, '--port', '0', '--host', '127.0.0.1', '--data', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hearth did not report listening within 30 s:\n${out}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`hearth exited with ${code} before listening:\n${out}`));
    });
  });
  return { child, base, output: () => out, exited };
}

/** Tokens of a fresh login flow (the owner logging in again). */
export async function loginTokens(base: string): Promise<{ access_token: string; refresh_token: string }> {
  const flowId = await startFlow(base);
  const step = await fetch(`${base}/auth/login_flow/${flowId}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: CLIENT_ID, username: 'owner', password: 'correct horse battery' }),
  }).then((r) => r.json() as any);
  if (step.type !== 'create_entry') throw new Error(`login failed: ${JSON.stringify(step)}`);
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: step.result, client_id: CLIENT_ID }).toString(),
  });
  return (await res.json()) as any;
}

/** A login flow started for the owner; its flow id. */
export async function startFlow(base: string): Promise<string> {
  const res = await fetch(`${base}/auth/login_flow`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: CLIENT_ID, handler: ['core', null], redirect_uri: CLIENT_ID }),
  });
  const body = (await res.json()) as any;
  if (!body.flow_id) throw new Error(`login flow did not start: ${JSON.stringify(body)}`);
  return body.flow_id;
}
