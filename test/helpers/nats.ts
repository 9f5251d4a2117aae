// A real nats-server with JetStream for tests (Debian's package; .ci/run installs it).
import type { Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { freePort } from './ports.ts';
import { eventually } from './wait.ts';

export const NATS_SERVER = '/usr/sbin/nats-server';

/** A nats-server with JetStream on `port`, storing in `dir`. */
export async function startNats(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
  await eventually('nats-server to listen', async () => {
    try {
      const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false, timeout: 500 });
      await nc.close();
      return true;
    } catch {
      return false;
    }
  });
  return child;
}

export async function killNats(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((ok) => child.once('exit', ok));
  child.kill('SIGKILL');
  await exited;
}

export interface Message {
  subject: string;
  msgId: string;
  payload: any;
}

/** Every message of the stream, in stream order. */
export async function streamMessages(port: number, stream = 'hearth'): Promise<Message[]> {
  const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager();
    const { state } = await jsm.streams.info(stream);
    const out: Message[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq });
      out.push({ subject: m.subject, msgId: m.header.get('Nats-Msg-Id'), payload: JSON.parse(new TextDecoder().decode(m.data)) });
    }
    return out;
  } finally {
    await nc.close();
  }
}

/** A nats-server for one test, on a free port with its own store dir: `restart()` after `kill()` keeps the store. */
export async function natsFor(t: Test) {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-nats-'));
  const port = await freePort();
  let child = await startNats(port, dir);
  t.teardown(async () => {
    await killNats(child);
    await rm(dir, { recursive: true, force: true });
  });
  return {
    port,
    kill: () => killNats(child),
    restart: async () => {
      child = await startNats(port, dir);
    },
  };
}

