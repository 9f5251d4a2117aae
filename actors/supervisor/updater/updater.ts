import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { Jobs } from '../jobs/types.ts';
import type { UpdateComponent, UpdaterView } from './types.ts';

/**
 * The updater: the latest versions of each component on the configured channel, read from a
 * channel document (supervisor-wire §12.1, with `core` where the original says `homeassistant`).
 * The document comes from a local JSON file or an http(s) URL; `{channel}` in either is the
 * channel's name. What was last read for a channel is a record `updater_fetched` on
 * `supervisor/updater/<channel>`, so a restart knows the versions without reading again; a
 * document that does not pass the checks leaves the last good one in place.
 */

export type Channel = 'stable' | 'beta' | 'dev';
export const CHANNELS: readonly Channel[] = ['stable', 'beta', 'dev'];

export const UPDATER_PREFIX = 'supervisor/updater/';
/** The shipped documents: Hearth's own versions, so a fresh install reports no update. */
export const DEFAULT_UPDATER_SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'channels', '{channel}.json');
/** Reads closer together than this are skipped (the original's throttle). */
export const UPDATER_THROTTLE_MS = 30_000;
const FETCH_TIMEOUT_MS = 10_000;
const SNAPSHOT_VERSION = 1;

const PLUGINS = ['cli', 'dns', 'audio', 'observer', 'multicast'] as const;

/** The versions one channel document gives, as recorded. */
export type ChannelVersions = Record<UpdateComponent, string | null>;

export interface UpdaterFetched {
  channel: Channel;
  source: string;
  versions: ChannelVersions;
}

/** What was last read for a channel, on `supervisor/updater/<channel>`. */
export type UpdaterRecord = { type: 'updater_fetched'; data: UpdaterFetched };
const updaterRecords = typedRecords<UpdaterRecord>(UPDATER_PREFIX, { updater_fetched: true });

export interface UpdaterDeps {
  log: EventLog;
  clock: Clock;
  logger: Logger;
  /** the configured channel (settings section `supervisor`) */
  channel(): Channel;
  /** where documents come from: a file path or an http(s) URL, `{channel}` replaced */
  source(): string;
  /** the machine name picking the core's version (`core: {<machine>|default: version}`) */
  machine: string;
  /** the job tracker, once there is one: each read runs as job `updater_fetch_data` */
  jobs?(): Jobs | undefined;
  context(): Context;
}

/** What a read did. */
export type ReloadOutcome = { fetched: true; versions: ChannelVersions } | { fetched: false; reason: 'throttled' };

export class UpdaterError extends Error {}

export class Updater implements UpdaterView, Area<RecordOf<UpdaterRecord>> {
  readonly name = 'supervisor-updater';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = UPDATER_PREFIX;
  readonly latestSuffices = true;
  private readonly known = new Map<Channel, UpdaterFetched>();
  private lastAttempt = -Infinity;
  private running?: Promise<ReloadOutcome>;

  constructor(private readonly deps: UpdaterDeps) {
    evolveOnCommit(deps.log, this);
  }

  owns(record: EventRecord): record is RecordOf<UpdaterRecord> {
    return updaterRecords.owns(record);
  }

  evolve(record: RecordOf<UpdaterRecord>): void {
    this.known.set(record.data.channel, record.data);
  }

  snapshot(): unknown {
    return [...this.known.values()];
  }

  restore(data: unknown): void {
    for (const d of data as UpdaterFetched[]) this.known.set(d.channel, d);
  }

  channel(): Channel {
    return this.deps.channel();
  }

  latest(component: UpdateComponent): string | null {
    return this.known.get(this.channel())?.versions[component] ?? null;
  }

  /** What was last read for the configured channel, if anything. */
  current(): UpdaterFetched | undefined {
    return this.known.get(this.channel());
  }

  /** The source with the configured channel filled in. */
  location(): string {
    return this.deps.source().replaceAll('{channel}', this.channel());
  }

  /**
   * Reads the channel document again, unless the last read was less than 30 s ago (`force`
   * reads anyway: a channel change). Rejects with an UpdaterError naming what is wrong with the
   * document or its source; the last good versions stay.
   */
  reload(options: { force?: boolean } = {}): Promise<ReloadOutcome> {
    if (this.running) return this.running;
    const now = this.deps.clock.now();
    if (!options.force && now - this.lastAttempt < UPDATER_THROTTLE_MS) return Promise.resolve({ fetched: false, reason: 'throttled' });
    this.lastAttempt = now;
    const jobs = this.deps.jobs?.();
    const work = () => this.fetch();
    const done = jobs ? jobs.run({ name: 'updater_fetch_data', internal: true, context: this.deps.context() }, work).done : work();
    this.running = done.finally(() => (this.running = undefined));
    return this.running;
  }

  private async fetch(): Promise<ReloadOutcome> {
    const channel = this.channel();
    const source = this.location();
    let versions: ChannelVersions;
    try {
      versions = parseChannelDocument(await readSource(source), channel, this.deps.machine);
    } catch (err) {
      const reason = err instanceof UpdaterError ? err.message : `Can't read versions from ${source}: ${(err as Error).message}`;
      this.deps.logger.warning(`${reason}; keeping the versions read before`);
      throw new UpdaterError(reason);
    }
    const before = this.known.get(channel);
    if (!before || before.source !== source || !sameVersions(before.versions, versions)) {
      const data: UpdaterFetched = { channel, source, versions };
      await this.deps.log.append([updaterRecords.make(UPDATER_PREFIX + channel, { type: 'updater_fetched', data }, this.deps.context(), this.deps.clock.now())]);
      this.deps.logger.info(`channel ${channel}: core ${versions.core}, supervisor ${versions.supervisor} (from ${source})`);
    }
    return { fetched: true, versions };
  }
}

async function readSource(source: string): Promise<string> {
  if (/^https?:\/\//i.test(source)) {
    const res = await fetch(source, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { Accept: 'application/json' } });
    if (!res.ok) throw new UpdaterError(`Can't fetch versions from ${source}: HTTP ${res.status}`);
    return res.text();
  }
  return readFile(source.startsWith('file://') ? fileURLToPath(source) : source, 'utf8');
}

const isVersion = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/**
 * The versions a channel document gives, or an UpdaterError naming what is wrong: not JSON, not
 * for `channel`, `supervisor` missing, `core` not a map holding `machine` or `default`.
 */
export function parseChannelDocument(text: string, channel: Channel, machine: string): ChannelVersions {
  let doc: any;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UpdaterError(`Can't parse versions: ${(err as Error).message}`);
  }
  const bad = (why: string) => new UpdaterError(`Can't process version data: ${why}`);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw bad('the document is not a JSON object');
  if (doc.channel !== channel) throw bad(`channel is ${JSON.stringify(doc.channel ?? null)}, expected ${JSON.stringify(channel)}`);
  if (!isVersion(doc.supervisor)) throw bad('`supervisor` must be a version string');
  const core = doc.core;
  if (core === null || typeof core !== 'object' || Array.isArray(core)) throw bad('`core` must be a map of machine (or `default`) to version');
  const coreVersion = core[machine] ?? core.default;
  if (!isVersion(coreVersion)) throw bad(`\`core\` has no version for machine ${JSON.stringify(machine)} nor a \`default\``);
  let os: string | null = null;
  if (doc.os !== undefined && doc.os !== null) {
    if (typeof doc.os !== 'object' || Array.isArray(doc.os)) throw bad('`os` must be a map of board (or `default`) to version');
    const v = doc.os[machine] ?? doc.os.default ?? null;
    if (v !== null && !isVersion(v)) throw bad('`os` versions must be strings');
    os = v;
  }
  const versions: ChannelVersions = { core: coreVersion, supervisor: doc.supervisor, os, cli: null, dns: null, audio: null, observer: null, multicast: null };
  for (const p of PLUGINS) {
    if (doc[p] === undefined || doc[p] === null) continue;
    if (!isVersion(doc[p])) throw bad(`\`${p}\` must be a version string`);
    versions[p] = doc[p];
  }
  return versions;
}

function sameVersions(a: ChannelVersions, b: ChannelVersions): boolean {
  return (Object.keys(b) as UpdateComponent[]).every((k) => a[k] === b[k]);
}

