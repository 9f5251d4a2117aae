import { miredToKelvin } from '../../../machines/color.ts';
import type { LightSpec } from '../../../machines/mqtt/light-commands.ts';
import { mqttLightMachine } from '../../../machines/mqtt/light.machine.ts';
import { EMPTY_LIGHT, LIGHT_ATTRIBUTES_BLOCKED, lightAttributes, lightCapabilities, type LightState } from '../../../machines/mqtt/light-state.ts';
import { lastKnown } from '../../entities/platforms/restore.ts';
import type { EntityState } from '../../entities/types.ts';
import { lightDomain } from '../../entities/platforms/light.ts';
import { listOf, optional, required, toTemplate, type Fields } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import type { MqttEntityConfig, MqttPlatform, PlatformView } from './types.ts';
import { InvalidValue, oneOf, toBool, toInt, toPositiveInt, toStr } from '../schema.ts';

/** The original's DEFAULT_MIN_KELVIN and DEFAULT_MAX_KELVIN. */
export const DEFAULT_MIN_KELVIN = 2000;
export const DEFAULT_MAX_KELVIN = 6535;

export const LIGHT_SCHEMAS = ['basic', 'json', 'template'] as const;

/** `schema`: vol.Lower then one of the three. */
export function toLightSchema(value: unknown): (typeof LIGHT_SCHEMAS)[number] {
  return oneOf(toStr(value).toLowerCase(), LIGHT_SCHEMAS);
}

/** vol.All(vol.Coerce(int), vol.Range(min=1)). */
export function toScale(value: unknown): number {
  const n = toInt(value);
  if (n < 1) throw new InvalidValue('value must be at least 1');
  return n;
}

/** The options every light schema has: MQTT_RW_SCHEMA's, the kelvin range, effect_list and `schema`. */
export const LIGHT_COMMON_FIELDS: Fields = {
  schema: optional(toLightSchema, 'basic'),
  command_topic: required(validPublishTopic),
  state_topic: optional(validSubscribeTopic),
  value_template: optional(toTemplate),
  optimistic: optional(toBool, false),
  retain: optional(toBool, false),
  color_temp_kelvin: optional(toBool, false),
  effect_list: optional(listOf(toStr)),
  max_mireds: optional(toPositiveInt),
  min_mireds: optional(toPositiveInt),
  max_kelvin: optional(toPositiveInt),
  min_kelvin: optional(toPositiveInt),
};

export interface MqttLightCommonConfig extends MqttEntityConfig {
  schema: (typeof LIGHT_SCHEMAS)[number];
  command_topic: string;
  state_topic?: string;
  optimistic: boolean;
  retain: boolean;
  color_temp_kelvin: boolean;
  effect_list?: string[];
  max_mireds?: number;
  min_mireds?: number;
  max_kelvin?: number;
  min_kelvin?: number;
}

/** The light's colour temperature range: mireds when given, else kelvin, else the defaults. */
export function kelvinRange(c: MqttLightCommonConfig): { minKelvin: number; maxKelvin: number } {
  return {
    minKelvin: c.max_mireds ? miredToKelvin(c.max_mireds) : (c.min_kelvin ?? DEFAULT_MIN_KELVIN),
    maxKelvin: c.min_mireds ? miredToKelvin(c.min_mireds) : (c.max_kelvin ?? DEFAULT_MAX_KELVIN),
  };
}

const numbers = (v: unknown, n: number) => (Array.isArray(v) && v.length === n && v.every((x) => typeof x === 'number') ? (v as never) : null);

/** A light attribute of the last state as the machine holds it (lists of numbers, a number, a string). */
export function restoredAttribute(key: keyof LightState | string, value: unknown): unknown {
  switch (key) {
    case 'hs_color':
    case 'xy_color':
      return numbers(value, 2);
    case 'rgb_color':
      return numbers(value, 3);
    case 'rgbw_color':
      return numbers(value, 4);
    case 'rgbww_color':
      return numbers(value, 5);
    case 'brightness':
    case 'color_temp_kelvin':
      return typeof value === 'number' ? value : null;
    case 'color_mode':
      return typeof value === 'string' ? value : null;
    default:
      return value ?? null;
  }
}

/** The machine's key for a light attribute. */
export const STATE_KEY: Record<string, keyof LightState> = {
  brightness: 'brightness', color_mode: 'color_mode', hs_color: 'hs', rgb_color: 'rgb', rgbw_color: 'rgbw', rgbww_color: 'rgbww',
  xy_color: 'xy', color_temp_kelvin: 'kelvin', effect: 'effect',
};

/** The last state worth restoring from (not unknown or unavailable). */
export const lastLight = (restored: EntityState | undefined) => lastKnown(restored);

/** A light's machine input: its spec and its state, the empty one unless `restore` fills it. */
export function lightInput(spec: LightSpec, entityId: string, restore?: (light: LightState) => void) {
  const light: LightState = { ...EMPTY_LIGHT, color_mode: initialColorMode(spec) };
  restore?.(light);
  return { entityId, spec, light };
}

function initialColorMode(spec: LightSpec): string | null {
  if (spec.schema === 'basic') return spec.modes.length > 1 ? 'unknown' : spec.modes[0];
  if (spec.schema === 'template') return spec.fixedMode;
  if (!spec.configuredModes) return null;
  return spec.modes.length === 1 ? spec.modes[0] : 'unknown';
}

/** What every light schema shows. */
export function renderLight(snapshot: { context: any }, _config: unknown): PlatformView {
  const { spec, light } = snapshot.context as { spec: LightSpec; light: LightState };
  return {
    state: light.on === null ? null : light.on ? 'on' : 'off',
    capabilities: lightCapabilities(spec),
    attributes: lightAttributes(light, spec),
    assumed_state: spec.optimistic,
    supported_features: spec.features,
  };
}

/** The parts of a light platform every schema shares. */
export function lightPlatform<C extends MqttLightCommonConfig>(
  defaultName: string,
  fields: Fields,
  spec: (config: C) => LightSpec,
  rest: Pick<MqttPlatform<C>, 'input' | 'subscriptions' | 'refine'>,
): MqttPlatform<C> {
  return {
    domain: 'light',
    defaultName,
    fields: { ...LIGHT_COMMON_FIELDS, ...fields },
    machine: mqttLightMachine,
    ...rest,
    render: renderLight,
    services: lightDomain.services,
    keptOnUpdate: ['light'],
    blockedAttributes: LIGHT_ATTRIBUTES_BLOCKED,
    registryInfo: (config) => {
      const s = spec(config);
      return { capabilities: lightCapabilities(s), supported_features: s.features };
    },
  };
}
