// Runs `hearth` as a real child process, the way a user starts it.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/hearth.js', import.meta.url));

export interface HearthProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node bin/hearth.js serve` and resolves once it prints where it listens. */
export async function spawnHearth(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<HearthProcess> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c) => (out += c.toString()));
    exited.then((code) => reject(new Error(`hearth exited with ${code} before listening:\n${out}`)));
    setTimeout(() => reject(new Error(`hearth did not report listening within 20 s:\n${out}`)), 20_000);
  });
  return { child, base, output: () => out, exited };
}

/**
 * Runs `node bin/hearth.js <args>` to its end: the exit code and everything it printed. One
 * still running after `timeoutMs` is killed, and its code is null.
 */
export function runToExit(args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
