// The composition root of one Hearth instance: it opens the log, builds every area in the order
// their dependencies need, restores them, and wires the gateway. It is a little over 500 lines
// because it is the one place that knows them all; the routes (instance-routes.ts) and the
// snapshots (instance-snapshots.ts) live beside it.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import uWS from '@trufflesuite/uws-js-unofficial';
import { openEventLog } from '../store/log.ts';
import { startEmbeddedBroker } from '../actors/mqtt/embedded-broker.ts';
import { restoreLogFromExport } from '../store/log-restore.ts';
import { CoreBackup } from '../actors/backup/core-backup.ts';
import { serveLog } from '../store/log-socket.ts';
import type { EventLog, EventRecord, Context } from '../store/types.ts';
import { systemClock, randomIds, type Clock, type Ids } from '../actors/clock.ts';
import type { Area } from '../actors/area.ts';
import { restore } from '../actors/restore.ts';
import { authGroupsOfCore, authProvidersOfCore, loadConfiguration, mfaModulesOfCore, type Configuration } from '../actors/core/configuration.ts';
import { CoreConfig } from '../actors/core/core-config.ts';
import { coreServices } from '../actors/core/services.ts';
import { EntityActors } from '../actors/entities/registry.ts';
import { HelperActors } from '../actors/entities/helpers.ts';
import { helperDomains } from '../actors/entities/domains/index.ts';
import { followRegistryUpdates } from '../actors/entities/overrides.ts';
import { VirtualPlatforms } from '../actors/entities/platforms/index.ts';
import { ServiceRegistry } from '../actors/services/registry.ts';
import { ServiceError } from '../actors/services/types.ts';
import { createAuth } from '../actors/auth/index.ts';
import { IpBans, proxyList } from '../actors/auth/ip-bans.ts';
import { Registries } from '../actors/registries/index.ts';
import { helperEntries } from '../actors/registries/helper-entries.ts';
import { Bus } from '../streams/bus.ts';
import { EntityFanout } from '../streams/entity-fanout.ts';
import { Templates } from '../actors/templates/index.ts';
import { templateHomeOf } from '../actors/registries/template-home.ts';
import { platformRegistrarOf } from '../actors/registries/platform-registrar.ts';
import { Router } from '../gateway/router.ts';
import { listenExclusive } from '../gateway/listen.ts';
import type { CoreDeps } from '../gateway/core.ts';
import { STOP_EVENT } from '../gateway/routes/stream.ts';
import { History } from '../actors/history/history.ts';
import { Explorer } from '../actors/explorer/explorer.ts';
import { SupervisorClient, supervisorFromEnv, type SupervisorEndpoint } from '../actors/supervisor-client/client.ts';
import { withSupervisorCommands } from '../gateway/ws/supervisor-commands.ts';
import { registerHassioIngress } from '../gateway/routes/hassio-ingress.ts';
import { coreCommands } from '../gateway/ws/commands.ts';
import { FrontendUserData } from '../actors/frontend/user-data.ts';
import { Panels } from '../actors/frontend/panels.ts';
import { Translations } from '../actors/frontend/translations.ts';
import { DeviceAutomations } from '../actors/device-automation/index.ts';
import { Tags } from '../actors/tags/tags.ts';
import { AppPanels } from '../actors/supervisor-client/app-panels.ts';
import { registerWebSocket } from '../gateway/ws/server.ts';
import { OutputBudget, OUTPUT_BUDGET_BYTES } from '../gateway/output-budget.ts';
import type { WsLimits } from '../gateway/ws/connection.ts';
import { Logs } from '../actors/logging/logs.ts';
import type { LineLimit } from '../actors/logging/rate-limited.ts';
import { RefusalLog } from '../gateway/refusal-log.ts';
import { loggingConfigOf } from '../actors/logging/config.ts';
import { loggingServices } from '../actors/logging/services.ts';
import { TimerManager } from '../actors/intents/timers/manager.ts';
import { registerTimerIntents } from '../actors/intents/timers/handlers.ts';
import { IntentRegistry } from '../actors/intents/registry.ts';
import { IntentPlatforms } from '../actors/intents/platforms.ts';
import { builtinIntents, domainIntents } from '../actors/intents/builtin/index.ts';
import { Conversation } from '../actors/conversation/index.ts';
import { Mobile } from '../actors/mobile/index.ts';
import { MobileSensors } from '../actors/mobile/sensors.ts';
import { Hassio } from '../actors/supervisor-client/hassio.ts';
import { DiscoveryFlows } from '../actors/supervisor-client/discovery-flows.ts';
import { readJson } from '../gateway/body.ts';
import { MobilePush } from '../actors/mobile/push.ts';
import { NatsExporter, lagWriter, STATUS_FILE } from '../actors/export/nats-exporter.ts';
import { REPLICA_AREAS } from '../actors/replica/snapshots.ts';
import { MirroredAuth } from '../actors/auth/mirror.ts';
import { Mqtt } from '../actors/mqtt/index.ts';
import { registerCoreRoutes } from './instance-routes.ts';
import { saveAreaSnapshots, snapshotEvery, startRecorderPurge } from './instance-snapshots.ts';

/** How to build one Hearth instance. Nothing is read from module-level state. */
export interface HearthOptions {
  /** data directory: the log and configuration.yaml */
  dataDir: string;
  /** 0 picks a free port */
  port: number;
  host?: string;
  clock?: Clock;
  ids?: Ids;
  /** receives the text of every record logged (tests); without it records go to stdout */
  log?: (line: string) => void;
  /** stdout as readable lines (default) or JSON lines */
  logFormat?: 'text' | 'json';
  /** the log file that GET /api/error_log serves: `<data>/hearth.log` by default, false for none */
  logFile?: string | false;
  /** SSE keep-alive interval (tests shorten it) */
  streamPingMs?: number;
  /** WebSocket limits (tests shrink them to see a slow client dropped) */
  wsLimits?: Partial<WsLimits>;
  /** bytes that may wait for slow SSE and WebSocket clients, all together (default 64 MiB) */
  outputBudgetBytes?: number;
  /** lines of each kind of refused request logged per window (default 10 a minute; tests shorten the window) */
  refusalLineLimit?: LineLimit;
  /** take a snapshot after this many committed records */
  snapshotEvery?: number;
  /** companion apps' push deadlines (tests shorten them) */
  mobilePush?: { confirmTimeoutMs?: number; relayTimeoutMs?: number };
  /** asked to end the process (core.stop) */
  onStop?: () => void;
  /** asked to restart (core.restart) */
  onRestart?: () => void;
  /** the supervisor that runs this core; from env SUPERVISOR and SUPERVISOR_TOKEN when not given, null for none */
  supervisor?: SupervisorEndpoint | null;
}

/** A running instance. */
export interface Hearth {
  port: number;
  dataDir: string;
  log: EventLog;
  /** its loggers, their levels and the system log */
  logs: Logs;
  /** how long the restore from snapshot plus log tail took, and how many records it read */
  restore: { ms: number; records: number };
  /** saves snapshots of every area now */
  snapshot(): Promise<void>;
  /** areas, floors, labels, devices and entities (platforms call ensureDevice/ensureEntity) */
  registries: Registries;
  /** the voice timers of CoreStartTimer and friends */
  intentTimers: TimerManager;
  /** integrations' intent platforms (`registerIntentPlatform`) and through them the intent handlers */
  intentPlatforms: IntentPlatforms;
  /** companion apps: registrations and the webhook action table (`mobile.actions.register`) */
  mobile: Mobile;
  /** companion apps' push notifications (notify services, local push channels) */
  mobilePush: MobilePush;
  /** the NATS mirror of the log, when `recorder: export: nats:` configures one */
  exporter?: NatsExporter;
  /** prunes history older than `recorder: purge_keep_days` that a snapshot covers; resolves to the count */
  purge(): Promise<number>;
  /** stops accepting requests, records core_stop, snapshots, and closes the log */
  stop(): Promise<void>;
}

/** Refuses to run on uWS's slow JavaScript fallback. */
export function assertNativeUws(): void {
  if (!String(uWS.App).includes('[native code]')) {
    throw new Error('HEARTH_UWS: the native uWebSockets.js binary did not load (fallback shim in use); refusing to run');
  }
}

/**
 * Builds and starts an instance: restore, services, helpers, gateway. Its HTTP routes are
 * registered by instance-routes.ts; its snapshots and the recorder's purge are instance-snapshots.ts.
 */
export async function startHearth(options: HearthOptions): Promise<Hearth> {
  assertNativeUws();
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? randomIds();
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const config: Configuration = await loadConfiguration(dataDir);
  const logging = loggingConfigOf(config.sections, join(dataDir, 'configuration.yaml'));
  const logs = new Logs({
    clock,
    config: logging,
    lines: options.log,
    format: options.logFormat,
    file: options.logFile === false ? undefined : (options.logFile ?? join(dataDir, 'hearth.log')),
  });
  const coreLog = logs.get('hearth.core');
  const httpLog = logs.get('hearth.http');

  // a restored backup brings the log as an export: it becomes the log before the log opens
  await restoreLogFromExport(dataDir, logs.get('hearth.store').info);
  const log = await openEventLog({ path: join(dataDir, 'log'), commit: config.recorder.commit, log: logs.get('hearth.store').warning });
  let runState = 'NOT_RUNNING';
  const systemContext = (): Context => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: null });

  const entities = new EntityActors({ log, clock });
  const coreConfig = new CoreConfig({ log, clock, configDir: dataDir });
  coreConfig.load(config.core, config.coreFromYaml);
  const registries = new Registries({ log, clock, ids, logLine: logs.get('hearth.registries').info, states: entities });
  // policies by device and area ask the registries where an entity sits, when a check runs
  const placement = { deviceOf: (id: string) => registries.deviceOf(id), areaIdOf: (id: string) => registries.areaOf(id)?.area_id };
  const auth = createAuth({
    log,
    clock,
    ids,
    config: {
      logLine: logs.get('hearth.auth').warning,
      mfaModules: mfaModulesOfCore(config.core),
      groups: authGroupsOfCore(config.core),
      providers: authProvidersOfCore(config.core),
      trustedProxies: config.http.trusted_proxies,
      placement,
    },
  });
  const bans = new IpBans({ log, clock, ids, logLine: logs.get('hearth.http.ban').warning, config: { enabled: config.http.ip_ban_enabled, threshold: config.http.login_attempts_threshold } });
  const areas: Area[] = [entities.area, coreConfig.area, auth.area, bans.area, registries.area];
  // the public side of auth as replicas hold it: kept here only for the replicas' snapshot in NATS
  const authMirror = new MirroredAuth({ clock });
  authMirror.follow(log);
  areas.push(authMirror);
  const intentTimers = new TimerManager({ log, clock, ids, places: registries, logLine: logs.get('hearth.intent').warning });
  areas.push(intentTimers.area);
  const mobile = new Mobile({ log, clock, ids, registries, readJson, warn: logs.get('hearth.mobile_app').warning, newContext: (userId) => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: userId }) });
  areas.push(mobile.registrations);
  const mobileSensors = new MobileSensors({
    log,
    clock,
    entities,
    registries,
    registrations: mobile.registrations,
    configEntryOf: (webhookId) => mobile.registrations.entries().find((e) => e.registration.webhook_id === webhookId)?.entry_id,
    logLine: logs.get('hearth.mobile_app').warning,
  });
  areas.push(mobileSensors.area);
  const frontendUserData = new FrontendUserData({ log, clock });
  areas.push(frontendUserData);
  const tags = new Tags({ log, clock, entities, logLine: logs.get('hearth.tag').warning });
  areas.push(tags);
  // MQTT: its recorded discovery configs and config entry are restored with the rest
  const mqtt = new Mqtt({ log, clock, ids });
  areas.push(...mqtt.areas());

  const started = performance.now();
  const records = await restore(log, areas, coreLog.warning);
  const restoreMs = performance.now() - started;
  // users and tokens from before authpub/ (or a changed group policy) reach read replicas too
  await auth.publishCatchUp();
  runState = 'STARTING';

  const bus = new Bus(log, logs.get('hearth.bus').error);
  const services = new ServiceRegistry({ log, clock, entities, caller: (userId) => auth.caller(userId), targets: registries, logLine: logs.get('hearth.services').warning });
  const fireEvent = async (eventType: string, data: Record<string, unknown>, origin: 'LOCAL' | 'REMOTE', context: Context): Promise<EventRecord> => {
    const [record] = await log.append([{ time: clock.now(), stream: 'bus', type: eventType, data, context, origin }]);
    return record;
  };
  tags.start({ fireEvent });
  if (logging.systemLog.fireEvent) {
    logs.onCaptured((entry) => {
      // the store reports its own failures: an event for each would fail, and report, again
      if (entry.name === 'hearth.store') return;
      fireEvent('system_log_event', { ...entry }, 'LOCAL', systemContext()).catch(() => {});
    });
  }

  const overrides = (entityId: string) => registries.entityOverrides(entityId);
  const helpers = helperDomains.map((d) => new HelperActors(d, entities, clock, logs.get('hearth.entities').warning, overrides, () => coreConfig.timeZone()));
  // a helper lives under its registry entry's entity id, which the user may have renamed
  const configureHelper = async (h: HelperActors, section: unknown, context: Context) => {
    const entries = await registries.syncPlatform(h.domain.domain, helperEntries(h.domain, section), context);
    const idOf = new Map(entries.map((e) => [e.unique_id, e.entity_id]));
    await h.configure(section, context, (objectId) => idOf.get(objectId));
  };
  // a broken file is refused as a whole before anything changes
  const reloading = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      coreLog.error(`reload of ${what} refused: ${(err as Error).message}`);
      throw new ServiceError('home_assistant_error', `Cannot reload ${what}: ${(err as Error).message}`);
    }
  };
  const reloadDomain = (h: HelperActors) => (context: Context) =>
    reloading(h.domain.domain, async () => {
      const fresh = await loadConfiguration(dataDir);
      await configureHelper(h, fresh.sections[h.domain.domain], context);
    });
  // registrations share group commits instead of one fsync each
  await Promise.all(helpers.flatMap((h) => h.specs(reloadDomain(h)).map((spec) => services.register(spec, systemContext()))));
  for (const h of helpers) await configureHelper(h, config.sections[h.domain.domain], systemContext());
  const platforms = new VirtualPlatforms({
    entities,
    services,
    clock,
    log: logs.get('hearth.platforms').warning,
    registrar: platformRegistrarOf(registries),
    newContext: systemContext,
    fireEvent: (eventType, data, context) => fireEvent(eventType, data, 'LOCAL', context),
    readSections: async () => (await loadConfiguration(dataDir)).sections,
    onCommit: (listener) => log.onCommit(listener),
    overrides,
    coreLocation: () => {
      const c = coreConfig.asDict(runState);
      return { name: String(c.location_name), latitude: Number(c.latitude), longitude: Number(c.longitude), radius: Number(c.radius) };
    },
  });
  await platforms.configure(config.sections, systemContext());
  followRegistryUpdates({ onCommit: (l) => log.onCommit(l), followers: () => [...helpers, ...platforms.followers()], newContext: systemContext, log: logs.get('hearth.entities').warning });

  let stopping: Promise<void> | undefined;
  const instance: Partial<Hearth> = {};
  const core = coreServices({
    services,
    entities,
    coreConfig,
    reloadCoreConfig: (context) =>
      reloading('the core configuration', async () => {
        const fresh = await loadConfiguration(dataDir);
        coreConfig.load(fresh.core, fresh.coreFromYaml);
        await fireEvent('core_config_updated', {}, 'LOCAL', context);
      }),
    stop: () => setImmediate(() => (options.onStop ? options.onStop() : void instance.stop!())),
    restart: () => setImmediate(() => options.onRestart?.()),
    log: coreLog.warning,
  });
  await Promise.all(core.map((spec) => services.register(spec, systemContext())));
  await Promise.all(loggingServices({ logs, fireEvent }).map((spec) => services.register(spec, systemContext())));
  // read once: a supervisor hands its core the address and token in the container's environment
  const supervisorEndpoint = options.supervisor === undefined ? supervisorFromEnv(process.env) : (options.supervisor ?? undefined);
  // the loaded components are read from what is registered: every domain with a service, the
  // domains the platforms set up; routes and WebSocket commands are added where they are served
  coreConfig.components.follow(() => services.domains());
  coreConfig.components.follow(() => platforms.components());
  // the event log is the recorder
  coreConfig.components.follow(() => ['recorder']);

  const entityFanout = new EntityFanout(bus);
  const history = new History({ log, current: (id) => entities.get(id) });
  const explorer = new Explorer({ log, userName: (id) => auth.user(id)?.name });
  const templates = new Templates({ entities, coreConfig, clock, home: templateHomeOf(registries) });
  bus.listen('state_changed', 'subscribed templates', (r) => r.stream.startsWith('entity/') && templates.stateChanged(r.data.entity_id, r.data.old_state, r.data.new_state));
  const intents = new IntentRegistry(logs.get('hearth.intent').warning);
  const intentPlatforms = new IntentPlatforms(intents, { entities, services, registries, coreConfig, clock, log: logs.get('hearth.intent').warning });
  const deps: CoreDeps = { entities, services, coreConfig, auth, registries, bus, entityFanout, history, explorer, frontendUserData, tags, templates, intents, intentPlatforms, clock, ids, runState: () => runState, fireEvent, log: httpLog.warning, logs };
  deps.coreBackup = new CoreBackup({ log, dataDir, areas, logLine: logs.get('hearth.backup').info });
  if (supervisorEndpoint) deps.supervisor = new SupervisorClient(supervisorEndpoint);
  deps.panels = new Panels({ fireEvent, logger: logs.get('hearth.frontend') });
  deps.deviceAutomations = new DeviceAutomations({
    getDevice: (id) => registries.getDevice(id),
    entitiesOfDevice: (id) => registries.entitiesOfDevice(id),
    getEntity: (id) => registries.getEntity(id),
    state: (id) => entities.get(id),
  });
  deps.translations = new Translations({ components: () => coreConfig.components.list(), services: () => services.describe() });
  const appPanels = deps.supervisor && new AppPanels({ client: deps.supervisor, panels: deps.panels, logger: logs.get('hearth.hassio'), context: systemContext });
  const hassio = deps.supervisor && new Hassio({ client: deps.supervisor, auth, flows: (deps.discoveryFlows = new DiscoveryFlows({ log, clock, ids })), logger: logs.get('hearth.hassio'), context: systemContext });
  deps.discoveryFlows?.registerHandler('mqtt', mqtt.hassioFlow());
  await intentPlatforms.registerIntentPlatform('intent', builtinIntents);
  await intentPlatforms.registerIntentPlatform('intent', (registry, home) => registerTimerIntents(registry, intentTimers, home.registries));
  for (const [domain, platform] of Object.entries(domainIntents)) await intentPlatforms.registerIntentPlatform(domain, platform);
  // every loaded integration's intent platform, and the intent integration's own handlers
  await intentPlatforms.setup(['intent', ...coreConfig.components.list()]);
  const conversation = new Conversation({ configDir: dataDir, intents, templates, entities, registries, eventLog: log, clock, ids, language: () => String(coreConfig.asDict(runState).language ?? 'en'), configIntents: async () => ((await loadConfiguration(dataDir)).sections.conversation as { intents?: unknown } | undefined)?.intents, log: logs.get('hearth.conversation').warning });
  deps.conversation = conversation;
  intentTimers.setCommandHook(conversation.timerCommandHook());
  await conversation.start();
  await Promise.all(conversation.services().map((spec) => services.register(spec, systemContext())));
  mobile.start({ services, entities, coreConfig, templates, conversation, runState: () => runState, fireEvent, scanTag: (tagId, deviceId, context) => tags.scan(tagId, deviceId, context) });
  deps.mobile = mobile;
  // the app's sensors and device tracker: their webhook actions, get_config's entities, registry changes
  await mobileSensors.start({ actions: mobile.actions, newContext: systemContext });
  coreConfig.components.follow(() => mobileSensors.components());
  mobile.entitiesOf = (r) => mobileSensors.entitiesOf(r);
  followRegistryUpdates({ onCommit: (l) => log.onCommit(l), followers: () => [mobileSensors], newContext: systemContext, log: logs.get('hearth.mobile_app').warning });
  const mobilePush = new MobilePush({
    registrations: mobile.registrations,
    services,
    log,
    clock,
    ids,
    logger: logs.get('hearth.mobile_app.push'),
    confirmTimeoutMs: options.mobilePush?.confirmTimeoutMs,
    relayTimeoutMs: options.mobilePush?.relayTimeoutMs,
    render: (source) => {
      const out = templates.render(source, undefined);
      // text without template syntax is sent as given (the original's static template)
      if (out.ok) return { ok: true, text: out.isStatic ? source : out.text };
      return { ok: false, error: String(out.error) };
    },
  });
  deps.mobilePush = mobilePush;
  mobilePush.registerActions(mobile.actions);
  await mobilePush.sync(systemContext());
  // notify services follow the registrations as they are made, changed and deleted
  mobile.registrations.onChange(() => mobilePush.resync(systemContext()));

  // MQTT: a broker from configuration.yaml or the supervisor's, discovery, YAML entities
  await mqtt.start(config.sections.mqtt, {
    log,
    clock,
    ids,
    entities,
    registries,
    services,
    templates,
    logger: logs.get('hearth.mqtt'),
    configDir: dataDir,
    readSection: async () => (await loadConfiguration(dataDir)).sections.mqtt,
    fireEvent: (eventType, data, context) => fireEvent(eventType, data, 'LOCAL', context),
    embeddedBroker: startEmbeddedBroker,
  });
  deps.mqtt = mqtt;
  coreConfig.components.follow(() => mqtt.components());
  followRegistryUpdates({ onCommit: (l) => log.onCommit(l), followers: () => [mqtt.follower()], newContext: systemContext, log: logs.get('hearth.mqtt').warning });

  // every state's JSON is made before the first client can ask: the first GET /api/states
  // after a restart is then a join, as every later one is
  await entities.warmJson();

  const app = uWS.App();
  const budget = new OutputBudget(options.outputBudgetBytes ?? OUTPUT_BUDGET_BYTES, httpLog.warning);
  const forwarded = { use: config.http.use_x_forwarded_for, trusted: proxyList(config.http.trusted_proxies) };
  const wsRefusals = new RefusalLog(logs.get('hearth.websocket').info, options.refusalLineLimit);
  const httpRefusals = new RefusalLog(httpLog.info, options.refusalLineLimit);
  const ws = registerWebSocket(app, deps, options.wsLimits, budget, { bans, forwarded, refusals: wsRefusals }, supervisorEndpoint ? withSupervisorCommands(coreCommands) : undefined);
  // the core's hop of ingress to the supervisor's proxy; without a supervisor the path is unknown (404)
  if (supervisorEndpoint) registerHassioIngress(app, { supervisorUrl: supervisorEndpoint.url, log: httpLog.warning });
  const router = new Router({ authenticator: auth, corsOrigins: config.http.cors_allowed_origins, log: httpLog.error, budget, bans, forwarded, refusals: httpRefusals });
  registerCoreRoutes(router, deps, {
    auth,
    bans,
    clock,
    ids,
    conversation,
    mobile,
    otherEntries: () => mqtt.configEntryJson(),
    port: () => port,
    streamPingMs: options.streamPingMs,
    hassio: hassio ? { hassio, appPanels, supervisorUrl: supervisorEndpoint?.url } : undefined,
  });
  router.mount(app);
  coreConfig.components.follow(() => router.components());

  // what start set in motion, stopped: by stop(), and when the port is refused
  const quiesce = async () => {
    // channels end quietly: nothing is re-sent while the log closes
    mobilePush.stop();
    for (const c of ws.connections) c.close();
    // no machine moves (a cover, a timer) once the log is closing
    await platforms.stop();
    await mqtt.stop();
    conversation.stop();
    await intentTimers.stop();
  };
  const close = async () => {
    // keep-alive connections would otherwise still reach this stopped instance after a
    // restart; close() (missing from the type definitions of this build) ends them all
    (app as unknown as { close(): void }).close();
    runState = 'STOPPED';
    bus.complete();
    await log.close();
    wsRefusals.close();
    httpRefusals.close();
    logs.close();
  };

  const host = options.host ?? '0.0.0.0';
  const listenSocket = await listenExclusive(app, host, options.port).catch(async (err) => {
    coreLog.error((err as Error).message);
    await quiesce();
    await bans.settled();
    await close();
    throw err;
  });
  const port = uWS.us_socket_local_port(listenSocket);

  // `hearth replay` reads the log through this socket while LevelDB's lock keeps it out
  const socketPath = join(dataDir, 'hearth.sock');
  const logSocket = await serveLog(log, socketPath).catch((err) => {
    coreLog.warning(`hearth replay cannot reach this instance: no log socket at ${socketPath} (${err.message})`);
    return undefined;
  });

  // the log mirrored to NATS JetStream (recorder: export: nats:), beside the write path
  const natsConfig = config.recorder.export.nats;
  // the areas a replica serves, as they are at the log's last seq, for its snapshot in NATS
  const replicaAreas = areas.filter((a) => (REPLICA_AREAS as readonly string[]).includes(a.name));
  const replicaSnapshot = () => ({ seq: log.lastSeq(), parts: replicaAreas.map((a) => ({ name: a.name, version: a.snapshotVersion, data: a.snapshot() })) });
  const exporter = natsConfig && new NatsExporter({ log, config: natsConfig, snapshot: replicaSnapshot, writeLag: lagWriter((id, w, c) => entities.write(id, w, c), systemContext), statusPath: join(dataDir, STATUS_FILE), warn: logs.get('hearth.export').warning, info: logs.get('hearth.export').info });
  exporter?.start();

  await fireEvent('core_start', {}, 'LOCAL', systemContext());
  runState = 'RUNNING';
  await fireEvent('core_started', {}, 'LOCAL', systemContext());
  // in the background: a supervisor that is slow to answer must not hold the core's start
  void hassio?.start().catch((err) => logs.get('hearth.hassio').error(`the supervisor's integration did not start: ${(err as Error).message}`));
  void appPanels?.load().catch((err) => logs.get('hearth.hassio').error(`the apps' panels were not registered: ${(err as Error).message}`));
  // timers restored active count on from the wall clock; those due while stopped finish now
  await intentTimers.resume();

  // a snapshot of 100k entities blocks the loop ~0.3 s; 200k records of tail replay in under 2 s
  const snapshots = snapshotEvery(log, options.snapshotEvery ?? 200_000, () => saveAreaSnapshots(log, areas, log.lastSeq(), clock.now()), coreLog);
  const recorder = startRecorderPurge({ log, areas, clock, keepDays: config.recorder.purge_keep_days, logger: logs.get('hearth.recorder') });

  Object.assign(instance, {
    port,
    dataDir,
    log,
    logs,
    registries,
    intentTimers,
    intentPlatforms,
    mobile,
    mobilePush,
    exporter,
    restore: { ms: restoreMs, records },
    snapshot: snapshots.snapshot,
    purge: recorder.purge,
    stop: () =>
      (stopping ??= (async () => {
        runState = 'STOPPING';
        recorder.stop();
        await fireEvent(STOP_EVENT, {}, 'LOCAL', systemContext());
        uWS.us_listen_socket_close(listenSocket);
        await quiesce();
        await exporter?.stop();
        await snapshots.pending;
        await bans.settled();
        await snapshots.snapshot();
        await logSocket?.close();
        await close();
      })()),
  });
  return instance as Hearth;
}
