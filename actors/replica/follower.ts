// A read replica's copy of the primary's log, taken from the NATS JetStream stream the primary's
// exporter fills (actors/export/nats-exporter.ts).
//
// Each message is one committed record of the primary, as JSON, with its seq. The follower appends
// them to the replica's own log with log.mirror(), keeping the primary's seqs, so the replica's
// areas, history and subscribers see exactly what the primary committed, in the same order.
//
// Position: the stream sequence of the last message applied, saved (after the records it covers
// are written) as the snapshot entry `replica_position`. A restart asks the stream for the message
// after it; a record at or below the last seq already applied (a position saved late, a stream
// re-filled from scratch) is skipped, never applied twice.
//
// A replica whose log is empty, or one that fell so far behind that the stream no longer holds the
// messages it needs, starts from the latest snapshot in the stream's object store
// (actors/replica/snapshots.ts) instead of the whole stream.

import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator, DeliverPolicy, type JetStreamClient, type JetStreamManager, type JsMsg, type NatsConnection } from 'nats';
import type { EventLog, EventRecord } from '../../store/types.ts';
import { readSnapshot, type ReplicaSnapshot } from './snapshots.ts';
import { Pause } from '../nats/pause.ts';

export const POSITION = 'replica_position';
const RETRY_MS = 1000;
const BATCH = 1000;
/** messages left in the stream past which the replica reads them a batch at a time */
const CATCH_UP = 2 * BATCH;
/** messages left past which a live replica goes back to reading a batch at a time */
const FELL_BEHIND = 20 * BATCH;
const SAVE_EVERY_MS = 250;

export interface FollowConfig {
  servers: string[];
  stream: string;
  /** a NATS credentials file */
  credentials?: string;
}

/** What `replica_position` holds. */
interface Position {
  stream: string;
  stream_seq: number;
}

export interface FollowerStatus {
  stream: string;
  servers: string[];
  connected: boolean;
  /** the last record of the primary applied here */
  seq: number;
  /** the stream message it came in */
  stream_seq: number;
  /** messages in the stream after it, as the last message delivered said */
  pending: number;
  /** the snapshot this replica started from, if it did */
  seeded_from: number | null;
}

export interface FollowerOptions {
  log: EventLog;
  config: FollowConfig;
  /** loads a snapshot into the replica's areas and saves their snapshots at its seq */
  seed: (snapshot: ReplicaSnapshot) => Promise<void>;
  warn: (line: string) => void;
  info: (line: string) => void;
}

export class Follower {
  readonly #options: FollowerOptions;
  #streamSeq = 0;
  /** the last record written here (or seeded: a snapshot has no records, so it can be above the log's last seq) */
  #applied = 0;
  #pending = 0;
  #seededFrom: number | null = null;
  #connected = false;
  #stopped = false;
  #downWarned = false;
  #nc: NatsConnection | undefined;
  readonly #pause = new Pause();
  #loop: Promise<void> | undefined;
  #savedAt = 0;
  #savedSeq = 0;
  #positioned: (() => void) | undefined;
  /** resolves once the first connection has placed the replica (seeded or not), or failed */
  readonly ready: Promise<void>;
  readonly #listeners = new Set<() => void>();

  constructor(options: FollowerOptions) {
    this.#options = options;
    this.ready = new Promise((ok) => (this.#positioned = ok));
  }

  /** Reads the saved position; then follows the stream in the background. */
  async start(): Promise<void> {
    const saved = await this.#options.log.loadSnapshot<Position>(POSITION);
    this.#applied = Math.max(this.#options.log.lastSeq(), saved?.seq ?? 0);
    if (saved && saved.data.stream === this.#options.config.stream) this.#streamSeq = saved.data.stream_seq;
    else if (saved) this.#options.warn(`replica: the data directory followed stream ${saved.data.stream}, now ${this.#options.config.stream}: reading it from its start (records up to seq ${this.#applied} are skipped)`);
    this.#savedSeq = this.#streamSeq;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#pause.cut();
    await this.#nc?.close().catch(() => {});
    await this.#loop;
    await this.#savePosition(true).catch(() => {});
  }

  /** The last record of the primary applied here. */
  get applied(): number {
    return this.#applied;
  }

  status(): FollowerStatus {
    return {
      stream: this.#options.config.stream,
      servers: this.#options.config.servers,
      connected: this.#connected,
      seq: this.#applied,
      stream_seq: this.#streamSeq,
      pending: this.#pending,
      seeded_from: this.#seededFrom,
    };
  }

  /** Called after each batch applied (tests, benchmarks and status follow it). */
  onApplied(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#session();
      } catch (err) {
        if (!this.#stopped) this.#down(err);
      } finally {
        this.#connected = false;
        this.#positioned?.();
        const nc = this.#nc;
        this.#nc = undefined;
        await nc?.close().catch(() => {});
      }
      if (!this.#stopped) await this.#pause.wait(RETRY_MS);
    }
  }

  #down(err: unknown): void {
    if (this.#downWarned) return;
    this.#downWarned = true;
    this.#options.warn(`replica: NATS ${this.#options.config.servers.join(', ')} unreachable or refusing (${(err as Error).message}); serving what it has, following again when it answers`);
  }

  async #session(): Promise<void> {
    const { config } = this.#options;
    const authenticator = config.credentials === undefined ? undefined : credsAuthenticator(await readFile(config.credentials));
    const nc = await connect({ servers: config.servers, reconnect: false, timeout: 2000, authenticator, name: 'hearth-replica' });
    this.#nc = nc;
    if (this.#stopped) return;
    const jsm = await nc.jetstreamManager({ timeout: 5000 });
    const info = await jsm.streams.info(config.stream).catch((err: Error) => {
      if (/stream not found/i.test(err.message)) throw new Error(`no stream ${config.stream} yet (the primary's exporter makes it)`);
      throw err;
    });
    const js = nc.jetstream({ timeout: 10_000 });
    const { first_seq: first, last_seq: last, messages } = info.state;
    if (this.#streamSeq > last) {
      this.#options.warn(`replica: stream ${config.stream} ends at message ${last}, before this replica's position ${this.#streamSeq} (made anew?): reading it from its start, records up to seq ${this.#applied} are skipped`);
      this.#streamSeq = 0;
    }
    const lost = messages > 0 && first > this.#streamSeq + 1;
    if (this.#applied === 0 || lost) await this.#seed(js, jsm, lost ? first : 0);
    if (this.#downWarned) {
      this.#downWarned = false;
      this.#options.info(`replica: NATS ${config.servers.join(', ')} answers again; following stream ${config.stream} after message ${this.#streamSeq}`);
    }
    this.#connected = true;
    this.#positioned?.();
    this.#positioned = undefined;

    let batch: EventRecord[] = [];
    let batchEnd = this.#streamSeq;
    let flushing: Promise<void> = Promise.resolve();
    let failed: unknown;
    let scheduled = false;
    let stopConsuming: (() => void) | undefined;
    const flush = () => {
      scheduled = false;
      const records = batch;
      const end = batchEnd;
      batch = [];
      flushing = flushing.then(async () => {
        if (failed !== undefined) return;
        try {
          if (records.length > 0) await this.#options.log.mirror(records);
          if (records.length > 0) this.#applied = Math.max(this.#applied, records[records.length - 1].seq);
          this.#streamSeq = end;
          await this.#savePosition(false);
          for (const listener of this.#listeners) listener();
        } catch (err) {
          failed = err;
          stopConsuming?.();
        }
      });
    };
    let lastQueued = this.#applied;
    let badWarned = false;
    const take = (m: JsMsg) => {
      this.#pending = m.info.pending;
      batchEnd = m.seq;
      const record = recordOf(m.string());
      if (typeof record === 'string') {
        if (!badWarned) this.#options.warn(`replica: message ${m.seq} of stream ${config.stream} (${m.subject}) is not a Hearth record (${record}): skipped`);
        badWarned = true;
      } else if (record.seq > lastQueued) {
        batch.push(record);
        lastQueued = record.seq;
      }
    };
    const from = () => ({ deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: batchEnd + 1 });
    let behind = last - this.#streamSeq;
    try {
      while (!this.#stopped) {
        if (behind >= CATCH_UP) {
          // far behind: a batch at a time, asked for once the one before is parsed, so a replica
          // catching up on millions of messages holds two batches, not whatever the server sends
          // faster than it writes (consume() asks for more as messages arrive, not as they are used)
          this.#options.info(`replica: ${behind} messages behind stream ${config.stream}; reading them a batch at a time`);
          const consumer = await js.consumers.get(config.stream, from());
          while (!this.#stopped && behind >= CATCH_UP && failed === undefined) {
            const messagesIn = await consumer.fetch({ max_messages: BATCH, expires: 10_000 });
            let got = 0;
            for await (const m of messagesIn) {
              take(m);
              got++;
              behind = m.info.pending;
            }
            // fewer messages than the stream's seqs said (some deleted): the tail is followed as it comes
            if (got === 0) behind = 0;
            // this batch is written while the next one is read and parsed
            const before = flushing;
            flush();
            await before;
          }
          await flushing;
          if (failed !== undefined) throw failed;
          if (!this.#stopped) this.#options.info(`replica: caught up with stream ${config.stream} at message ${batchEnd}; following it as it grows`);
          continue;
        }
        const consumer = await js.consumers.get(config.stream, from());
        const messagesIn = await consumer.consume({ max_messages: BATCH });
        stopConsuming = () => messagesIn.close();
        nc.closed().then(() => messagesIn.close()).catch(() => {});
        for await (const m of messagesIn) {
          if (this.#stopped) break;
          take(m);
          if (m.info.pending >= FELL_BEHIND) {
            // what consume() holds past this message is dropped and asked for again, a batch at a time
            behind = m.info.pending;
            break;
          }
          if (batch.length >= BATCH) {
            flush();
            await flushing;
          } else if (!scheduled) {
            scheduled = true;
            setImmediate(flush);
          }
        }
        stopConsuming = undefined;
        if (scheduled || batch.length > 0) flush();
        await flushing;
        if (failed !== undefined) throw failed;
        if (!this.#stopped && behind < FELL_BEHIND) throw new Error('the stream consumer ended');
      }
    } finally {
      // a session ended by an error (NATS gone, stop()) still finishes the writes it started
      await flushing;
    }
  }

  /** Starts from the stream's latest snapshot; `first` > 0: the stream lost what comes before it. */
  async #seed(js: JetStreamClient, jsm: JetStreamManager, first: number): Promise<void> {
    const { config } = this.#options;
    const snapshot = await readSnapshot(js, jsm, config.stream);
    if (!snapshot || snapshot.seq <= this.#applied) {
      if (first > 0) {
        throw new Error(`stream ${config.stream} starts at message ${first}, after this replica's position ${this.#streamSeq}, and holds no newer snapshot: the replica cannot catch up (a fresh data directory starts from the stream's start)`);
      }
      return;
    }
    if (first > 0) this.#options.warn(`replica: stream ${config.stream} no longer holds messages ${this.#streamSeq + 1}..${first - 1}: starting again from its snapshot at seq ${snapshot.seq} (history in between is missing here)`);
    const started = performance.now();
    await this.#options.seed(snapshot);
    this.#applied = snapshot.seq;
    this.#streamSeq = snapshot.stream_seq;
    this.#seededFrom = snapshot.seq;
    await this.#savePosition(true);
    this.#options.info(`replica: started from the snapshot at seq ${snapshot.seq} (stream message ${snapshot.stream_seq}) in ${Math.round(performance.now() - started)} ms`);
  }

  async #savePosition(now: boolean): Promise<void> {
    if (this.#streamSeq === this.#savedSeq) return;
    if (!now && Date.now() - this.#savedAt < SAVE_EVERY_MS) return;
    this.#savedAt = Date.now();
    this.#savedSeq = this.#streamSeq;
    await this.#options.log.saveSnapshot(POSITION, { seq: this.#applied, version: 1, time: Date.now(), data: { stream: this.#options.config.stream, stream_seq: this.#streamSeq } satisfies Position });
  }
}

/** The record a message carries, or why it is none. */
export function recordOf(text: string): EventRecord | string {
  let value: any;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (value === null || typeof value !== 'object') return 'not an object';
  if (!Number.isSafeInteger(value.seq) || value.seq < 1) return 'no seq';
  if (typeof value.stream !== 'string' || value.stream === '' || typeof value.type !== 'string' || value.type === '') return 'no stream or type';
  if (typeof value.time !== 'number' || value.context === null || typeof value.context !== 'object' || typeof value.context.id !== 'string') return 'no time or context';
  const record: EventRecord = { seq: value.seq, time: value.time, stream: value.stream, type: value.type, data: value.data ?? null, context: { id: value.context.id, parent_id: value.context.parent_id ?? null, user_id: value.context.user_id ?? null } };
  if (value.origin === 'LOCAL' || value.origin === 'REMOTE') record.origin = value.origin;
  return record;
}
