// Mirrors every committed record of the log, in commit order, to a NATS JetStream stream.
//
// Position: the stream itself is the truth. At each (re)connect the exporter reads the stream's
// last message, whose `Nats-Msg-Id` is the seq of the last record JetStream acknowledged, and
// reads the log after it (`log.read({gt})`). No record of the exporter's own is written to the
// log for this: a position record would itself be a record to export. Every publish carries the
// record's seq as its msgID, so a record sent twice across a reconnect is dropped by JetStream's
// duplicate window, and the resume-from-last-message rule keeps the rest exact.
//
// The write path only hands each committed batch over (onCommit): the exporter keeps the
// batches not yet acked (committed-tail.ts, 50,000 records at most) and publishes them from
// memory, so a primary that keeps up never reads its own log back. What is older than that tail
// (after an outage of NATS, or a restart) is read from the log. Publishing runs beside the write
// path in bursts: the records on hand go out as one piece of protocol text (burst-writer.ts),
// and the next burst waits for the last one's ack (#publish). Any failure (NATS gone, a refused
// publish, no ack within ACK_TIMEOUT_MS) closes the connection and starts again from the
// stream's last message (stream-position.ts).
//
// Every second at most: the lag (log's last seq - the seq exported, auth records skipped count as
// exported) goes to `sensor.hearth_export_lag` when it changed, and to `<data>/export-nats.json`
// for `hearth export status` (export-status.ts).

import { readFile } from 'node:fs/promises';
import { connect, createInbox, credsAuthenticator, type JetStreamClient, type NatsConnection } from 'nats';
import { BurstWriter, type Publish } from './burst-writer.ts';
import type { EventLog, EventRecord } from '../../store/types.ts';
import { CommittedTail } from './committed-tail.ts';
import { ExportReporter, type ExportStatus } from './export-status.ts';
import { failureKind } from './failure-kind.ts';
import { ExportPayloads } from './payload.ts';
import type { NatsExportConfig } from './config.ts';
import { streamPosition } from './stream-position.ts';
import { SubjectCache, isExported } from './subjects.ts';
import { Pause } from '../nats/pause.ts';
import { publishSnapshot, snapshotSeq, type AreaPart } from '../replica/snapshots.ts';

// bin/instance.ts builds the exporter with these, imported from here
export { lagWriter, STATUS_FILE } from './export-status.ts';
/** records published in one burst at most */
const BURST = 1024;
/** bursts awaiting their ack at most: the next one gathers what is committed meanwhile */
const BURSTS_IN_FLIGHT = 1;
/**
 * Under load (the last burst held BUSY_BURST records or more), a burst follows the previous one
 * after BURST_GAP_MS at the soonest. nats-server's CPU per message falls by about a third from
 * bursts of ~20 to bursts of ~130 (docs/performance.md); a write rate too low to fill a busy
 * burst (under ~1,600 a second) is never held back.
 */
const BURST_GAP_MS = 10;
const BUSY_BURST = 16;
const ACK_TIMEOUT_MS = 10_000;
const READ_CHUNK = 512;
const STOP_ACKS_MS = 2000;
const RETRY_MS = 1000;
const TICK_MS = 1000;
const SNAPSHOT_RETRY_MS = 30_000;

/** Records sent together: the ack of its last message (`id`, 0 when all were auth/, never sent) covers them all. */
interface Burst {
  id: number;
  /** the last record's seq */
  seq: number;
  /** the stream's last seq once the burst is stored */
  streamSeq: number;
  done: boolean;
  /** messages published in it, and the last one's subject */
  messages: number;
  subject: string;
}

/** What the exporter reads from and reports to. */
export interface NatsExporterOptions {
  log: EventLog;
  config: NatsExportConfig;
  /** writes the lag entity */
  writeLag: (lag: number, acked: number) => Promise<unknown>;
  /** where export-nats.json goes (the data directory) */
  statusPath: string;
  warn: (line: string) => void;
  info: (line: string) => void;
  now?: () => number;
  /** the replicas' areas as they are now, at the log's last seq (read synchronously) */
  snapshot?: () => { seq: number; parts: AreaPart[] };
  /** false: every message through nats.js's publish() rather than a burst's protocol text (tests) */
  rawPublish?: boolean;
}

/** Mirrors the log's committed records to a JetStream stream, in seq order, from wherever the stream stands. */
export class NatsExporter {
  readonly #options: NatsExporterOptions;
  readonly #payloads = new ExportPayloads();
  readonly #reporter: ExportReporter;
  #acked = 0;
  #known = false;
  #connected = false;
  #stopped = false;
  #nc: NatsConnection | undefined;
  #wake: (() => void) | undefined;
  /** between two connection attempts (a commit does not end it: that would hammer a dead server) */
  readonly #pause = new Pause();
  #unlisten: (() => void) | undefined;
  /** committed batches not acked yet (made at start) */
  #tail = new CommittedTail(0);
  #commitTimer: ReturnType<typeof setTimeout> | undefined;
  /** published and not yet acked */
  #inflight = 0;
  #tick: ReturnType<typeof setInterval> | undefined;
  #loop: Promise<void> | undefined;
  /**
   * What this outage or refusal has been warned of: `unreachable` for every way of not reaching
   * the server (refused, timed out, dropped: under load they alternate), else the reason itself
   */
  readonly #downWarned = new Set<string>();
  /** after a refused burst: one record at a time until one is taken, so the refusal names its record */
  #probe = false;
  #ticking: Promise<void> = Promise.resolve();
  /** the JetStream seq of the last message acknowledged */
  #ackedStreamSeq = 0;
  /** the seq of the replicas' latest snapshot in the object store (-1: not read yet) */
  #snapshotSeq = -1;
  #snapshotting: Promise<void> | undefined;
  #snapshotRetryAt = 0;

  constructor(options: NatsExporterOptions) {
    this.#options = options;
    const { statusPath, writeLag, warn, info, config } = options;
    this.#reporter = new ExportReporter({ statusPath, writeLag, warn, info, lagWarning: config.lag_warning });
  }

  /** The seq up to which every record is exported (0 until the stream has been read). */
  get acked(): number {
    return this.#acked;
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Starts exporting in the background; never waits for NATS. */
  start(): void {
    this.#tail = new CommittedTail(this.#options.log.lastSeq());
    this.#unlisten = this.#options.log.onCommit((records) => {
      this.#tail.push(records);
      // Not at once: the listener runs before the commit's appends resolve, so a publish here
      // would come before their answers. A timer runs after them and after the next group
      // commit has been handed to LevelDB, while its thread writes; commits meanwhile join it.
      this.#commitTimer ??= setTimeout(() => {
        this.#commitTimer = undefined;
        this.#poke();
      }, 0);
    });
    this.#tick = setInterval(() => {
      this.#ticking = this.#ticking.then(() => this.#report()).catch((err) => this.#options.warn(`export status not written: ${(err as Error).message}`));
    }, TICK_MS);
    this.#tick.unref();
    this.#loop = this.#run();
  }

  /**
   * Stops publishing. The acks of what is in flight are awaited a moment (STOP_ACKS_MS), so the
   * position written at stop is the stream's last message; what is still unacked after that is
   * abandoned: the next start resends it, deduplicated.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#tick) clearInterval(this.#tick);
    clearTimeout(this.#commitTimer);
    this.#poke();
    this.#pause.cut();
    const until = performance.now() + STOP_ACKS_MS;
    while (this.#connected && this.#inflight > 0 && performance.now() < until) await new Promise((ok) => setTimeout(ok, 5));
    await this.#nc?.close().catch(() => {});
    await this.#loop;
    await this.#snapshotting;
    await this.#ticking;
    await this.#reporter.writeStatus(this.status()).catch(() => {});
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      try {
        await this.#session();
      } catch (err) {
        if (this.#stopped) break;
        this.#down(err);
      } finally {
        this.#connected = false;
        this.#inflight = 0;
        const nc = this.#nc;
        this.#nc = undefined;
        await nc?.close().catch(() => {});
      }
      // stop() cuts this wait short
      if (!this.#stopped) await this.#pause.wait(RETRY_MS);
    }
  }

  #down(err: unknown): void {
    const reason = (err as Error).message;
    const kind = failureKind(err);
    if (this.#downWarned.has(kind)) return;
    this.#downWarned.add(kind);
    this.#options.warn(`NATS export: ${this.#options.config.servers.join(', ')} unreachable or refusing (${reason}); records wait in the log and are sent when it answers`);
  }

  /** One connection: find the position, then publish until something fails. */
  async #session(): Promise<void> {
    const { config } = this.#options;
    const authenticator = config.credentials === undefined ? undefined : credsAuthenticator(await readFile(config.credentials));
    const nc = await connect({ servers: config.servers, reconnect: false, timeout: 2000, authenticator, name: 'hearth-exporter' });
    this.#nc = nc;
    if (this.#stopped) return;
    const jsm = await nc.jetstreamManager({ timeout: 5000 });
    const { position, lastSeq } = await streamPosition(jsm, config, () => this.#options.log.lastSeq());
    // the stream is the truth, even when it went back (emptied or made anew by someone):
    // auth records after its last message are only read, and skipped, again
    this.#acked = position;
    this.#ackedStreamSeq = lastSeq;
    this.#known = true;
    this.#connected = true;
    // after a refusal, connecting proves nothing: the first ack tells (#publish)
    if (this.#downWarned.size > 0 && !this.#probe) {
      this.#downWarned.clear();
      this.#options.info(`NATS export: ${config.servers.join(', ')} answers again; exporting after seq ${this.#acked}`);
    }
    if (this.#options.snapshot) this.#snapshotSeq = await snapshotSeq(nc.jetstream({ timeout: 10_000 }), config.stream);
    await this.#publish(nc);
  }

  /**
   * Publishes every record after `acked` until the connection fails or stop(), in bursts: what
   * is on hand goes out at once (one socket write), and only the burst's last message asks for
   * an ack. Every message says which stream seq it must follow (Nats-Expected-Last-Sequence), so
   * JetStream stores a burst's messages only as an unbroken run: once one is refused or lost,
   * every later one is refused too, the last one's ack says so, and the session starts again
   * from the stream's last message with nothing skipped. An ack naming the stream seq the burst
   * was to end on proves every message of it stored, in order. Acks per burst rather than per
   * message halve what nats-server writes and spare Hearth an answer to read per record.
   */
  async #publish(nc: NatsConnection): Promise<void> {
    const { config } = this.#options;
    const js = nc.jetstream({ timeout: 10_000 });
    const closed = nc.closed().then((err) => {
      // nats.js's own code for it, so the outage it ends is warned of once with the others
      throw err ?? Object.assign(new Error('connection closed'), { code: 'CONNECTION_CLOSED' });
    });
    closed.catch(() => {});
    // sent (or skipped: auth/) and not yet acked, in seq order; `done` once its ack is in
    const bursts: Burst[] = [];
    let failure: Error | undefined;
    let lastProgress = performance.now();
    const advance = () => {
      while (bursts.length > 0 && bursts[0].done) {
        const burst = bursts.shift()!;
        this.#acked = burst.seq;
        if (burst.id > 0) this.#ackedStreamSeq = burst.streamSeq;
      }
      this.#inflight = bursts.length;
    };
    const inbox = createInbox();
    nc.subscribe(`${inbox}.*`, {
      callback: (err, msg) => {
        if (err) failure ??= err;
        else if (msg.headers?.hasError) failure ??= new Error(`JetStream answered ${msg.headers.code} ${msg.headers.description}`);
        else {
          let answer: { stream?: string; seq?: number; error?: { code?: number; description?: string } } | undefined;
          try {
            answer = JSON.parse(msg.string());
          } catch {
            // an empty or odd answer is no ack
          }
          const id = Number(msg.subject.slice(inbox.length + 1));
          const burst = bursts.find((b) => b.id === id);
          if (!answer || answer.error || !answer.stream) {
            const why = answer?.error ? `${answer.error.code} ${answer.error.description}` : JSON.stringify(msg.string());
            // a burst of several says only that one of them was refused: the next sessions send one
            // record at a time until one is taken, so the refusal is told with its record's own reason
            this.#probe = true;
            failure ??= new Error(burst?.messages === 1 ? `JetStream refused record ${burst.seq} (${burst.subject}): ${why}` : `JetStream refused a publish: ${why}`);
          }
          else if (burst && answer.seq !== burst.streamSeq) {
            failure ??= new Error(`JetStream stored the burst ending with seq ${burst.seq} as stream seq ${answer.seq}, not ${burst.streamSeq}: is something else publishing to stream ${config.stream}?`);
          } else if (burst) {
            burst.done = true;
            lastProgress = performance.now();
            advance();
            if (this.#probe) {
              this.#probe = false;
              this.#downWarned.clear();
              this.#options.info(`NATS export: JetStream takes records again; exported up to seq ${this.#acked}`);
            }
          }
        }
        this.#poke();
      },
    });
    let sent = this.#acked;
    // the stream's last seq once everything sent is stored
    let streamSeq = this.#ackedStreamSeq;
    let nextId = 1;
    const writer = new BurstWriter(nc, this.#options.rawPublish ?? true);
    const subjects = new SubjectCache(config.subject_prefix);
    /** Publishes `records` (in seq order, after `sent`) as one burst, without yielding. */
    const send = (records: readonly EventRecord[]) => {
      const from = sent;
      const burst: Burst = { id: 0, seq: sent, streamSeq, done: true, messages: 0, subject: '' };
      const messages: Publish[] = [];
      for (const record of records) {
        if (record.seq <= sent) continue;
        sent = record.seq;
        burst.seq = record.seq;
        if (!isExported(record.stream)) {
          // learnt, never sent: a token quoted elsewhere is hidden there too
          this.#payloads.learn(record);
          continue;
        }
        const headers: Array<[string, string]> = [['Nats-Msg-Id', String(record.seq)]];
        // 0 is "not set" to JetStream: the first message of an empty stream is not checked
        if (streamSeq > 0) headers.push(['Nats-Expected-Last-Sequence', String(streamSeq)]);
        streamSeq++;
        burst.subject = subjects.of(record.stream, record.type);
        messages.push({ subject: burst.subject, headers, payload: this.#payloads.text(record) });
      }
      if (burst.seq === from) return;
      if (messages.length > 0) {
        burst.id = nextId++;
        burst.streamSeq = streamSeq;
        burst.done = false;
        burst.messages = messages.length;
        messages[messages.length - 1].reply = `${inbox}.${burst.id}`;
        for (const message of messages) {
          try {
            writer.add(message);
          } catch (err) {
            throw new Error(`record ${message.headers[0][1]} (${message.subject}) cannot be published: ${(err as Error).message}`);
          }
        }
        writer.flush();
      }
      bursts.push(burst);
      advance();
    };
    const lastBurst = { at: -Infinity, records: 0 };
    this.#tail.dropAcked(this.#acked);
    for (;;) {
      if (failure) throw failure;
      this.#maybeSnapshot(js);
      const inflight = bursts.length;
      // once stopped, nothing more is sent; stop() waits a moment for the acks of what was
      if (this.#stopped && inflight === 0) break;
      if (inflight > 0 && performance.now() - lastProgress > ACK_TIMEOUT_MS) throw new Error(`no ack from JetStream within ${ACK_TIMEOUT_MS} ms`);
      const room = this.#stopped || inflight >= BURSTS_IN_FLIGHT ? 0 : this.#probe ? 1 : BURST;
      if (room > 0 && sent < this.#options.log.lastSeq()) {
        const wait = lastBurst.at + BURST_GAP_MS - performance.now();
        if (wait > 0 && lastBurst.records >= BUSY_BURST && this.#options.log.lastSeq() - sent < BURST) {
          // busy: more commits join the next burst rather than each making a small one
          await new Promise((ok) => setTimeout(ok, wait));
          continue;
        }
        lastBurst.at = performance.now();
        lastBurst.records = this.#options.log.lastSeq() - sent;
        if (sent >= this.#tail.from) send(this.#tail.after(sent, room));
        else {
          // older than what the commits handed over (NATS was away): read back from the log
          const chunk: EventRecord[] = [];
          for await (const record of this.#options.log.read({ gt: sent, limit: Math.min(room, READ_CHUNK) })) chunk.push(record);
          if (this.#stopped) break;
          send(chunk);
        }
        this.#tail.dropAcked(this.#acked);
        // let the acks and the write path in between two bursts
        await new Promise<void>((ok) => setImmediate(ok));
        continue;
      }
      const woken = new Promise<void>((ok) => (this.#wake = ok));
      // a commit or an ack between the checks above and here is seen on the next pass
      if (!failure && bursts.length === inflight && (room <= 0 || sent >= this.#options.log.lastSeq())) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<void>((ok) => (timer = setTimeout(ok, ACK_TIMEOUT_MS)));
        await Promise.race([woken, closed, timeout]);
        clearTimeout(timer);
      }
      this.#wake = undefined;
    }
  }

  #poke(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Publishes the replicas' snapshot when none is in the store yet, or `snapshot_every` records
   * were exported since the last one. Taken now, at the log's last seq S: every message
   * acknowledged so far holds a record at or below S, and every record above S is published
   * after them, so a replica starts after the last acknowledged message and skips what is <= S.
   */
  #maybeSnapshot(js: JetStreamClient): void {
    const take = this.#options.snapshot;
    if (!take || this.#snapshotting || this.#snapshotSeq < 0 || this.#acked === 0 || Date.now() < this.#snapshotRetryAt) return;
    if (this.#snapshotSeq > 0 && this.#acked - this.#snapshotSeq < this.#options.config.snapshot_every) return;
    const { seq, parts } = take();
    const { stream } = this.#options.config;
    this.#snapshotting = publishSnapshot(js, stream, seq, this.#ackedStreamSeq, parts)
      .then(() => {
        this.#snapshotSeq = seq;
      })
      .catch((err) => {
        this.#snapshotRetryAt = Date.now() + SNAPSHOT_RETRY_MS;
        this.#options.warn(`NATS export: the replicas' snapshot at seq ${seq} was not stored (${(err as Error).message}); tried again in ${SNAPSHOT_RETRY_MS / 1000} s`);
      })
      .finally(() => (this.#snapshotting = undefined));
  }

  /** The status file, and once the stream's position is known the lag entity. */
  async #report(): Promise<void> {
    if (this.#known) return this.#reporter.report(this.status());
    if (!this.#connected) await this.#reporter.writeStatus(this.status());
  }

  /** Where the export stands now. */
  status(): ExportStatus {
    const last = this.#options.log.lastSeq();
    return {
      exporter: 'nats',
      stream: this.#options.config.stream,
      servers: this.#options.config.servers,
      acked_seq: this.#acked,
      last_seq: last,
      lag: Math.max(0, last - this.#acked),
      connected: this.#connected,
      updated: (this.#options.now ?? Date.now)(),
    };
  }
}
