// A real Mosquitto broker for MQTT tests (Debian's /usr/sbin/mosquitto): a free port on
// 127.0.0.1, a temporary config (anonymous, or a password file made with mosquitto_passwd),
// retained messages persisted after each change so a broker killed and started again still has
// them. Killed when the test ends.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';

export interface TestBroker {
  port: number;
  url: string;
  /** kill -9: the broker goes away as a crash or a pulled cable would take it */
  kill(): Promise<void>;
  /** starts it again on the same port with the same config and persisted messages */
  start(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = netConnect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), ok(true)));
    socket.once('error', () => ok(false));
  });
}

/** Starts Mosquitto; `users` (name → password) turns anonymous access off. */
export async function startMosquitto(t: { teardown(fn: () => unknown): void }, options: { users?: Record<string, string> } = {}): Promise<TestBroker> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-mosquitto-'));
  const port = await freePort();
  // run as ourselves: as root Mosquitto would switch to its own user, who cannot read this directory
  const lines = [`user ${userInfo().username}`, `listener ${port} 127.0.0.1`, 'persistence true', `persistence_location ${dir}/`, 'autosave_interval 1', 'autosave_on_changes true', 'log_dest stdout'];
  if (options.users) {
    const passwords = join(dir, 'passwords');
    await writeFile(passwords, '');
    for (const [user, password] of Object.entries(options.users)) execFileSync('/usr/bin/mosquitto_passwd', ['-b', passwords, user, password]);
    lines.push('allow_anonymous false', `password_file ${passwords}`);
  } else lines.push('allow_anonymous true');
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(conf, `${lines.join('\n')}\n`);
  let child: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    const proc = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout!.on('data', (c) => (output += c.toString()));
    proc.stderr!.on('data', (c) => (output += c.toString()));
    for (let i = 0; i < 100; i++) {
      if (proc.exitCode !== null) throw new Error(`mosquitto exited with ${proc.exitCode}:\n${output}`);
      if (await listening(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`mosquitto did not listen on ${port}:\n${output}`);
  };
  const kill = async () => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGKILL');
    await exited;
  };
  await start();
  t.teardown(kill);
  return { port, url: `mqtt://127.0.0.1:${port}`, kill, start };
}
