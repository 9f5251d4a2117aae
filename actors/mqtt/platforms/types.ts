import type { AnyStateMachine, EventObject } from 'xstate';
import type { EntityState } from '../../entities/types.ts';
import type { PlatformService } from '../../entities/platforms/types.ts';
import type { Fields } from '../schema.ts';

/**
 * An MQTT platform (sensor, switch, ...): its options beyond those every MQTT entity has, the
 * machine that holds its state, the topics it listens to, how its state shows, and its
 * services. The framework (actors/mqtt/entity/) does the rest: availability, JSON attributes,
 * names and entity ids, registries, templates, publishing, records.
 */
export interface MqttPlatform<C extends MqttEntityConfig = any> {
  /** the entity domain (`sensor`) */
  domain: string;
  /** the name of an entity whose config names none (the original's DEFAULT_NAME); null: none, the device's name (a tracker) */
  defaultName: string | null;
  /** names an unnamed entity with a device class takes instead (the device class's own name) */
  deviceClassNames?: Readonly<Record<string, string>>;
  /** the platform's own options (the common ones are added by the framework) */
  fields: Fields;
  /** what the fields cannot say (options that exclude each other): the problem, in the original's words */
  refine?(config: C): string | undefined;
  machine: AnyStateMachine;
  /** the machine's input, given the entity's last recorded state (undefined: none), the time and its entity id */
  input(config: C, restored: EntityState | undefined, now: number, entityId: string): unknown;
  /** the topics the entity listens to besides availability and JSON attributes */
  subscriptions(config: C): PlatformSubscription<C>[];
  /** what the machine's snapshot shows (`env`: what else the instance holds, the zones a tracker is in) */
  render(snapshot: { context: any; value: any }, config: C, env: RenderEnv): PlatformView;
  /**
   * What a JSON attributes message means to the platform besides attributes (a tracker's
   * latitude and longitude): the event it makes for the machine, and the attributes left to show.
   */
  readAttributes?(attributes: Record<string, unknown>, config: C, warn: (line: string) => void): { event?: EventObject; attributes: Record<string, unknown> };
  /** the entity's services (the domain's, as the virtual platform describes them) */
  services: PlatformService[];
  /** context keys of the machine a changed config carries over to the new machine (the value it shows) */
  keptOnUpdate?: readonly string[];
  /**
   * Whether a state message that repeats the previous one (same topic, same payload, the machine
   * untouched since) leaves the machine as it is, so it may be skipped: true when no timer
   * restarts on a message (expire_after, off_delay) and none writes every message (force_update).
   * The framework adds that the entity's templates must read only the payload.
   */
  repeatIsNoop?(config: C): boolean;
  /** keys JSON attributes may not set, besides the ones no MQTT entity lets them set */
  blockedAttributes?: readonly string[];
  /**
   * A platform whose options name one of several forms (a light's `schema`): the platform that
   * reads and runs a config of that form. Undefined: this platform itself.
   */
  variant?(raw: Record<string, unknown>): MqttPlatform<C>;
  /** what the entity registry holds for the entity besides names: capabilities, unit, registry options */
  registryInfo?(config: C): { capabilities?: Record<string, unknown> | null; unit_of_measurement?: string | null; options?: Record<string, Record<string, unknown>>; supported_features?: number };
}

/** What a platform's render may look at besides its machine and config. */
export interface RenderEnv {
  /** the committed states of the instance (zones, for a tracker's place) */
  states(): Iterable<EntityState>;
}

/** The options every MQTT entity has, read by the framework; a platform's own come beside them. */
export interface MqttEntityConfig {
  /** absent: the platform's default name (or the device class's); null: the device's name */
  name?: string | null;
  unique_id?: string;
  object_id?: string;
  default_entity_id?: string;
  device?: Record<string, unknown>;
  origin?: Record<string, unknown>;
  enabled_by_default: boolean;
  entity_category?: 'config' | 'diagnostic';
  entity_picture?: string;
  icon?: string;
  device_class?: string | null;
  json_attributes_topic?: string;
  json_attributes_template?: string;
  availability_topic?: string;
  availability_template?: string;
  availability?: Array<{ topic: string; payload_available: string; payload_not_available: string; value_template?: string }>;
  availability_mode: 'all' | 'any' | 'latest';
  payload_available: string;
  payload_not_available: string;
  qos: 0 | 1 | 2;
  encoding: string;
  [option: string]: unknown;
}

/** One topic an entity listens to and what its messages become for the machine. */
export interface PlatformSubscription<C> {
  /** the option naming the topic (`state_topic`); nothing is subscribed when it is unset */
  topicKey: string;
  /** the option naming the value template rendered before `read` (`value_template`) */
  templateKey?: string;
  /** A message as a machine event, or undefined when it changes nothing. */
  read(message: ReadMessage<C>): EventObject | undefined;
}

/** A message as a platform reads it. */
export interface ReadMessage<C> {
  /** the payload after the subscription's template; null when the template failed (logged) */
  payload: string | null;
  /** the payload as it came (decoded) */
  raw: string;
  topic: string;
  /** the message was a retained one the broker replayed */
  retain: boolean;
  /** when it arrived (epoch ms): machines read no clock */
  now: number;
  config: C;
  entityId: string;
  /** logs why a payload was refused */
  warn(line: string): void;
  /** the raw payload through another of the entity's templates (`last_reset_value_template`); undefined when unset, null when it failed */
  render(templateKey: string): string | null | undefined;
}

/** What an entity shows: null state is `unknown`; `available: false` makes it `unavailable` (expired). */
export interface PlatformView {
  state: string | null;
  /** shown even while unavailable (the original's capability attributes: state_class, options) */
  capabilities?: Record<string, unknown>;
  /** shown only while available (the original's state attributes: last_reset) */
  attributes?: Record<string, unknown>;
  unit_of_measurement?: string | null;
  available?: boolean;
  /** the state is the platform's guess (optimistic mode): the original's assumed_state */
  assumed_state?: boolean;
  /** every state message writes, changed or not (force_update) */
  force_update?: boolean;
  /** the supported_features attribute (shown even while unavailable) */
  supported_features?: number;
  /** the entity picture, over the config's (an update entity's own) */
  entity_picture?: string | null;
}
