import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import uWS from '@trufflesuite/uws-js-unofficial';
import { openEventLog } from '../store/log.ts';
import type { Context, EventLog } from '../store/types.ts';
import { systemClock, randomIds, type Clock, type Ids } from '../actors/clock.ts';
import type { Area } from '../actors/area.ts';
import { Logs } from '../actors/logging/logs.ts';
import { Settings } from '../actors/supervisor/settings.ts';
import { Tokens } from '../actors/supervisor/tokens.ts';
import { Engine, DEFAULT_DOCKER_SOCKET } from '../actors/supervisor/docker/engine.ts';
import { Router } from '../gateway/http.ts';
import { SupervisorApi } from '../gateway/supervisor/api.ts';
import type { SupervisorDeps } from '../gateway/supervisor/deps.ts';
import { registerSupervisorRoutes } from '../gateway/supervisor/routes/index.ts';
import { JobTracker } from '../actors/supervisor/jobs/jobs.ts';
import { ResolutionCenter } from '../actors/supervisor/resolution/center.ts';
import { assertNativeUws } from './instance.ts';

/** How to build one supervisor. Nothing is read from module-level state. */
export interface SupervisorOptions {
  /** the supervisor's data directory: its log, admin.token, the core's data under `core/` */
  dataDir: string;
  /** 0 picks a free port (default listener: 1703) */
  port: number;
  host?: string;
  /** the container engine's socket (default /var/run/docker.sock) */
  dockerSocket?: string;
  /** the core container's name (default `hearth_core`; tests give each supervisor its own) */
  coreContainer?: string;
  clock?: Clock;
  ids?: Ids;
  /** receives every log line (tests); without it lines go to stdout */
  log?: (line: string) => void;
  /** free space at or below this is a resolution issue (default 2 GiB; tests set their own) */
  freeSpaceMinBytes?: number;
  /** asked to end the process */
  onStop?: () => void;
}

/** A running supervisor. */
export interface Supervisor {
  port: number;
  dataDir: string;
  log: EventLog;
  logs: Logs;
  tokens: Tokens;
  settings: Settings;
  jobs: JobTracker;
  resolution: ResolutionCenter;
  /** the operator's admin token (also in `<data>/admin.token`) */
  adminToken: string;
  /** every route on both trees */
  api: SupervisorApi;
  stop(): Promise<void>;
}

/** The supervisor's settings section of its own (`/supervisor/options`). */
export const SUPERVISOR_DEFAULTS = {
  channel: 'stable' as 'stable' | 'beta' | 'dev',
  logging: 'info' as string,
  timezone: 'Etc/UTC' as string,
  debug: false,
  debug_block: false,
  diagnostics: null as boolean | null,
  auto_update: true,
  detect_blocking_io: false,
  country: null as string | null,
  wait_boot: 5,
  feature_flags: { supervisor_v2_api: false, supervisor_websocket_v2_api: false } as Record<string, boolean>,
};

export async function startSupervisor(options: SupervisorOptions): Promise<Supervisor> {
  assertNativeUws();
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? randomIds();
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const logs = new Logs({ clock, lines: options.log, file: join(dataDir, 'supervisor.log') });
  const say = logs.get('hearth.supervisor');
  let state = 'initialize';
  const context = (): Context => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: null });

  const log = await openEventLog({ path: join(dataDir, 'log'), log: logs.get('hearth.store').warning });
  state = 'setup';
  const settings = new Settings({ log, clock });
  const tokens = new Tokens({ log, clock, ids });
  const jobs = new JobTracker({ log, clock, ids, settings, context, warn: logs.get('hearth.supervisor.jobs').warning });
  const areas: Area[] = [settings, tokens, jobs];
  for (const area of areas) for await (const r of log.readStreams(area.streamPrefix, { latest: area.latestSuffices })) area.evolve(r);
  await jobs.settleInterrupted(context());

  const operator = await tokens.ensureOperator(join(dataDir, 'admin.token'), context());
  const engine = new Engine(options.dockerSocket ?? DEFAULT_DOCKER_SOCKET);
  if (!(await engine.reachable())) say.warning(`no container engine answers at ${engine.socketPath}: the core cannot run until one does`);

  const supervisorSettings = settings.section('supervisor', SUPERVISOR_DEFAULTS);
  const app = uWS.App();
  const router = new Router({ authenticator: { authenticate: () => undefined } as never, log: say.error });
  const api = new SupervisorApi(router, {
    lookup: (token) => tokens.lookup(token),
    state: () => state,
    v2: supervisorSettings.get().feature_flags.supervisor_v2_api === true,
    error: say.error,
  });
  let restartApi: () => void = () => {};
  const coreContainer = options.coreContainer ?? 'hearth_core';
  const coreDataDir = join(dataDir, 'core');
  const resolution = new ResolutionCenter({
    log, clock, ids, engine, dataDir, coreDataDir, coreContainer, context,
    freeSpaceMinBytes: options.freeSpaceMinBytes,
    ignoredConditions: () => jobs.ignoredConditions(),
    warn: logs.get('hearth.supervisor.resolution').warning,
  });
  for await (const r of log.readStreams(resolution.streamPrefix, { latest: resolution.latestSuffices })) resolution.evolve(r);
  areas.push(resolution);
  const deps: SupervisorDeps = { dataDir, clock, ids, logs, settings, tokens, engine, coreContainer, coreDataDir, state: () => state, context, restart: () => restartApi() };
  deps.jobs = jobs;
  deps.resolution = resolution;
  registerSupervisorRoutes(api, deps);
  router.mount(app);

  const host = options.host ?? '0.0.0.0';
  const listenSocket = await new Promise<uWS.us_listen_socket>((ok, fail) => {
    app.listen(host, options.port, (s) => (s ? ok(s) : fail(new Error(`HEARTH_LISTEN: cannot listen on ${host}:${options.port} (port in use?)`))));
  });
  const port = uWS.us_socket_local_port(listenSocket);
  // supported/healthy are right from the first request; the checks run in the background
  await resolution.evaluate();
  state = 'running';
  resolution.start();
  say.info(`supervisor running on port ${port}`);

  let stopping: Promise<void> | undefined;
  return {
    port,
    dataDir,
    log,
    logs,
    tokens,
    settings,
    jobs,
    resolution,
    adminToken: operator.token,
    api,
    stop: () =>
      (stopping ??= (async () => {
        state = 'stopping';
        uWS.us_listen_socket_close(listenSocket);
        (app as unknown as { close(): void }).close();
        state = 'close';
        await resolution.stop();
        await jobs.close();
        await log.close();
        logs.close();
      })()),
  };
}
