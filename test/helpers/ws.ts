// A raw WebSocket client for protocol tests: every frame the server sends, in order.
import WebSocket from 'ws';

export interface RawClient {
  ws: WebSocket;
  /** the next message (frames holding arrays are split into their messages) */
  next(timeoutMs?: number): Promise<any>;
  /** the next message matching a predicate, skipping others */
  until(pred: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  send(msg: unknown): void;
  closed: Promise<number>;
  /** raw frames as received */
  frames: string[];
}

export async function rawClient(base: string, path = '/api/websocket'): Promise<RawClient> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}${path}`);
  const queue: any[] = [];
  const waiters: Array<(m: any) => void> = [];
  const frames: string[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    frames.push(text);
    const parsed = JSON.parse(text);
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      const w = waiters.shift();
      if (w) w(m);
      else queue.push(m);
    }
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const next = (timeoutMs = 3000) =>
    new Promise<any>((resolve, reject) => {
      if (queue.length) return resolve(queue.shift());
      const waiter = (m: any) => {
        clearTimeout(timer);
        resolve(m);
      };
      // a waiter that timed out leaves the queue, so it cannot swallow a later message
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error('no message within timeout'));
      }, timeoutMs);
      waiters.push(waiter);
    });
  return {
    ws,
    frames,
    next,
    async until(pred, timeoutMs = 3000) {
      for (;;) {
        const m = await next(timeoutMs);
        if (pred(m)) return m;
      }
    },
    send: (msg) => ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg)),
    closed,
  };
}

/** A client past the handshake. */
export async function authedClient(base: string, token: string): Promise<RawClient> {
  const c = await rawClient(base);
  const required = await c.next();
  if (required.type !== 'auth_required') throw new Error(`expected auth_required, got ${JSON.stringify(required)}`);
  c.send({ type: 'auth', access_token: token });
  const ok = await c.next();
  if (ok.type !== 'auth_ok') throw new Error(`expected auth_ok, got ${JSON.stringify(ok)}`);
  return c;
}
