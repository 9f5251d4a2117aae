import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { AppsView } from '../apps/types.ts';
import type { AppStoreView } from '../apps/store.ts';
import { SupervisorError, notFound } from '../errors.ts';

/**
 * Discovery messages (supervisor-wire §4.12): an app tells the core how to reach a service it
 * runs (`{service: 'mqtt', config: {host, port...}}`); the core turns each into a discovery flow.
 * One stream per message, `supervisor/discovery/<uuid>`, whose last record is the message
 * (`discovery_sent`, also when an app sends a changed config) or its end (`discovery_removed`).
 * Each change is pushed to the core (`POST`/`DELETE /api/hassio_push/discovery/<uuid>`) when
 * its API answers; the core reads the message back with `GET /discovery/<uuid>`.
 */

export const DISCOVERY_PREFIX = 'supervisor/discovery/';
const SNAPSHOT_VERSION = 1;

export interface DiscoveryMessage {
  uuid: string;
  /** the sending app's slug (on the wire `addon` on v1, `app` on v2) */
  app: string;
  service: string;
  config: Record<string, unknown>;
}

/** How a change reaches the core; resolves whether or not the core took it. */
/** A message's records on `supervisor/discovery/<uuid>`. */
export type DiscoveryRecord =
  | { type: 'discovery_sent'; data: DiscoveryMessage }
  | { type: 'discovery_removed'; data: Pick<DiscoveryMessage, 'uuid' | 'app' | 'service'> };
const discoveryRecords = typedRecords<DiscoveryRecord>(DISCOVERY_PREFIX, { discovery_sent: true, discovery_removed: true });

export type DiscoveryPush = (method: 'POST' | 'DELETE', message: DiscoveryMessage) => Promise<void>;

export interface DiscoveryDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  apps: () => AppsView | undefined;
  store: () => AppStoreView | undefined;
  push: DiscoveryPush;
}

const sameConfig = (a: unknown, b: unknown) => JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]));
  return value;
}

export class Discovery implements Area<RecordOf<DiscoveryRecord>> {
  readonly name = 'supervisor-discovery';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = DISCOVERY_PREFIX;
  readonly latestSuffices = true;
  private readonly messages = new Map<string, DiscoveryMessage>();
  /** pushes under way (tests and a stopping supervisor wait for them) */
  private readonly pushes = new Set<Promise<void>>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: DiscoveryDeps) {
    evolveOnCommit(deps.log, this);
  }

  owns(record: EventRecord): record is RecordOf<DiscoveryRecord> {
    return discoveryRecords.owns(record);
  }

  evolve(record: RecordOf<DiscoveryRecord>): void {
    const uuid = record.stream.slice(DISCOVERY_PREFIX.length);
    if (record.type === 'discovery_sent') this.messages.set(uuid, record.data);
    else this.messages.delete(uuid);
  }

  snapshot(): unknown {
    return [...this.messages.values()];
  }

  restore(data: unknown): void {
    for (const m of data as DiscoveryMessage[]) this.messages.set(m.uuid, m);
  }

  /** Every message, oldest first. */
  all(): DiscoveryMessage[] {
    return [...this.messages.values()];
  }

  /** GET /discovery: messages of apps that are started now, and who declares which service. */
  overview(): { discovery: DiscoveryMessage[]; services: Record<string, string[]> } {
    const apps = this.deps.apps();
    const discovery = this.all().filter((m) => apps?.get(m.app)?.state === 'started');
    const services: Record<string, string[]> = {};
    const declare = (slug: string, names: string[]) => {
      for (const name of names) if (!(services[name] ??= []).includes(slug)) services[name].push(slug);
    };
    // the original walks installed and store apps alike
    for (const app of apps?.list() ?? []) declare(app.slug, app.config.discovery);
    for (const app of this.deps.store()?.apps() ?? []) declare(app.key, app.config.discovery);
    return { discovery, services };
  }

  /** One message; 404 `Discovery message not found`. */
  get(uuid: string): DiscoveryMessage {
    const m = this.messages.get(uuid);
    if (!m) throw notFound('Discovery message not found');
    return m;
  }

  /**
   * An app's message. The same app and service keep their uuid: the same config again changes
   * nothing, a changed one replaces it and is pushed again.
   */
  send(app: { slug: string; discovery: string[] }, service: string, config: Record<string, unknown>, context: Context): Promise<DiscoveryMessage> {
    // one change at a time: two sends of the same app and service must find each other
    const next = this.queue.then(() => this.sendNow(app, service, config, context));
    this.queue = next.catch(() => {});
    return next;
  }

  private async sendNow(app: { slug: string; discovery: string[] }, service: string, config: Record<string, unknown>, context: Context): Promise<DiscoveryMessage> {
    if (!app.discovery.includes(service)) {
      this.deps.logger.error(`App ${app.slug} attempted to send discovery for service ${service} which is not listed in its config. Please report this to the maintainer of the app`);
      throw new SupervisorError('Apps must list services they provide via discovery in their config!', { status: 403 });
    }
    const existing = this.all().find((m) => m.app === app.slug && m.service === service);
    if (existing && sameConfig(existing.config, config)) return existing;
    const message: DiscoveryMessage = { uuid: existing?.uuid ?? this.deps.ids.uuidHex(), app: app.slug, service, config };
    await this.record(message.uuid, { type: 'discovery_sent', data: message }, context);
    this.push('POST', message);
    return message;
  }

  /** DELETE /discovery/<uuid> by the app that sent it; 403 for any other app. */
  async remove(uuid: string, appSlug: string | undefined, context: Context): Promise<void> {
    const message = this.get(uuid);
    if (message.app !== appSlug) throw new SupervisorError("Can't remove discovery message", { status: 403 });
    await this.drop(message, context);
  }

  /** Drops every message of an app (it was uninstalled). */
  async removeApp(slug: string, context: Context): Promise<void> {
    for (const m of this.all()) if (m.app === slug) await this.drop(m, context);
  }

  /** Resolves once the pushes under way have ended. */
  async settled(): Promise<void> {
    while (this.pushes.size) await Promise.all([...this.pushes]);
  }

  private async drop(message: DiscoveryMessage, context: Context) {
    await this.record(message.uuid, { type: 'discovery_removed', data: { uuid: message.uuid, app: message.app, service: message.service } }, context);
    this.push('DELETE', message);
  }

  private async record(uuid: string, kind: DiscoveryRecord, context: Context): Promise<void> {
    await this.deps.log.append([discoveryRecords.make(DISCOVERY_PREFIX + uuid, kind, context, this.deps.clock.now())]);
  }

  private push(method: 'POST' | 'DELETE', message: DiscoveryMessage) {
    const p = this.deps.push(method, message).catch((err) => this.deps.logger.warning(`discovery ${message.uuid} not pushed to the core: ${(err as Error).message}`));
    this.pushes.add(p);
    void p.finally(() => this.pushes.delete(p));
  }
}

/** The push as the original makes it: only when the core's API answers, with `{addon, service, uuid}` (no config). */
export function corePush(api: { up(): Promise<boolean>; request(method: string, path: string, body?: unknown): Promise<Response> }, logger: Logger): DiscoveryPush {
  return async (method, message) => {
    if (!(await api.up())) {
      logger.debug(`the core's API is not up: discovery ${message.uuid} waits until the core lists the messages`);
      return;
    }
    const res = await api.request(method, `/api/hassio_push/discovery/${message.uuid}`, { addon: message.app, service: message.service, uuid: message.uuid });
    if (!res.ok) logger.warning(`the core answered ${res.status} to discovery ${message.uuid}`);
  };
}
