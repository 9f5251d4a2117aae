// Mirrors every committed record of the log, in commit order, to a NATS JetStream stream.
//
// Position: the stream itself is the truth. At each (re)connect the exporter reads the stream's
// last message, whose `Nats-Msg-Id` is the seq of the last record JetStream acknowledged, and
// reads the log after it (`log.read({gt})`). No record of the exporter's own is written to the
// log for this: a position record would itself be a record to export. Every publish carries the
// record's seq as its msgID, so a record sent twice across a reconnect is dropped by JetStream's
// duplicate window, and the resume-from-last-message rule keeps the rest exact.
//
// The write path only notes the new last seq (onCommit); publishing runs beside it, at most
// WINDOW publishes awaiting their acks, acks taken in order. Any failure (NATS gone, a timeout)
// closes the connection and starts again from the stream's last message.
//
// Every second at most: the lag (log's last seq - the seq exported, auth records skipped count as
// exported) goes to `sensor.hearth_export_lag` when it changed, and to `<data>/export-nats.json`
// for `hearth export status`.

import { readFile, rename, writeFile } from 'node:fs/promises';
import { connect, credsAuthenticator, type JetStreamClient, type NatsConnection, type PubAck } from 'nats';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { Redactor } from '../../store/redact.ts';
import type { NatsExportConfig } from './config.ts';
import { isExported, subjectOf } from './subjects.ts';
import { publishSnapshot, snapshotSeq, type AreaPart } from '../replica/snapshots.ts';

export const LAG_ENTITY = 'sensor.hearth_export_lag';
export const STATUS_FILE = 'export-nats.json';
const WINDOW = 256;
const RETRY_MS = 1000;
const TICK_MS = 1000;
const SNAPSHOT_RETRY_MS = 30_000;

/** What `<data>/export-nats.json` holds (written at most once a second, and at stop). */
export interface ExportStatus {
  exporter: 'nats';
  stream: string;
  servers: string[];
  /** every record up to this seq is in the stream (or is never exported: auth/) */
  acked_seq: number;
  /** the log's last seq when this was written */
  last_seq: number;
  lag: number;
  connected: boolean;
  /** epoch ms */
  updated: number;
}

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
}

export class NatsExporter {
  readonly #o: NatsExporterOptions;
  readonly #redactor = new Redactor();
  #acked = 0;
  #known = false;
  #connected = false;
  #stopped = false;
  #nc: NatsConnection | undefined;
  #wake: (() => void) | undefined;
  /** ends the wait between two connection attempts (a commit does not: it would hammer a dead server) */
  #stopWait: (() => void) | undefined;
  #unlisten: (() => void) | undefined;
  #tick: ReturnType<typeof setInterval> | undefined;
  #loop: Promise<void> | undefined;
  #lastLag: number | undefined;
  #lagWarned = false;
  #downWarned = false;
  #lastStatus = '';
  #ticking: Promise<void> = Promise.resolve();
  /** the JetStream seq of the last message acknowledged */
  #ackedStreamSeq = 0;
  /** the seq of the replicas' latest snapshot in the object store (-1: not read yet) */
  #snapshotSeq = -1;
  #snapshotting: Promise<void> | undefined;
  #snapshotRetryAt = 0;

  constructor(options: NatsExporterOptions) {
    this.#o = options;
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
    this.#unlisten = this.#o.log.onCommit(() => {
      const wake = this.#wake;
      this.#wake = undefined;
      wake?.();
    });
    this.#tick = setInterval(() => {
      this.#ticking = this.#ticking.then(() => this.#report()).catch((err) => this.#o.warn(`export status not written: ${(err as Error).message}`));
    }, TICK_MS);
    this.#tick.unref();
    this.#loop = this.#run();
  }

  /** Stops publishing (what is in flight is abandoned: the next start resends it, deduplicated). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unlisten?.();
    if (this.#tick) clearInterval(this.#tick);
    this.#wake?.();
    this.#stopWait?.();
    await this.#nc?.close().catch(() => {});
    await this.#loop;
    await this.#snapshotting;
    await this.#ticking;
    await this.#writeStatus().catch(() => {});
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
        const nc = this.#nc;
        this.#nc = undefined;
        await nc?.close().catch(() => {});
      }
      // stop() wakes this wait too
      if (!this.#stopped) await new Promise<void>((ok) => {
        const timer = setTimeout(ok, RETRY_MS);
        this.#stopWait = () => {
          clearTimeout(timer);
          ok();
        };
      });
      this.#stopWait = undefined;
    }
  }

  #down(err: unknown): void {
    if (this.#downWarned) return;
    this.#downWarned = true;
    this.#o.warn(`NATS export: ${this.#o.config.servers.join(', ')} unreachable or refusing (${(err as Error).message}); records wait in the log and are sent when it answers`);
  }

  /** One connection: find the position, then publish until something fails. */
  async #session(): Promise<void> {
    const { config } = this.#o;
    const authenticator = config.credentials === undefined ? undefined : credsAuthenticator(await readFile(config.credentials));
    const nc = await connect({ servers: config.servers, reconnect: false, timeout: 2000, authenticator, name: 'hearth-exporter' });
    this.#nc = nc;
    if (this.#stopped) return;
    const jsm = await nc.jetstreamManager({ timeout: 5000 });
    let lastSeq = 0;
    try {
      const info = await jsm.streams.info(config.stream);
      const wanted = `${config.subject_prefix}.>`;
      if (!info.config.subjects?.includes(wanted)) {
        throw new Error(`stream ${config.stream} exists without the subjects ${wanted} (it takes ${JSON.stringify(info.config.subjects ?? [])}): change subject_prefix or the stream`);
      }
      lastSeq = info.state.last_seq;
    } catch (err) {
      if (!/stream not found/i.test((err as Error).message)) throw err;
      // a stream of this name made meanwhile by someone else is checked at the next connect
      await jsm.streams.add({ name: config.stream, subjects: [`${config.subject_prefix}.>`] });
    }
    let position = 0;
    if (lastSeq > 0) {
      const last = await jsm.streams.getMessage(config.stream, { seq: lastSeq });
      const id = last.header?.get('Nats-Msg-Id') ?? '';
      position = Number(id);
      if (!/^\d+$/.test(id) || !Number.isSafeInteger(position)) throw new Error(`the last message of stream ${config.stream} has no Hearth msg id (${JSON.stringify(id)}): is the stream shared?`);
    }
    if (position > this.#o.log.lastSeq()) {
      // records up to there would be taken as exported: a stream of another (or a wiped) data directory
      throw new Error(`stream ${config.stream} already holds seq ${position}, past this log's last seq ${this.#o.log.lastSeq()}: is it the stream of another data directory?`);
    }
    // the stream is the truth, even when it went back (emptied or made anew by someone):
    // auth records after its last message are only read, and skipped, again
    this.#acked = position;
    this.#ackedStreamSeq = lastSeq;
    this.#known = true;
    this.#connected = true;
    if (this.#downWarned) {
      this.#downWarned = false;
      this.#o.info(`NATS export: ${config.servers.join(', ')} answers again; exporting after seq ${this.#acked}`);
    }
    const js = nc.jetstream({ timeout: 10_000 });
    if (this.#o.snapshot) this.#snapshotSeq = await snapshotSeq(js, config.stream);
    const closed = nc.closed().then((err) => {
      throw err ?? new Error('connection closed');
    });
    closed.catch(() => {});
    while (!this.#stopped) {
      this.#maybeSnapshot(js);
      if (this.#acked >= this.#o.log.lastSeq()) {
        const woken = new Promise<void>((ok) => (this.#wake = ok));
        // a commit between the check and here is seen on the next pass
        if (this.#acked >= this.#o.log.lastSeq()) await Promise.race([woken, closed]);
        this.#wake = undefined;
        continue;
      }
      await this.#publishFrom(js, closed);
    }
  }

  /** Publishes the records after `acked` (up to the log's end as read), acks in order. */
  async #publishFrom(js: JetStreamClient, closed: Promise<never>): Promise<void> {
    const { config } = this.#o;
    const inflight: Array<{ seq: number; ack: Promise<PubAck> }> = [];
    const settle = async () => {
      const head = inflight.shift()!;
      const ack = await Promise.race([head.ack, closed]);
      this.#acked = head.seq;
      this.#ackedStreamSeq = ack.seq;
    };
    let skipped: number | undefined;
    for await (const record of this.#o.log.read({ gt: this.#acked })) {
      if (this.#stopped) break;
      if (!isExported(record.stream)) {
        // learnt, never sent: a token quoted elsewhere is hidden there too
        this.#redactor.learn(record);
        if (inflight.length === 0) this.#acked = record.seq;
        else skipped = record.seq;
        continue;
      }
      const payload = this.#payload(record);
      const ack = js.publish(subjectOf(config.subject_prefix, record.stream, record.type), payload, { msgID: String(record.seq) });
      ack.catch(() => {});
      inflight.push({ seq: record.seq, ack });
      skipped = undefined;
      if (inflight.length >= WINDOW) await settle();
    }
    while (inflight.length > 0) await settle();
    if (skipped !== undefined) this.#acked = skipped;
  }

  /**
   * Publishes the replicas' snapshot when none is in the store yet, or `snapshot_every` records
   * were exported since the last one. Taken now, at the log's last seq S: every message
   * acknowledged so far holds a record at or below S, and every record above S is published
   * after them, so a replica starts after the last acknowledged message and skips what is <= S.
   */
  #maybeSnapshot(js: JetStreamClient): void {
    const take = this.#o.snapshot;
    if (!take || this.#snapshotting || this.#snapshotSeq < 0 || this.#acked === 0 || Date.now() < this.#snapshotRetryAt) return;
    if (this.#snapshotSeq > 0 && this.#acked - this.#snapshotSeq < this.#o.config.snapshot_every) return;
    const { seq, parts } = take();
    const { stream } = this.#o.config;
    this.#snapshotting = publishSnapshot(js, stream, seq, this.#ackedStreamSeq, parts)
      .then(() => {
        this.#snapshotSeq = seq;
      })
      .catch((err) => {
        this.#snapshotRetryAt = Date.now() + SNAPSHOT_RETRY_MS;
        this.#o.warn(`NATS export: the replicas' snapshot at seq ${seq} was not stored (${(err as Error).message}); tried again in ${SNAPSHOT_RETRY_MS / 1000} s`);
      })
      .finally(() => (this.#snapshotting = undefined));
  }

  /** The record as `hearth replay` prints it (json), secrets as "***". */
  #payload(record: EventRecord): string {
    const secretKeys = this.#redactor.learn(record);
    return this.#redactor.scrub(this.#redactor.json(record, secretKeys) ?? '');
  }

  async #report(): Promise<void> {
    if (!this.#known) {
      if (!this.#connected) await this.#writeStatus();
      return;
    }
    const lag = Math.max(0, this.#o.log.lastSeq() - this.#acked);
    // the file first: whoever sees the entity's new lag finds export status at least as new
    await this.#writeStatus();
    if (lag !== this.#lastLag) {
      this.#lastLag = lag;
      await this.#o.writeLag(lag, this.#acked);
    }
    if (lag > this.#o.config.lag_warning && !this.#lagWarned) {
      this.#lagWarned = true;
      this.#o.warn(`NATS export: ${lag} records behind the log (over lag_warning ${this.#o.config.lag_warning})`);
    } else if (lag <= this.#o.config.lag_warning && this.#lagWarned) {
      this.#lagWarned = false;
      this.#o.info(`NATS export: caught up to ${lag} records behind the log`);
    }
  }

  status(): ExportStatus {
    const last = this.#o.log.lastSeq();
    return {
      exporter: 'nats',
      stream: this.#o.config.stream,
      servers: this.#o.config.servers,
      acked_seq: this.#acked,
      last_seq: last,
      lag: Math.max(0, last - this.#acked),
      connected: this.#connected,
      updated: (this.#o.now ?? Date.now)(),
    };
  }

  async #writeStatus(): Promise<void> {
    const s = this.status();
    const key = `${s.acked_seq}/${s.last_seq}/${s.connected}`;
    if (key === this.#lastStatus) return;
    this.#lastStatus = key;
    const tmp = `${this.#o.statusPath}.tmp`;
    await writeFile(tmp, JSON.stringify(s) + '\n');
    await rename(tmp, this.#o.statusPath);
  }
}

/** The lag entity's writer over EntityActors-like `write`. */
export function lagWriter(
  write: (entityId: string, w: { state: string; attributes: Record<string, unknown>; force_update: boolean }, context: Context) => Promise<unknown>,
  newContext: () => Context,
): (lag: number) => Promise<unknown> {
  return (lag) =>
    write(LAG_ENTITY, { state: String(lag), attributes: { state_class: 'measurement', unit_of_measurement: 'records', friendly_name: 'Hearth export lag' }, force_update: false }, newContext());
}
