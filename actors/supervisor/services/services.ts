import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock } from '../../clock.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { AppsView, InstalledApp } from '../apps/types.ts';
import { SupervisorError, keyedError, notFound } from '../errors.ts';

/**
 * The services apps provide each other (supervisor-wire §4.11): a provider app publishes how to
 * reach its broker or database, consumers read it. One stream per service,
 * `supervisor/service/<name>`, whose last record is the service's state: `service_provided`
 * (the fields and the providing app's slug under `app`) or `service_removed`.
 */

export const SERVICE_PREFIX = 'supervisor/service/';
const SNAPSHOT_VERSION = 1;

/** The services the supervisor knows, in the original's order. */
export const SERVICE_NAMES = ['mqtt', 'mysql'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** What an app declares for a service in its config (`mqtt:provide`, `mysql:want`, `mqtt:need`). */
export type ServiceRole = 'provide' | 'want' | 'need';

/** A service's data as stored: the published fields plus `app`, the provider's slug. */
export type ServiceData = Record<string, unknown> & { app: string };

/** A service's records on `supervisor/service/<name>`. */
export type ServiceRecord = { type: 'service_provided'; data: ServiceData } | { type: 'service_removed'; data: { app: string } };
const serviceRecords = typedRecords<ServiceRecord>(SERVICE_PREFIX, { service_provided: true, service_removed: true });

/** `{mqtt: 'provide'}` from an app's `services: ["mqtt:provide"]`. */
export function servicesRoleOf(app: Pick<InstalledApp, 'config'> | undefined): Record<string, ServiceRole> {
  const roles: Record<string, ServiceRole> = {};
  for (const entry of app?.config.services ?? []) {
    const [name, role] = entry.split(':');
    if (name && (role === 'provide' || role === 'want' || role === 'need')) roles[name] = role;
  }
  return roles;
}

export function isServiceName(name: string): name is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(name);
}

export class Services implements Area<RecordOf<ServiceRecord>> {
  readonly name = 'supervisor-services';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = SERVICE_PREFIX;
  readonly latestSuffices = true;
  private readonly stored = new Map<string, ServiceData>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { log: EventLog; clock: Clock; apps: () => AppsView | undefined }) {
    evolveOnCommit(deps.log, this);
  }

  owns(record: EventRecord): record is RecordOf<ServiceRecord> {
    return serviceRecords.owns(record);
  }

  evolve(record: RecordOf<ServiceRecord>): void {
    const name = record.stream.slice(SERVICE_PREFIX.length);
    if (record.type === 'service_provided') this.stored.set(name, record.data);
    else this.stored.delete(name);
  }

  snapshot(): unknown {
    return Object.fromEntries(this.stored);
  }

  restore(data: unknown): void {
    for (const [k, v] of Object.entries(data as Record<string, ServiceData>)) this.stored.set(k, v);
  }

  /** GET /services: each service, whether data is published, and the installed apps that declare to provide it. */
  list(): Array<{ slug: ServiceName; available: boolean; providers: string[] }> {
    const installed = this.deps.apps()?.list() ?? [];
    return SERVICE_NAMES.map((slug) => ({
      slug,
      available: this.stored.has(slug),
      providers: installed.filter((app) => servicesRoleOf(app)[slug] === 'provide').map((app) => app.slug),
    }));
  }

  /** The published data; 404 for a service the supervisor does not know, 400 when none is published. */
  read(name: string): ServiceData {
    this.known(name);
    const data = this.stored.get(name);
    if (!data) throw new SupervisorError('Service not enabled');
    return data;
  }

  /** Publishes `fields` (already checked against the service's schema) for `app`; 409 when another publication stands. */
  provide(name: string, app: string, fields: Record<string, unknown>, context: Context): Promise<void> {
    // one publication at a time: of two apps publishing at once, the second gets the 409
    const next = this.queue.then(() => this.provideNow(name, app, fields, context));
    this.queue = next.catch(() => {});
    return next;
  }

  private async provideNow(name: string, app: string, fields: Record<string, unknown>, context: Context): Promise<void> {
    this.known(name);
    const current = this.stored.get(name);
    if (current) throw keyedError(409, 'service_already_provided_error', 'The {service} service is already provided by {app}', { service: name, app: current.app });
    const data: ServiceData = { ...fields, app };
    await this.record(name, { type: 'service_provided', data }, context);
  }

  /** Withdraws the publication (as the original, whichever provider made it); 404 when there is none. */
  async remove(name: string, app: string, context: Context): Promise<void> {
    this.known(name);
    if (!this.stored.has(name)) throw keyedError(404, 'service_not_provided_error', 'The {service} service is not currently provided by any app', { service: name });
    await this.record(name, { type: 'service_removed', data: { app } }, context);
  }

  private async record(name: string, kind: ServiceRecord, context: Context): Promise<void> {
    await this.deps.log.append([serviceRecords.make(SERVICE_PREFIX + name, kind, context, this.deps.clock.now())]);
  }

  /** Withdraws what an app published (it was uninstalled). */
  async removeApp(slug: string, context: Context): Promise<void> {
    for (const [name, data] of this.stored) {
      if (data.app === slug) await this.record(name, { type: 'service_removed', data: { app: slug } }, context);
    }
  }

  /** Whether `slug`'s config lists the service (`provide` asks for the provider role). */
  static mayUse(app: InstalledApp | undefined, name: string, provide = false): boolean {
    const role = servicesRoleOf(app)[name];
    return provide ? role === 'provide' : role !== undefined;
  }

  private known(name: string): asserts name is ServiceName {
    if (!isServiceName(name)) throw notFound('Service does not exist');
  }
}
