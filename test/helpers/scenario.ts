// Tests over recorded events: given a log, when commands, then exactly these records.
// The core's actors (buildCore) or the supervisor's areas (buildSupervisor, on a fake container
// engine and a fake mount table) over a real log with a manual clock and sequential ids; `when`
// runs a command and answers the records it appended. The expected records live as JSON lines
// under test/fixtures/<area>/<name>.ndjson or inline as `facts`; UPDATE_FIXTURES=1 rewrites the
// fixtures from the current behaviour (review the diff before committing).
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEventLog } from '../../store/log.ts';
import type { EventLog, EventRecord, NewEvent } from '../../store/types.ts';
import { manualClock, sequentialIds, type Ids } from '../../actors/clock.ts';
import { replayArea } from '../../actors/restore.ts';
import { Logs } from '../../actors/logging/logs.ts';
import { Settings } from '../../actors/supervisor/settings.ts';
import { Tokens } from '../../actors/supervisor/tokens.ts';
import { JobTracker } from '../../actors/supervisor/jobs/jobs.ts';
import type { ConditionFacts } from '../../actors/supervisor/jobs/conditions.ts';
import { ResolutionCenter } from '../../actors/supervisor/resolution/center.ts';
import { Mounts } from '../../actors/supervisor/mounts/mounts.ts';
import { MountCommandError, type MountSystem } from '../../actors/supervisor/mounts/system.ts';
import { AppStore } from '../../actors/supervisor/apps/store.ts';
import { AppManager } from '../../actors/supervisor/apps/manager.ts';
import { CoreRuntime } from '../../actors/supervisor/core/runtime.ts';
import { CORE_IMAGE, sourceDigest } from '../../actors/supervisor/core/image.ts';
import type { Engine } from '../../actors/supervisor/docker/engine.ts';
import type { HostServices } from '../../actors/supervisor/host/system.ts';
import { CORE_VERSION } from '../../actors/version.ts';
import { FakeDocker } from './fake-engine.ts';
import { scriptedHost } from './host.ts';
import { EntityActors } from '../../actors/entities/registry.ts';
import { HelperActors } from '../../actors/entities/helpers.ts';
import { helperDomains } from '../../actors/entities/domains/index.ts';
import { ServiceRegistry } from '../../actors/services/registry.ts';
import { CoreConfig } from '../../actors/core/core-config.ts';
import { coreServices } from '../../actors/core/services.ts';
import type { Context } from '../../store/types.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The actors of the core, built over a real log with a manual clock and sequential ids. */
export interface ScenarioCore {
  log: EventLog;
  entities: EntityActors;
  services: ServiceRegistry;
  helpers: Map<string, HelperActors>;
  clock: ReturnType<typeof manualClock>;
  context(userId?: string | null): Context;
}

/** Builds the core's actors on a fresh log holding `given`, with helper sections configured. */
export async function buildCore(given: NewEvent[], sections: Record<string, unknown> = {}): Promise<ScenarioCore> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-scenario-'));
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  if (given.length) await log.append(given);
  const clock = manualClock(Date.UTC(2026, 0, 1, 12, 0, 0), 1);
  const ids = sequentialIds();
  const entities = new EntityActors({ log, clock });
  for await (const r of log.read()) if (entities.area.owns(r)) entities.area.evolve(r);
  const services = new ServiceRegistry({ log, clock, entities });
  const coreConfig = new CoreConfig({ log, clock, configDir: dir });
  const context = (userId: string | null = null): Context => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: userId });
  const helpers = new Map<string, HelperActors>();
  for (const d of helperDomains) {
    const h = new HelperActors(d, entities, clock, () => {});
    helpers.set(d.domain, h);
    for (const spec of h.specs(async (ctx) => h.configure(sections[d.domain], ctx))) await services.register(spec, context());
    await h.configure(sections[d.domain], context());
  }
  for (const spec of coreServices({ services, entities, coreConfig, reloadCoreConfig: async () => {}, stop() {}, restart() {}, log() {} })) {
    await services.register(spec, context());
  }
  return { log, entities, services, helpers, clock, context };
}

/** The records appended after `afterSeq`, in the form fixtures store them. */
export async function recordsAfter(log: EventLog, afterSeq: number, filter: (r: EventRecord) => boolean = () => true): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const r of log.read({ gt: afterSeq })) if (filter(r)) out.push(r);
  return JSON.parse(JSON.stringify(out));
}

/** Compares records with a fixture file (or writes it when UPDATE_FIXTURES=1). */
export async function expectFixture(t: { same(...args: any[]): unknown; fail(...args: any[]): unknown }, name: string, records: EventRecord[]) {
  const file = join(FIXTURES, `${name}.ndjson`);
  const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
  if (process.env.UPDATE_FIXTURES === '1') {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  let expected: string;
  try {
    expected = await readFile(file, 'utf8');
  } catch {
    return t.fail(`fixture ${file} is missing; run with UPDATE_FIXTURES=1 to record it`);
  }
  const want = expected.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  t.same(records, want, `records match ${name}.ndjson`);
}

/** Reads a fixture's records (to use as `given`). */
export async function fixtureRecords(name: string): Promise<EventRecord[]> {
  const text = await readFile(join(FIXTURES, `${name}.ndjson`), 'utf8');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

// ---------------------------------------------------------------------------------------------
// when a command, then the records it appended

/** What a command did: the records it appended (as fixtures store them), and its answer or failure. */
export interface Outcome<T> {
  records: EventRecord[];
  result?: T;
  error?: Error;
}

/**
 * Runs `command` and answers the records it appended. `settled` is awaited before and after it
 * (jobs writing their last records); `until` polls, 5 s at most, for records that come after the
 * command answered (a watchdog's restart after a crash) until it holds of them.
 */
export async function when<T>(
  log: EventLog,
  command: () => Promise<T> | T,
  o: { settled?: () => Promise<unknown>; until?: (records: EventRecord[]) => boolean; filter?: (r: EventRecord) => boolean } = {},
): Promise<Outcome<T>> {
  // what earlier commands still had to write is theirs, not this command's
  await o.settled?.();
  const before = log.lastSeq();
  const outcome: Outcome<T> = { records: [] };
  try {
    outcome.result = await command();
  } catch (err) {
    outcome.error = err as Error;
  }
  await o.settled?.();
  const read = () => recordsAfter(log, before, o.filter);
  outcome.records = await read();
  // what comes later comes on timers (the watchdog's pauses)
  for (const end = Date.now() + 5000; o.until && !o.until(outcome.records) && Date.now() < end; ) {
    await new Promise((ok) => setTimeout(ok, 5));
    await o.settled?.();
    outcome.records = await read();
  }
  return outcome;
}

/** A record as a test states it: its stream, type and data (times and contexts left out). */
export interface Fact {
  stream: string;
  type: string;
  data: unknown;
}

/** The facts of `records`, in order. */
export function facts(records: EventRecord[]): Fact[] {
  return records.map(({ stream, type, data }) => ({ stream, type, data }));
}

/**
 * A job's start or end as a line a test states (`job app_start core_x`, `job done`,
 * `job failed: <messages>`); undefined for any other record.
 */
export function jobLine(r: EventRecord): string | undefined {
  if (r.type === 'job_created') return ['job', r.data.name, r.data.reference].filter((x) => x !== null).join(' ');
  if (r.type === 'job_done') return r.data.errors.length ? `job failed: ${r.data.errors.map((e: { message: string }) => e.message).join('; ')}` : 'job done';
  return undefined;
}

/** A new record on `stream` at the scenario's start time, for `given`. */
export function fact(stream: string, type: string, data: unknown, time = SCENARIO_START): NewEvent {
  return { time, stream, type, data, context: { id: `given-${stream}-${type}`, parent_id: null, user_id: null } };
}

// ---------------------------------------------------------------------------------------------
// the supervisor's areas

/** The scenarios' clock starts here (1 January 2026, noon UTC). */
export const SCENARIO_START = Date.UTC(2026, 0, 1, 12, 0, 0);

/** The supervisor's areas over a real log, a fake container engine and a fake mount table. */
export interface ScenarioSupervisor {
  log: EventLog;
  dataDir: string;
  clock: ReturnType<typeof manualClock>;
  ids: Ids;
  /** every log line the areas wrote */
  lines: string[];
  /** the container engine (controls: addImage, crash, failNext; `calls`) */
  docker: FakeDocker;
  engine: Engine;
  /** the host's mount table (controls: failNext, unmountBehind; `calls`) */
  mountTable: FakeMountTable;
  settings: Settings;
  tokens: Tokens;
  jobs: JobTracker;
  resolution: ResolutionCenter;
  mounts: Mounts;
  store: AppStore;
  apps: AppManager;
  /** the core's container (install, start, stop, its watchdog); its image is on the engine */
  core: CoreRuntime;
  /** the core's HTTP as the runtime probes it once started: `answering = false` fails every request */
  coreHttp: { answering: boolean; port: number };
  context(): Context;
  /** the command's records, after its jobs wrote theirs (see `when`) */
  when<T>(command: (s: ScenarioSupervisor) => Promise<T> | T, o?: { until?: (records: EventRecord[]) => boolean; filter?: (r: EventRecord) => boolean }): Promise<Outcome<T>>;
}

export interface ScenarioSupervisorOptions {
  /** app repository directories besides the built-in one */
  appRepositories?: string[];
  /** the core's container name (the `core_health` check inspects it) */
  coreContainer?: string;
  /** free space at or below this is an issue (default 0: never, the test's disk is not in question) */
  freeSpaceMinBytes?: number;
  /** the job conditions' facts (default: a running, healthy, supported supervisor with room) */
  conditions?: ConditionFacts;
}

/**
 * Builds the supervisor's areas on a fresh log holding `given`, restored from it as
 * `startSupervisor` restores them, with a manual clock, sequential ids, a fake engine and a fake
 * mount table; closed when the test ends. The core runs as a container of the fake engine whose
 * HTTP is a local stand-in; no listener, no plugins.
 */
export async function buildSupervisor(t: { teardown(fn: () => unknown): void }, given: Array<NewEvent | EventRecord> = [], options: ScenarioSupervisorOptions = {}): Promise<ScenarioSupervisor> {
  const dataDir = await mkdtemp(join(tmpdir(), 'hearth-scenario-supervisor-'));
  const log = await openEventLog({ path: join(dataDir, 'log'), commit: 'fast' });
  if (given.length) await log.append(given.map(({ seq: _, ...rest }: NewEvent & { seq?: number }) => rest));
  const clock = manualClock(SCENARIO_START, 0);
  // ids of their own, so none made now is one a given record (recorded by another scenario) holds
  const ids = sequentialIds(given.length ? 'b' : '');
  const lines: string[] = [];
  const logs = new Logs({ clock, lines: (l) => lines.push(l) });
  const context = (): Context => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: null });
  const docker = new FakeDocker(() => clock.now());
  const engine = docker.engine();
  const mountTable = new FakeMountTable();
  const coreDataDir = join(dataDir, 'core');

  const settings = new Settings({ log, clock });
  const tokens = new Tokens({ log, clock, ids });
  const jobs = new JobTracker({ log, clock, ids, settings, context, warn: logs.get('hearth.supervisor.jobs').warning });
  const resolution = new ResolutionCenter({
    log, clock, ids, engine, dataDir, coreDataDir,
    coreContainer: options.coreContainer ?? 'hearth_core',
    freeSpaceMinBytes: options.freeSpaceMinBytes ?? 0,
    host: scriptedHost(NO_SERVICES),
    ignoredConditions: () => jobs.ignoredConditions(),
    context,
    warn: logs.get('hearth.supervisor.resolution').warning,
  });
  jobs.useConditionFacts(options.conditions ?? { state: () => 'running', unhealthy: () => resolution.unhealthy(), unsupported: () => [] });
  const mounts = new Mounts({ log, clock, logger: logs.get('hearth.supervisor.mounts'), dataDir, system: mountTable, jobs, resolution, context });
  const store = new AppStore({ localDir: join(dataDir, 'apps', 'local'), directories: () => options.appRepositories ?? [], logger: logs.get('hearth.supervisor.store'), coreVersion: () => CORE_VERSION });
  await store.reload();
  // what answers on the core's published port: the runtime waits for it after each start
  const coreHttp = { answering: true, port: 0 };
  const coreServer = createServer((req, res) => (coreHttp.answering ? res.end('{}') : req.socket.destroy()));
  await new Promise<void>((ok) => coreServer.listen(0, '127.0.0.1', ok));
  coreHttp.port = (coreServer.address() as AddressInfo).port;
  // this Hearth's core image, made from these sources (its label says so): none is built
  docker.addImage(`${CORE_IMAGE}:${CORE_VERSION}`, { 'io.hass.type': 'core', 'hearth.source': await coreSourceDigest() });
  const core = new CoreRuntime({
    log, clock, ids, settings, tokens, engine,
    logger: logs.get('hearth.supervisor.core'),
    containerName: options.coreContainer ?? 'hearth_core',
    dataDir: coreDataDir,
    links: { jobs, resolution },
    defaultPort: coreHttp.port,
    supervisorUrl: () => 'http://supervisor',
    timezone: () => 'UTC',
    watchdogPauseMs: 1,
    startTimeoutMs: 300,
  });
  const apps = new AppManager({
    log, clock, ids, tokens, engine, dataDir, coreDataDir,
    logger: logs.get('hearth.supervisor.apps'),
    store: () => store,
    jobs: () => jobs,
    resolution: () => resolution,
    supervisorUrl: () => 'http://supervisor',
    timezone: () => 'UTC',
    watchdogPauseMs: 1,
    startTimeoutMs: 1000,
  });
  for (const area of [settings, tokens, jobs, resolution, mounts, apps]) await replayArea(log, area);
  t.teardown(async () => {
    await core.close();
    coreServer.closeAllConnections();
    await new Promise((ok) => coreServer.close(ok));
    await apps.close();
    await mounts.stop();
    await resolution.stop();
    await jobs.close();
    await log.close();
    logs.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  const s: ScenarioSupervisor = {
    log, dataDir, clock, ids, lines, docker, engine, mountTable, settings, tokens, jobs, resolution, mounts, store, apps, core, coreHttp, context,
    when: (command, o = {}) => when(log, () => command(s), { ...o, settled: () => jobs.flush() }),
  };
  return s;
}

// hashing this Hearth's sources takes a while: once a process
let digest: Promise<string> | undefined;
const coreSourceDigest = () => (digest ??= sourceDigest());

const NO_SERVICES: HostServices = { dbus: false, systemd: false, logind: false, hostnamed: false, timedated: false, resolved: false, journalGatewayd: false, udisks2: false };

/**
 * The host's mount table in memory: mount and bind make a target mounted, unmount ends it.
 * `failNext(target, message)` fails the next mount or bind onto `target` as the command would;
 * `unmountBehind(target)` is something else unmounting it. Every command goes to `calls`.
 */
export class FakeMountTable implements MountSystem {
  readonly calls: string[] = [];
  readonly mountedTargets = new Set<string>();
  canMount = true;
  private readonly failures = new Map<string, string>();

  failNext(target: string, message: string): void {
    this.failures.set(target, message);
  }

  unmountBehind(target: string): void {
    this.mountedTargets.delete(target);
  }

  async available(): Promise<boolean> {
    return this.canMount;
  }

  async mount(type: string, source: string, target: string, options: string[]): Promise<void> {
    this.calls.push(`mount -t ${type} -o ${options.join(',')} ${source} ${target}`);
    this.attach(target);
  }

  async bind(source: string, target: string): Promise<void> {
    this.calls.push(`bind ${source} ${target}`);
    this.attach(target);
  }

  async unmount(target: string): Promise<void> {
    this.calls.push(`umount ${target}`);
    if (!this.mountedTargets.delete(target)) throw new MountCommandError(`umount: ${target}: not mounted.`);
  }

  async mounted(target: string): Promise<boolean> {
    return this.mountedTargets.has(target);
  }

  private attach(target: string): void {
    const failure = this.failures.get(target);
    if (failure !== undefined) {
      this.failures.delete(target);
      throw new MountCommandError(failure);
    }
    this.mountedTargets.add(target);
  }
}
