import type { AnyStateMachine, EventObject } from 'xstate';
import type { ServiceDescription } from '../services/types.ts';
import type { TSchema } from '@sinclair/typebox';
import type { EntityState } from '../../machines/entity-state.ts';

// Entity states are the machines' data; actors and the gateway take the type from here as before.
export type { EntityState };

/** What a domain machine says its entity should show; the entity rules add the timestamps. */
export interface RenderedState {
  state: string;
  attributes: Record<string, unknown>;
}

/** One configured item of a helper domain (an entry under `input_boolean:` in configuration.yaml). */
export interface HelperItem<C = Record<string, unknown>> {
  /** object id: the key in configuration.yaml; the entity id is `<domain>.<objectId>` */
  objectId: string;
  config: C;
}

/** What a helper may read besides its item: the time and the configured zone (machines read no clock). */
export interface HelperEnv {
  /** epoch ms */
  now: number;
  /** the core's time zone (IANA name) */
  timeZone: string;
}

/** A service of a helper domain: its description for /api/services and how a call becomes a machine event. */
export interface HelperService {
  service: string;
  description: ServiceDescription;
  /** TypeBox schema of the service data (without the target keys entity_id/device_id/area_id) */
  schema: TSchema;
  /**
   * What the schema cannot say (keys that exclude each other, the original's own parsers): the
   * problem in the original's words, refused as invalid data before any entity is asked.
   */
  refine?(data: Record<string, any>): string | undefined;
  /** the event sent to each target entity's machine */
  toEvent(data: Record<string, any>, env: HelperEnv): EventObject;
}

/**
 * A helper domain (input_boolean, counter, ...): its configuration, its machine, how the machine's
 * snapshot renders as an entity state, and its services as data.
 *
 * A machine rejects a command it cannot apply by emitting `{ type: 'rejected', message }`
 * (xstate `emit`); the service call then fails with that message and nothing is written.
 */
export interface HelperDomain<C = any> {
  domain: string;
  /** Parses the domain's configuration.yaml section; throws an Error naming the bad key/value. */
  parseConfig(section: unknown): HelperItem<C>[];
  machine: AnyStateMachine;
  /** the machine's input for an item, given its last state from the log (undefined on first start) */
  input(item: HelperItem<C>, restored: EntityState | undefined, env: HelperEnv): unknown;
  /** the entity state the machine's current snapshot shows */
  render(snapshot: { context: any; value: any }, item: HelperItem<C>, env: HelperEnv): RenderedState;
  services: HelperService[];
}
