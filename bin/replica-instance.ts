// A read replica: the primary's log followed from NATS JetStream into a log of its own, and the
// read side of the API served from it (states, events, history, SSE, WebSocket subscriptions).
// Writes are the primary's: a replica answers them as a server without them does.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import uWS from '@trufflesuite/uws-js-unofficial';
import { openEventLog } from '../store/log.ts';
import { serveLog } from '../store/log-socket.ts';
import type { EventLog } from '../store/types.ts';
import { systemClock, randomIds, type Clock, type Ids } from '../actors/clock.ts';
import type { Area } from '../actors/area.ts';
import { restore } from '../actors/restore.ts';
import { loadConfiguration } from '../actors/core/configuration.ts';
import { CoreConfig } from '../actors/core/core-config.ts';
import { EntityActors } from '../actors/entities/registry.ts';
import { Registries } from '../actors/registries/index.ts';
import { MirroredAuth } from '../actors/auth/mirror.ts';
import { History } from '../actors/history/history.ts';
import { Logs } from '../actors/logging/logs.ts';
import { loggingConfigOf } from '../actors/logging/config.ts';
import { Follower, type FollowConfig, type FollowerStatus } from '../actors/replica/follower.ts';
import { REPLICA_AREAS, type ReplicaSnapshot } from '../actors/replica/snapshots.ts';
import { Bus } from '../streams/bus.ts';
import { EntityFanout } from '../streams/entity-fanout.ts';
import { Router } from '../gateway/router.ts';
import { listenExclusive } from '../gateway/listen.ts';
import type { ReadDeps } from '../gateway/core.ts';
import { registerReadApiRoutes } from '../gateway/routes/api.ts';
import { registerStreamRoute } from '../gateway/routes/stream.ts';
import { registerHistoryRoutes } from '../gateway/routes/history.ts';
import { registerWebSocket } from '../gateway/ws/server.ts';
import { RefusalLog } from '../gateway/refusal-log.ts';
import { replicaCommands } from '../gateway/ws/replica-commands.ts';
import { OutputBudget, OUTPUT_BUDGET_BYTES } from '../gateway/output-budget.ts';
import type { WsLimits } from '../gateway/ws/connection.ts';
import { assertNativeUws } from './instance.ts';
import { saveAreaSnapshots, snapshotEvery } from './instance-snapshots.ts';

export interface ReplicaOptions {
  nats: FollowConfig;
  /** the replica's own data: its copy of the log, its snapshots, its position in the stream */
  dataDir: string;
  /** 0 picks a free port */
  port: number;
  host?: string;
  clock?: Clock;
  ids?: Ids;
  log?: (line: string) => void;
  logFile?: string | false;
  streamPingMs?: number;
  wsLimits?: Partial<WsLimits>;
  /** take a local snapshot after this many records applied */
  snapshotEvery?: number;
  /** how long the start waits for NATS to place the replica before it serves what it has */
  placeTimeoutMs?: number;
}

export interface Replica {
  port: number;
  dataDir: string;
  log: EventLog;
  logs: Logs;
  follower: Follower;
  status(): FollowerStatus;
  stop(): Promise<void>;
}

/** Starts a replica: restore its own copy, follow the stream, serve the read side. */
export async function startReplica(options: ReplicaOptions): Promise<Replica> {
  assertNativeUws();
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? randomIds();
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const config = await loadConfiguration(dataDir);
  const logs = new Logs({
    clock,
    config: loggingConfigOf(config.sections, join(dataDir, 'configuration.yaml')),
    lines: options.log,
    file: options.logFile === false ? undefined : (options.logFile ?? join(dataDir, 'hearth-replica.log')),
  });
  const logger = logs.get('hearth.replica');
  // the stream holds every record: a write lost to a crash of this machine is read again
  const log = await openEventLog({ path: join(dataDir, 'log'), commit: 'fast', log: logs.get('hearth.store').warning });

  const entities = new EntityActors({ log, clock });
  const coreConfig = new CoreConfig({ log, clock, configDir: dataDir });
  coreConfig.load(config.core, config.coreFromYaml);
  const registries = new Registries({ log, clock, ids, logLine: logs.get('hearth.registries').info, states: entities });
  const auth = new MirroredAuth({ clock, placement: { deviceOf: (id: string) => registries.deviceOf(id), areaIdOf: (id: string) => registries.areaOf(id)?.area_id } });
  const areas: Area[] = [entities.area, registries.area, coreConfig.area, auth];
  // entities, registries and the auth mirror project what is committed themselves; the core
  // config applies its records only through its own writes, which a replica never makes
  log.onCommit((records) => records.forEach((r) => coreConfig.area.owns(r) && coreConfig.area.evolve(r)));
  auth.follow(log);

  const restored = await restore(log, areas, logger.warning);
  const bus = new Bus(log, logs.get('hearth.bus').error);
  const entityFanout = new EntityFanout(bus);
  const history = new History({ log, current: (id) => entities.get(id) });
  const runState = () => 'RUNNING';
  const deps: ReadDeps = { entities, coreConfig, bus, entityFanout, history, clock, ids, runState, log: logs.get('hearth.http').warning, logs, auth };

  const seed = async (snapshot: ReplicaSnapshot) => {
    for (const area of areas) {
      const part = snapshot.areas[area.name];
      if (!part) continue;
      if (part.version !== area.snapshotVersion) {
        logger.warning(`snapshot of ${area.name} has format ${part.version}, this replica reads ${area.snapshotVersion}: left empty`);
        continue;
      }
      area.restore(part.data);
    }
    await saveSnapshots(snapshot.seq, snapshot.time);
  };
  const saveSnapshots = (seq: number, time = clock.now()) => saveAreaSnapshots(log, areas, seq, time);
  const follower = new Follower({ log, config: options.nats, seed, warn: logger.warning, info: logger.info });
  await follower.start();
  // a fresh replica is seeded before it answers, so no client sees the home fill in
  await Promise.race([follower.ready, new Promise((ok) => setTimeout(ok, options.placeTimeoutMs ?? 5000).unref())]);
  await entities.warmJson();

  const snapshots = snapshotEvery(log, options.snapshotEvery ?? 200_000, () => saveSnapshots(Math.max(log.lastSeq(), follower.applied)), logger);

  const app = uWS.App();
  const httpLog = logs.get('hearth.http');
  const budget = new OutputBudget(OUTPUT_BUDGET_BYTES, httpLog.warning);
  const wsRefusals = new RefusalLog(logs.get('hearth.websocket').info);
  const httpRefusals = new RefusalLog(httpLog.info);
  const ws = registerWebSocket(app, deps, options.wsLimits, budget, { refusals: wsRefusals }, replicaCommands(options.nats.stream));
  const router = new Router({ authenticator: auth, log: httpLog.error, budget, refusals: httpRefusals });
  registerReadApiRoutes(router, deps);
  registerHistoryRoutes(router, deps);
  registerStreamRoute(router, deps, { pingMs: options.streamPingMs, stopEvent: null });
  router.mount(app);
  coreConfig.components.follow(() => router.components());
  const close = async () => {
    (app as unknown as { close(): void }).close();
    bus.complete();
    await log.close();
    wsRefusals.close();
    httpRefusals.close();
    logs.close();
  };
  const host = options.host ?? '0.0.0.0';
  const listenSocket = await listenExclusive(app, host, options.port).catch(async (err) => {
    logger.error((err as Error).message);
    await follower.stop();
    await close();
    throw err;
  });
  const port = uWS.us_socket_local_port(listenSocket);
  // `hearth replay --data <replica data>` reads the replica's copy while it runs
  const logSocket = await serveLog(log, join(dataDir, 'hearth.sock')).catch((err) => {
    logger.warning(`hearth replay cannot reach this replica: ${err.message}`);
    return undefined;
  });
  logger.info(`replica of stream ${options.nats.stream} at ${options.nats.servers.join(', ')}: restored ${restored} records, following after seq ${follower.applied}`);

  let stopping: Promise<void> | undefined;
  return {
    port,
    dataDir,
    log,
    logs,
    follower,
    status: () => follower.status(),
    stop: () =>
      (stopping ??= (async () => {
        uWS.us_listen_socket_close(listenSocket);
        for (const c of ws.connections) c.close();
        await follower.stop();
        await snapshots.pending;
        await snapshots.snapshot();
        await logSocket?.close();
        await close();
      })()),
  };
}
