import type { AnyStateMachine, EventObject } from 'xstate';
import type { TSchema } from '@sinclair/typebox';
import type { Context } from '../../../store/types.ts';
import type { ServiceDescription } from '../../services/types.ts';
import type { EntityState } from '../types.ts';
import type { EntryReader } from './config.ts';

/** One entry of a platform domain's list (`light:` → `- platform: virtual`), validated. */
export interface PlatformEntry<O = Record<string, unknown>> {
  domain: string;
  /** where it sits in its section (0-based), for messages */
  index: number;
  platform: 'virtual';
  /** absent only in a domain with its own section form (a timer need not have a name) */
  name?: string;
  /** the entity id the entry gets: its name slugified, unique within the domain */
  entityId: string;
  uniqueId?: string;
  icon?: string;
  deviceClass?: string;
  /** the domain's own options (including its reading of `initial`) */
  options: O;
}

/** What a domain's machine shows; the platform adds the attributes every entity has after these. */
export interface PlatformView {
  state: string;
  /** capability and state attributes, in the original's order */
  attributes: Record<string, unknown>;
  unit_of_measurement?: string;
}

/** A service of a platform domain: its description, schema, and how a call becomes a machine event. */
export interface PlatformService {
  service: string;
  description: ServiceDescription;
  /** TypeBox schema of the service data (without the target keys) */
  schema: TSchema;
  /**
   * The original's `required_features`: the entity must support every bit of at least one of
   * these masks, or the call is refused naming entity and service.
   */
  requiredFeatures?: number[];
  /**
   * What the schema cannot say (keys that exclude each other): the problem in the original's
   * words, refused as invalid data before any entity is asked.
   */
  refine?(data: Record<string, any>): string | undefined;
  /** the event sent to each target entity's machine; the platform adds `time` (epoch ms) */
  toEvent(data: Record<string, any>): EventObject;
}

/**
 * A platform domain (light, cover, ...): the options of its entries, its machine, how a
 * snapshot renders, and its services as data.
 *
 * A machine refuses a command by emitting `{ type: 'rejected', message, code?, translation? }`; the call then
 * fails with that message and nothing is written. A machine announces a bus event (timer
 * finished, ...) by emitting `{ type: 'bus_event', event_type, data }`; it is fired after the
 * state it goes with is written.
 */
export interface PlatformDomain<O = any> {
  domain: string;
  /** keys an entry may carry besides platform, name, unique_id, icon and device_class */
  optionKeys: readonly string[];
  /** device classes of the original; absent when the domain has none */
  deviceClasses?: readonly string[];
  /** reads the domain's options; throws through `entry.error` naming the key */
  parseOptions(entry: EntryReader): O;
  /**
   * A domain whose section has the original's own form rather than a platform list (timer:
   * object ids as keys) reads it here.
   */
  parseSection?(section: unknown): PlatformEntry<O>[];
  /** every write is a state_changed, even of the same state (the original's force_update) */
  forceUpdate?: boolean;
  /**
   * Other entities an entity follows (a person its device trackers, a zone the persons): each
   * of their states (undefined when removed) is sent to its machine as `watchEvent` makes it,
   * the current ones at start and every committed change after.
   */
  watches?(entry: PlatformEntry<O>): { entityIds?: string[]; domains?: string[] };
  watchEvent?(entityId: string, state: EntityState | undefined): EventObject;
  /** the `supported_features` attribute; undefined when the domain shows none */
  supportedFeatures(entry: PlatformEntry<O>): number | undefined;
  machine: AnyStateMachine;
  /** the machine's input, given the entity's last state (undefined on first start) and the time */
  input(entry: PlatformEntry<O>, restored: EntityState | undefined, now: number): unknown;
  render(snapshot: { context: any; value: any }, entry: PlatformEntry<O>): PlatformView;
  services: PlatformService[];
}

/**
 * Where entities with a `unique_id` get their registry entries (the entity and device
 * registries live elsewhere; the default does nothing). Both calls are made once per start and
 * reload, before the entity's first state is written.
 */
export interface PlatformRegistrar {
  /**
   * Finds or creates the device of an entity (identifiers `[['virtual', unique_id]]`, named after
   * the entity); resolves to its device id, or undefined when there is no device registry.
   */
  ensureDevice(device: { identifiers: Array<[string, string]>; name: string; manufacturer: string; model: string }, context: Context): Promise<string | undefined>;
  /**
   * Finds (by platform and unique_id) or creates the entity's registry entry; resolves to the
   * entity id the registry holds for it. A new entry takes `suggested_entity_id`, or the
   * registrar's own free variant of it if that id is taken by another entry.
   */
  ensureEntity(
    entity: {
      domain: string;
      platform: 'virtual';
      unique_id: string;
      suggested_entity_id: string;
      original_name: string;
      original_icon: string | null;
      original_device_class: string | null;
      supported_features: number;
      unit_of_measurement: string | null;
      device_id: string | undefined;
    },
    context: Context,
  ): Promise<string>;
}

/** The registrar used until a registry is wired: entities keep the ids made from their names. */
export const noRegistrar: PlatformRegistrar = {
  ensureDevice: async () => undefined,
  ensureEntity: async (entity) => entity.suggested_entity_id,
};
