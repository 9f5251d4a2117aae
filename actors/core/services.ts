import { Type } from '@sinclair/typebox';
import type { Context } from '../../store/types.ts';
import type { ServiceRegistry } from '../services/registry.ts';
import type { ServiceSpec } from '../services/types.ts';
import { ServiceError } from '../services/types.ts';
import type { EntityActors } from '../entities/registry.ts';
import { domainOf } from '../entities/state.ts';
import type { CoreConfig } from './core-config.ts';

const ANY_ENTITY = { entity: [{}] };
const NO_DATA = Type.Object({}, { additionalProperties: false });

export interface CoreServiceDeps {
  services: ServiceRegistry;
  entities: EntityActors;
  coreConfig: CoreConfig;
  reloadCoreConfig(context: Context): Promise<void>;
  /** ends the process after the answer went out */
  stop(): void;
  /** restarts the instance in place */
  restart(): void;
  log(line: string): void;
}

/** The `core` domain's services: generic on/off/toggle, location, reloads, stop and restart. */
export function coreServices(deps: CoreServiceDeps): ServiceSpec[] {
  // the original's async_handle_turn_service: each domain's own service of that name gets the
  // call's data and its entities of that domain; domains without it are named in a warning
  const dispatch = (service: 'turn_on' | 'turn_off' | 'toggle') => async (call: Parameters<ServiceSpec['handler']>[0]) => {
    if (call.entityIds.length === 0) {
      deps.log(`The service core.${service} cannot be called without a target`);
      return;
    }
    const byDomain = new Map<string, string[]>();
    for (const id of [...call.entityIds].sort()) {
      const d = domainOf(id);
      if (!byDomain.has(d)) byDomain.set(d, []);
      byDomain.get(d)!.push(id);
    }
    const calls: Promise<unknown>[] = [];
    const unsupported: string[] = [];
    for (const [domain, ids] of byDomain) {
      // calling core.turn_on again would never end
      if (domain === 'core') {
        deps.log(`Called service core.${service} with invalid entities ${ids.join(', ')}`);
        continue;
      }
      if (!deps.services.has(domain, service)) {
        unsupported.push(...ids);
        continue;
      }
      // the same context, so the REST answer lists the states these calls change
      calls.push(deps.services.call({ domain, service, data: { ...call.data, entity_id: ids }, context: call.context, returnResponse: false }));
    }
    if (unsupported.length) deps.log(`The service core.${service} does not support entities ${unsupported.sort().join(', ')}`);
    await Promise.all(calls);
  };
  const onOff = (service: 'turn_on' | 'turn_off' | 'toggle', name: string, description: string): ServiceSpec => ({
    domain: 'core',
    service,
    description: { name, description, fields: {}, target: ANY_ENTITY },
    schema: Type.Object({}, { additionalProperties: true }),
    supportsResponse: 'none',
    anyDomain: true,
    handler: dispatch(service),
  });
  return [
    onOff('turn_on', 'Generic turn on', 'Generic action to turn devices on under any domain.'),
    onOff('turn_off', 'Generic turn off', 'Generic action to turn devices off under any domain.'),
    onOff('toggle', 'Generic toggle', 'Generic action to toggle devices on/off under any domain.'),
    {
      domain: 'core',
      service: 'reload_core_config',
      description: { name: 'Reload core configuration', description: 'Reloads the core configuration from the YAML-configuration.', fields: {} },
      schema: NO_DATA,
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => deps.reloadCoreConfig(call.context),
    },
    {
      domain: 'core',
      service: 'set_location',
      description: {
        name: 'Set location',
        description: 'Updates the home location.',
        fields: {
          latitude: { required: true, example: 32.87336, selector: { number: { mode: 'box', min: -90, max: 90, step: 'any' } }, name: 'Latitude', description: 'Latitude of your location.' },
          longitude: { required: true, example: 117.22743, selector: { number: { mode: 'box', min: -180, max: 180, step: 'any' } }, name: 'Longitude', description: 'Longitude of your location.' },
          elevation: { required: false, example: 120, selector: { number: { mode: 'box', step: 'any' } }, name: 'Elevation', description: 'Elevation of your location above sea level.' },
        },
      },
      schema: Type.Object(
        {
          latitude: Type.Number({ minimum: -90, maximum: 90 }),
          longitude: Type.Number({ minimum: -180, maximum: 180 }),
          elevation: Type.Optional(Type.Number()),
        },
        { additionalProperties: false },
      ),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => deps.coreConfig.setLocation(call.data, call.context),
    },
    {
      domain: 'core',
      service: 'update_entity',
      description: { name: 'Update entity', description: 'Forces one or more entities to update their data.', fields: {}, target: ANY_ENTITY },
      schema: NO_DATA,
      supportsResponse: 'none',
      access: 'entity',
      anyDomain: true,
      handler: async (call) => {
        const missing = call.entityIds.filter((id) => !deps.entities.has(id));
        if (missing.length) throw new ServiceError('service_validation_error', `Referenced entities ${missing.join(', ')} are missing or not currently available`);
        // entities of this slice hold pushed states: there is nothing to poll
      },
    },
    {
      domain: 'core',
      service: 'stop',
      description: { name: 'Stop', description: 'Stops Hearth.', fields: {} },
      schema: NO_DATA,
      supportsResponse: 'none',
      access: 'admin',
      handler: async () => deps.stop(),
    },
    {
      domain: 'core',
      service: 'restart',
      description: { name: 'Restart', description: 'Restarts Hearth.', fields: {} },
      schema: Type.Object({ safe_mode: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      supportsResponse: 'none',
      access: 'admin',
      handler: async () => deps.restart(),
    },
  ];
}
