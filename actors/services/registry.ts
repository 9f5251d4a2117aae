import type { Clock } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import type { EntityState } from '../entities/types.ts';
import { entityRecords, type EntityActors } from '../entities/registry.ts';
import { domainOf, validEntityId } from '../entities/state.ts';
import { ServiceError, Unauthorized, type ServiceDescription, type ServiceSpec } from './types.ts';
import { validate } from './validate.ts';
import { pyRepr } from '../../machines/python/repr.ts';
import { sharedService } from './shared.ts';
import type { EntityPermissions } from '../auth/permissions.ts';
import type { TargetRefs, TargetResolver } from './targets.ts';

/** The user a call's context names, as far as the registry checks it. */
export interface Caller {
  isAdmin: boolean;
  permissions: EntityPermissions;
}

/** Keys of a call that name its targets rather than its data. */
const TARGET_KEYS = ['entity_id', 'device_id', 'area_id', 'floor_id', 'label_id'] as const;

export interface CallRequest {
  domain: string;
  service: string;
  /** service data, may include target keys */
  data: Record<string, unknown>;
  /** the WebSocket `target` object */
  target?: Record<string, unknown>;
  context: Context;
  returnResponse: boolean;
}

export interface CallResult {
  /** new states of every state_changed committed with the call's context during the call */
  changedStates: EntityState[];
  response?: Record<string, unknown>;
}

/** Stream of a domain's service records in the log. */
const serviceStream = (domain: string) => `service/${domain}`;

/**
 * The service registry: services as data (description, schema, handler), calls validated
 * against the schema, `service_registered` and `call_service` recorded in the log.
 */
export class ServiceRegistry {
  private readonly services = new Map<string, Map<string, ServiceSpec>>();
  private readonly collectors = new Map<string, EntityState[]>();

  constructor(
    private readonly deps: {
      log: EventLog;
      clock: Clock;
      entities: EntityActors;
      /** the user of a context's user_id, undefined when there is none; without it nothing is checked */
      caller?: (userId: string) => Caller | undefined;
      /** the registries, which turn device, area, floor and label targets into entities */
      targets?: TargetResolver;
      logLine?: (line: string) => void;
    },
  ) {
    deps.log.onCommit((records) => {
      if (this.collectors.size === 0) return;
      for (const r of records) this.collect(r);
    });
  }

  private collect(r: EventRecord): void {
    if (!entityRecords.owns(r) || r.type !== 'state_changed') return;
    const list = this.collectors.get(r.context.id);
    const next = r.data.new_state;
    if (list && next) list.push(next);
  }

  /** Registers a service and records `service_registered` (origin LOCAL). */
  async register(spec: ServiceSpec, context: Context): Promise<void> {
    let domain = this.services.get(spec.domain);
    if (!domain) {
      domain = new Map();
      this.services.set(spec.domain, domain);
    }
    const registered = domain.get(spec.service);
    if (registered && (registered.owns || spec.owns)) {
      // another platform's entities under a service already there: one service, registered once
      domain.set(spec.service, sharedService(registered, spec));
      return;
    }
    domain.set(spec.service, spec);
    await this.deps.log.append([
      {
        time: this.deps.clock.now(),
        stream: serviceStream(spec.domain),
        type: 'service_registered',
        data: { domain: spec.domain, service: spec.service },
        context,
        origin: 'LOCAL',
      },
    ]);
  }

  /** Removes a service and records `service_removed` (origin LOCAL); false when there was none. */
  async remove(domain: string, service: string, context: Context): Promise<boolean> {
    const services = this.services.get(domain);
    if (!services?.delete(service)) return false;
    if (services.size === 0) this.services.delete(domain);
    await this.deps.log.append([
      {
        time: this.deps.clock.now(),
        stream: serviceStream(domain),
        type: 'service_removed',
        data: { domain, service },
        context,
        origin: 'LOCAL',
      },
    ]);
    return true;
  }

  has(domain: string, service: string): boolean {
    return this.services.get(domain)?.has(service) ?? false;
  }

  get(domain: string, service: string): ServiceSpec | undefined {
    return this.services.get(domain)?.get(service);
  }

  domains(): string[] {
    return [...this.services.keys()];
  }

  /** `{domain: {service: description}}` as get_services answers. */
  describe(): Record<string, Record<string, ServiceDescription>> {
    const out: Record<string, Record<string, ServiceDescription>> = {};
    for (const [domain, services] of this.services) {
      const d: Record<string, ServiceDescription> = {};
      for (const [name, spec] of services) {
        const desc: ServiceDescription = { ...spec.description };
        if (spec.supportsResponse !== 'none') desc.response = { optional: spec.supportsResponse === 'optional' };
        d[name] = desc;
      }
      out[domain] = d;
    }
    return out;
  }

  /** Validates and runs a call; resolves after its handler and every write it made committed. */
  async call(req: CallRequest): Promise<CallResult> {
    const spec = this.get(req.domain, req.service);
    if (!spec) {
      throw new ServiceError('not_found', `Service ${req.domain}.${req.service} not found.`, {
        domain: 'core',
        key: 'service_not_found',
        placeholders: { domain: req.domain, service: req.service },
      });
    }
    if (req.returnResponse && spec.supportsResponse === 'none') {
      throw new ServiceError('service_validation_error', 'An action which does not return responses can\'t be called with return_response=True');
    }
    if (!req.returnResponse && spec.supportsResponse === 'only') {
      throw new ServiceError('service_validation_error', 'An action which requires responses must be called with return_response=True');
    }
    const merged: Record<string, unknown> = { ...req.data };
    if (req.target) {
      // as given: the original merges the target into the data unchanged (`none`, `a, b`)
      for (const key of TARGET_KEYS) if (req.target[key] !== undefined) merged[key] = req.target[key];
    }
    const { targets, refs, rest, untargeted, error } = splitTargets(merged);
    if (error) throw new ServiceError('invalid_format', error);
    const checked = validate(spec.schema, rest);
    if (!checked.ok) throw new ServiceError('invalid_format', checked.message);
    const named = targets === 'all' ? this.allOf(req.domain) : this.reached(spec, targets, refs);
    const entityIds = this.permitted(spec, req.context.user_id, targets === 'all', named);

    const collected: EntityState[] = [];
    const outer = this.collectors.get(req.context.id);
    if (!outer) this.collectors.set(req.context.id, collected);
    try {
      const recorded = this.deps.log.append([
        {
          time: this.deps.clock.now(),
          stream: serviceStream(req.domain),
          type: 'call_service',
          data: { domain: req.domain, service: req.service, service_data: merged },
          context: req.context,
          origin: 'LOCAL',
        },
      ]);
      // awaited after the handler, so the call and its writes share one commit; its failure is
      // held until then rather than left unhandled while the handler runs
      const failed = recorded.then(
        () => undefined,
        (err: unknown) => err,
      );
      // the original checks inside the handler, after call_service was fired
      if (entityIds instanceof Unauthorized) throw (await failed) ?? entityIds;
      const response = await spec.handler({
        domain: req.domain,
        service: req.service,
        data: checked.value,
        entityIds,
        untargeted,
        context: req.context,
        returnResponse: req.returnResponse,
      });
      const failure = await failed;
      if (failure !== undefined) throw failure;
      return { changedStates: outer ? [] : collected, response: req.returnResponse ? (response ?? {}) : undefined };
    } finally {
      if (!outer) this.collectors.delete(req.context.id);
    }
  }

  /** `entity_id: all`: every enabled entity of the domain. */
  private allOf(domain: string): string[] {
    const disabled = this.deps.targets ? (id: string) => this.deps.targets!.isDisabled(id) : () => false;
    return [...this.deps.entities.ids()].filter((id) => domainOf(id) === domain && !disabled(id));
  }

  /**
   * The entities a call names and those its devices, areas, floors and labels reach, without
   * those the registry disabled (the original never loads them). What the registries do not
   * know is logged, as the original warns, never refused. An entity service acts on its own
   * domain's entities only, so what the registries reach of other domains is left out of it.
   */
  private reached(spec: ServiceSpec, named: string[], refs: TargetRefs): string[] {
    const resolver = this.deps.targets;
    if (!resolver) return named;
    const ids = new Set<string>();
    const disabled: string[] = [];
    for (const id of named) {
      if (resolver.isDisabled(id)) disabled.push(id);
      else ids.add(id);
    }
    const missing = { floors: [] as string[], areas: [] as string[], devices: [] as string[], labels: [] as string[] };
    if (refs.device_id.length || refs.area_id.length || refs.floor_id.length || refs.label_id.length) {
      const expansion = resolver.expand(refs);
      Object.assign(missing, expansion.missing);
      for (const id of expansion.entityIds) {
        if ((spec.anyDomain || domainOf(id) === spec.domain) && !resolver.isDisabled(id)) ids.add(id);
      }
    }
    const parts = (
      [
        ['floors', missing.floors],
        ['areas', missing.areas],
        ['devices', missing.devices],
        ['entities', disabled],
        ['labels', missing.labels],
      ] as const
    ).filter(([, items]) => items.length > 0);
    if (parts.length) {
      const listed = parts.map(([what, items]) => `${what} ${[...items].sort().join(', ')}`).join(', ');
      this.deps.logLine?.(`Referenced ${listed} are missing or not currently available`);
    }
    return [...ids];
  }

  /**
   * The entities the call may act on, as the original's admin services and entity_service_call
   * decide: no check for calls without a user (the system's), admins may do anything, others
   * no admin service, and of an entity service only entities they may control — every one
   * named, or, for `all`, those of the domain they may control.
   */
  private permitted(spec: ServiceSpec, userId: string | null, all: boolean, entityIds: string[]): string[] | Unauthorized {
    if (spec.access === undefined || userId === null || !this.deps.caller) return entityIds;
    const caller = this.deps.caller(userId);
    if (!caller) return new Unauthorized(); // the original's UnknownUser
    if (caller.isAdmin) return entityIds;
    if (spec.access === 'admin') return new Unauthorized();
    const { permissions } = caller;
    if (all) return entityIds.filter((id) => permissions.canControl(id));
    const refused = entityIds.find((id) => !permissions.canControl(id));
    return refused === undefined ? entityIds : new Unauthorized(refused);
  }
}

/** The target keys that name ids to look up in the registries. */
const REF_KEYS = ['device_id', 'area_id', 'floor_id', 'label_id'] as const;

/** The original's value matching nothing, for any target key. */
const MATCH_NONE = 'none';

/**
 * The ids of one device/area/floor/label key as the original's schema takes them: a string or
 * a list of strings (`none`, or nothing, names none). Anything else gets its message.
 */
function refList(key: string, v: unknown): string[] | string {
  if (v === MATCH_NONE || v === null || v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  const bad = list.findIndex((x) => typeof x !== 'string');
  return bad < 0 ? (list as string[]) : `expected str @ data['${key}'][${bad}]`;
}

/**
 * Separates the targets from the service data: entity ids (lower-cased, or `all`) and the
 * device, area, floor and label ids the registries expand.
 */
function splitTargets(data: Record<string, unknown>): {
  targets: string[] | 'all';
  refs: TargetRefs;
  rest: Record<string, unknown>;
  untargeted: boolean;
  error?: string;
} {
  // entries, not assignments: a key named __proto__ stays data, for the schema to refuse
  const restEntries: [string, unknown][] = [];
  let ids: string[] | 'all' = [];
  const refs: TargetRefs = { device_id: [], area_id: [], floor_id: [], label_id: [] };
  let untargeted = true;
  const failed = (error: string) => ({ targets: [], refs, rest: Object.fromEntries(restEntries), untargeted, error });
  for (const [k, v] of Object.entries(data)) {
    if (k === 'entity_id') {
      untargeted = false;
      if (v === 'all' || (Array.isArray(v) && v.length === 1 && v[0] === 'all')) {
        ids = 'all';
        continue;
      }
      if (v === MATCH_NONE) continue;
      const list = typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v;
      const bad = Array.isArray(list) ? list.find((x) => typeof x !== 'string' || !validEntityId(x.toLowerCase())) : v;
      if (bad !== undefined) {
        return failed(`Entity ID ${typeof bad === 'string' ? bad : pyRepr(bad)} is an invalid entity ID for dictionary value @ data['entity_id']`);
      }
      ids = (list as string[]).map((x) => x.toLowerCase());
    } else if ((REF_KEYS as readonly string[]).includes(k)) {
      untargeted = false;
      const list = refList(k, v);
      if (typeof list === 'string') return failed(list);
      refs[k as (typeof REF_KEYS)[number]] = [...new Set(list)];
    } else restEntries.push([k, v]);
  }
  return { targets: ids, refs, rest: Object.fromEntries(restEntries), untargeted };
}
