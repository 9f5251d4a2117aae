import type { Clock } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import type { EntityState } from '../entities/types.ts';
import type { EntityActors, StateChangedData } from '../entities/registry.ts';
import { domainOf, validEntityId } from '../entities/state.ts';
import { ServiceError, Unauthorized, type ServiceDescription, type ServiceSpec } from './types.ts';
import { validate, pyRepr } from './validate.ts';
import type { EntityPermissions } from '../auth/permissions.ts';

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
    },
  ) {
    deps.log.onCommit((records) => {
      if (this.collectors.size === 0) return;
      for (const r of records) this.collect(r);
    });
  }

  private collect(r: EventRecord): void {
    if (r.type !== 'state_changed' || !r.stream.startsWith('entity/')) return;
    const list = this.collectors.get(r.context.id);
    const next = (r.data as StateChangedData).new_state;
    if (list && next) list.push(next);
  }

  /** Registers a service and records `service_registered` (origin LOCAL). */
  async register(spec: ServiceSpec, context: Context): Promise<void> {
    let domain = this.services.get(spec.domain);
    if (!domain) {
      domain = new Map();
      this.services.set(spec.domain, domain);
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
      for (const key of TARGET_KEYS) if (req.target[key] !== undefined) merged[key] = listify(req.target[key]);
    }
    const { targets, rest, untargeted, error } = splitTargets(merged);
    if (error) throw new ServiceError('invalid_format', error);
    const checked = validate(spec.schema, rest);
    if (!checked.ok) throw new ServiceError('invalid_format', checked.message);
    const named = targets === 'all' ? [...this.deps.entities.ids()].filter((id) => domainOf(id) === req.domain) : targets;
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

function listify(v: unknown): unknown {
  return Array.isArray(v) ? v : [v];
}

/** Separates the entity targets (lower-cased ids, or `all`) from the service data. */
function splitTargets(data: Record<string, unknown>): {
  targets: string[] | 'all';
  rest: Record<string, unknown>;
  untargeted: boolean;
  error?: string;
} {
  // entries, not assignments: a key named __proto__ stays data, for the schema to refuse
  const restEntries: [string, unknown][] = [];
  let ids: string[] | 'all' = [];
  let untargeted = true;
  for (const [k, v] of Object.entries(data)) {
    if (k === 'entity_id') {
      untargeted = false;
      if (v === 'all' || (Array.isArray(v) && v.length === 1 && v[0] === 'all')) {
        ids = 'all';
        continue;
      }
      const list = typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter(Boolean) : v;
      const bad = Array.isArray(list) ? list.find((x) => typeof x !== 'string' || !validEntityId(x.toLowerCase())) : v;
      if (bad !== undefined) {
        const rest = Object.fromEntries(restEntries);
        return { targets: [], rest, untargeted, error: `Entity ID ${typeof bad === 'string' ? bad : pyRepr(bad)} is an invalid entity ID for dictionary value @ data['entity_id']` };
      }
      ids = (list as string[]).map((x) => x.toLowerCase());
    } else if ((TARGET_KEYS as readonly string[]).includes(k)) {
      untargeted = false;
    } else restEntries.push([k, v]);
  }
  return { targets: ids, rest: Object.fromEntries(restEntries), untargeted };
}
