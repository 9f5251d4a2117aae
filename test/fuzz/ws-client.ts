// The fuzz's WebSocket client: every message kept (arrays split), bad frames noticed.
import WebSocket from 'ws';

/** A WebSocket client that keeps every message (arrays split) and notices bad frames. */
export class WsClient {
  readonly inbox: any[] = [];
  /** frames that were not JSON */
  readonly badFrames: string[] = [];
  closeCode?: number;
  readonly closed: Promise<number>;
  private waiters: Array<() => void> = [];
  private readonly listeners: Array<(m: any) => void> = [];
  private id = 0;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const text = data.toString();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        this.badFrames.push(`${isBinary ? 'binary ' : ''}${text.slice(0, 200)}`);
        return;
      }
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
        for (const l of this.listeners) l(m);
        // events are kept only for a while: a long subscription must not fill the test's memory
        if (m?.type === 'event' && this.inbox.length > 2000) continue;
        this.inbox.push(m);
      }
      this.wake();
    });
    ws.on('error', () => {});
    this.closed = new Promise((resolve) =>
      ws.on('close', (code) => {
        this.closeCode = code;
        this.wake();
        resolve(code);
      }),
    );
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  static async open(port: number, timeoutMs = 5000): Promise<WsClient> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket`, { maxPayload: 256 << 20 });
    const c = new WsClient(ws);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('WebSocket did not open within 5 s')), timeoutMs);
      ws.once('open', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    return c;
  }

  /** Opens and authenticates. */
  static async authed(port: number, token: string): Promise<WsClient> {
    const c = await WsClient.open(port);
    const first = await c.take((m) => m.type === 'auth_required', 5000);
    if (!first) throw new Error('no auth_required');
    c.sendJson({ type: 'auth', access_token: token });
    const ok = await c.take((m) => m.type === 'auth_ok' || m.type === 'auth_invalid', 5000);
    if (ok?.type !== 'auth_ok') throw new Error(`authentication failed: ${JSON.stringify(ok)}`);
    return c;
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  onMessage(l: (m: any) => void): void {
    this.listeners.push(l);
  }

  nextId(): number {
    return ++this.id;
  }

  /** ids after this one are free again (after a message took a big id) */
  skipIdsTo(n: number): void {
    if (n > this.id) this.id = n;
  }

  send(data: string | Buffer, binary = false): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(data, { binary });
  }

  sendJson(msg: unknown): void {
    this.send(JSON.stringify(msg));
  }

  /** Removes and returns the first message matching, waiting up to timeoutMs; undefined on timeout or close. */
  async take(pred: (m: any) => boolean, timeoutMs: number): Promise<any | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.inbox.findIndex(pred);
      if (i >= 0) return this.inbox.splice(i, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0 || this.closeCode !== undefined) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends a ping and waits for its pong (or any answer to its id). */
  async ping(timeoutMs: number): Promise<any | undefined> {
    const id = this.nextId();
    this.sendJson({ id, type: 'ping' });
    return this.take((m) => m?.id === id && (m.type === 'pong' || m.type === 'result'), timeoutMs);
  }

  close(): void {
    try {
      this.ws.terminate();
    } catch {
      // already gone
    }
  }
}
