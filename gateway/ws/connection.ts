import type { WebSocket } from '@trufflesuite/uws-js-unofficial';
import type { Principal } from '../../actors/auth/types.ts';
import { CORE_VERSION } from '../../actors/version.ts';
import type { Backlogged, OutputBudget } from '../output-budget.ts';

/** What uWS keeps per socket. */
export interface SocketData {
  ip: string;
  conn?: Connection;
}

/** Limits of one connection. */
export interface WsLimits {
  authTimeoutMs: number;
  maxPending: number;
  maxBufferedBytes: number;
  maxSubscriptions: number;
}

/** The defaults (the original's figures). */
export const WS_LIMITS: WsLimits = {
  authTimeoutMs: 10_000,
  /** queued messages past which the queue is handed to uWS at once (its bytes bound the client) */
  maxPending: 4096,
  /** bytes uWS may hold for a slow client before it is dropped; also the most a client may have queued */
  maxBufferedBytes: 16 * 1024 * 1024,
  /** open subscriptions of one connection (a dashboard holds tens) */
  maxSubscriptions: 10_000,
};

/**
 * Flushes the queues of every connection that got messages this turn, from one setImmediate
 * (a timer per connection cost more than the sends themselves at hundreds of subscribers).
 */
export class FlushScheduler {
  private readonly dirty = new Set<Connection>();
  private scheduled = false;

  mark(conn: Connection): void {
    this.dirty.add(conn);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      const batch = [...this.dirty];
      this.dirty.clear();
      for (const c of batch) c.flush();
    });
  }
}

/** An error answer of a command. */
export class CommandError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The most characters joined into one coalesced frame; past it a new frame begins. */
const COALESCE_CHARS = 1024 * 1024;

/**
 * One WebSocket client: its auth state, id rules, subscriptions and outgoing queue (coalesced
 * into array frames once the client asked for it). A client that falls too far behind is
 * disconnected; the others never wait for it.
 */
export class Connection implements Backlogged {
  principal?: Principal;
  lastId = 0;
  coalesce = false;
  closed = false;
  readonly subscriptions = new Map<number, () => void>();
  private queue: string[] = [];
  /** characters queued, a lower bound of their bytes */
  private queuedChars = 0;
  /**
   * The largest message this client was sent. One message, however large (all states of a
   * large install), always goes through; what piles up behind it counts against the limits.
   */
  private largest = 0;
  private authTimer?: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket<SocketData>,
    readonly ip: string,
    private readonly log: (line: string) => void,
    private readonly limits: WsLimits = WS_LIMITS,
    private readonly scheduler: FlushScheduler = new FlushScheduler(),
    private readonly budget?: OutputBudget,
  ) {
    this.sendNow(`{"type":"auth_required","ha_version":"${CORE_VERSION}"}`);
    this.authTimer = setTimeout(() => this.close(), this.limits.authTimeoutMs);
  }

  authenticated(principal: Principal): void {
    clearTimeout(this.authTimer);
    this.principal = principal;
    this.sendNow(`{"type":"auth_ok","ha_version":"${CORE_VERSION}"}`);
  }

  /** Sends a message (serialised JSON) in order with everything queued before it. */
  send(json: string): void {
    if (this.closed) return;
    this.queue.push(json);
    this.queuedChars += json.length;
    if (json.length > this.largest) this.largest = json.length;
    if (this.queuedChars > this.limits.maxBufferedBytes + this.largest) {
      this.log(`Client ${this.ip} unable to keep up with pending messages (${this.queue.length} messages, ${this.queuedChars} characters queued); disconnecting`);
      return this.drop();
    }
    // a large backlog goes out now rather than at the end of the turn: held until then, it
    // would outlive the young generation and grow the heap. Many messages in one turn (a commit
    // of thousands of changes) go out too: whether the client keeps up is the socket's to say
    // (what uWS holds for it, bounded in sendNow), not how much one turn made
    if (this.queuedChars >= COALESCE_CHARS || this.queue.length > this.limits.maxPending) this.flush();
    else if (this.queue.length === 1) this.scheduler.mark(this);
  }

  result(id: number, resultJson: string): void {
    this.send(`{"id":${id},"type":"result","success":true,"result":${resultJson}}`);
  }

  error(id: number, code: string, message: string, extra?: Record<string, unknown>): void {
    const error = { code, message, ...extra };
    this.send(`{"id":${id},"type":"result","success":false,"error":${JSON.stringify(error)}}`);
  }

  /** An event of subscription `id`; `payloadJson` is shared by every subscriber. */
  event(id: number, payloadJson: string): void {
    this.send(`{"id":${id},"type":"event","event":${payloadJson}}`);
  }

  /** Keeps a subscription until the client ends it or leaves; refuses one past the limit. */
  subscribe(id: number, unsubscribe: () => void): void {
    if (this.subscriptions.size >= this.limits.maxSubscriptions) {
      unsubscribe();
      throw new CommandError('home_assistant_error', `Too many subscriptions on one connection (${this.limits.maxSubscriptions}).`);
    }
    this.subscriptions.set(id, unsubscribe);
  }

  /**
   * Sends what is queued: array frames of up to COALESCE_CHARS when the client coalesces, else
   * one frame each.
   */
  flush(): void {
    if (this.closed || this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.queuedChars = 0;
    this.ws.cork(() => {
      if (!this.coalesce) return batch.forEach((m) => this.sendNow(m));
      let from = 0;
      let chars = 0;
      for (let i = 0; i < batch.length; i++) {
        chars += batch[i].length;
        if (chars < COALESCE_CHARS && i < batch.length - 1) continue;
        this.sendNow(i === from ? batch[i] : `[${batch.slice(from, i + 1).join(',')}]`);
        from = i + 1;
        chars = 0;
      }
    });
  }

  private sendNow(json: string): void {
    if (this.closed) return;
    this.ws.send(json, false);
    const buffered = this.ws.getBufferedAmount();
    if (buffered > this.limits.maxBufferedBytes + this.largest) {
      this.log(`Client ${this.ip} unable to keep up with pending messages (${buffered} bytes buffered); disconnecting`);
      return this.drop();
    }
    this.budget?.set(this, this.behind(buffered));
  }

  /** uWS sent some of what it held: the backlog is smaller now. */
  drained(): void {
    if (!this.closed) this.budget?.set(this, this.behind(this.ws.getBufferedAmount()));
  }

  /** What counts against the shared budget: the backlog past one largest message. */
  private behind(buffered: number): number {
    return Math.max(0, buffered - this.largest);
  }

  get who(): string {
    return `the WebSocket client ${this.ip}`;
  }

  /** Ends the connection at once: ending it gracefully would keep its backlog until it reads. */
  drop(): void {
    if (this.closed) return;
    this.dispose();
    try {
      this.ws.close();
    } catch {
      // already closed by the peer
    }
  }

  /** Sends the auth failure then closes. */
  authInvalid(message: string): void {
    this.sendNow(JSON.stringify({ type: 'auth_invalid', message }));
    this.close();
  }

  /** Ends the connection; what was answered before goes out first (it may be what the client waits for). */
  close(): void {
    if (this.closed) return;
    this.flush();
    // the flush may have found the client too far behind and dropped it
    if (this.closed) return;
    this.dispose();
    try {
      this.ws.end(1000);
    } catch {
      // already closed by the peer
    }
  }

  /** Releases subscriptions and timers (the socket is gone or going). */
  dispose(): void {
    this.closed = true;
    this.budget?.set(this, 0);
    clearTimeout(this.authTimer);
    for (const unsubscribe of this.subscriptions.values()) unsubscribe();
    this.subscriptions.clear();
    this.queue = [];
  }
}
