import { mqttSensorMachine } from '../../../machines/mqtt/sensor.machine.ts';
import { toBool, toPositiveInt, toStr, oneOf } from '../schema.ts';
import { parseFloatText } from '../../../machines/python/float.ts';
import { SENSOR_DEVICE_CLASSES, STATE_CLASSES } from '../../entities/platforms/sensor.ts';
import { MAX_STATE_LENGTH } from '../../entities/state.ts';
import { listOf, optional, orNull, required, toTemplate } from '../schema.ts';
import { validSubscribeTopic } from '../topics.ts';
import { isoDate, isoformat, readDatetime, utcSeconds } from './datetime.ts';
import { SENSOR_NAMES } from './device-class-names.ts';
import { expiryInput } from './restore.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

/** The payload meaning "no value" (the original's PAYLOAD_NONE). */
export const PAYLOAD_NONE = 'None';

const NON_NUMERIC = new Set(['date', 'enum', 'timestamp']);

export interface MqttSensorConfig extends MqttEntityConfig {
  state_topic: string;
  value_template?: string;
  unit_of_measurement?: string | null;
  state_class?: string | null;
  expire_after?: number;
  force_update: boolean;
  last_reset_value_template?: string;
  options?: string[];
  suggested_display_precision?: number;
}

/** The original's _numeric_state_expected: a unit, state class or precision makes a sensor numeric. */
function numeric(config: MqttSensorConfig): boolean {
  if (config.device_class && NON_NUMERIC.has(config.device_class)) return false;
  if (config.state_class || config.unit_of_measurement || config.suggested_display_precision !== undefined) return true;
  return !!config.device_class;
}

/** A state payload as the sensor's value: undefined to ignore it (logged), null for unknown. */
function readValue(payload: string, topic: string, config: MqttSensorConfig, warn: (line: string) => void, entityId: string): string | null | undefined {
  if (payload === PAYLOAD_NONE) return null;
  if (numeric(config)) {
    if (payload === '') return undefined;
    if (Number.isNaN(parseFloatText(payload) ?? NaN)) {
      warn(
        `Sensor ${entityId} has device class '${config.device_class ?? 'None'}', state class '${config.state_class ?? 'None'}' unit '${config.unit_of_measurement ?? 'None'}' ` +
          `and suggested precision '${config.suggested_display_precision ?? 'None'}' thus indicating it has a numeric value; however, it has the non-numeric value: '${payload}' (<class 'str'>)`,
      );
      return undefined;
    }
    return payload;
  }
  if (config.options && !config.options.includes(payload)) {
    warn(`Ignoring invalid option received on topic '${topic}', got '${payload}', allowed: ${config.options.join(', ')}`);
    return undefined;
  }
  if (!config.device_class || config.device_class === 'enum') {
    if (payload.length > MAX_STATE_LENGTH) {
      warn(`Cannot update state for entity ${entityId} after processing payload on topic ${topic}. The requested state (${payload}) exceeds the maximum allowed length (${MAX_STATE_LENGTH}). Fall back to unknown, failed state: ${payload}`);
      return null;
    }
    return payload;
  }
  const parsed = readDatetime(payload);
  const shown = parsed && (config.device_class === 'date' ? isoDate(parsed) : utcSeconds(parsed));
  if (!shown) {
    warn(`Invalid state message '${payload}' from '${topic}'`);
    return null;
  }
  return shown;
}

/** sensor: the value of a state topic, with its unit, device and state class. */
export const mqttSensor: MqttPlatform<MqttSensorConfig> = {
  domain: 'sensor',
  defaultName: 'MQTT Sensor',
  deviceClassNames: SENSOR_NAMES,
  fields: {
    state_topic: required(validSubscribeTopic),
    value_template: optional(toTemplate),
    device_class: optional(orNull((v) => oneOf(v, SENSOR_DEVICE_CLASSES))),
    expire_after: optional(toPositiveInt),
    force_update: optional(toBool, false),
    last_reset_value_template: optional(toTemplate),
    options: optional(listOf(toStr)),
    suggested_display_precision: optional(toPositiveInt),
    state_class: optional(orNull((v) => oneOf(v, STATE_CLASSES))),
    unit_of_measurement: optional(orNull(toStr)),
  },
  refine(config) {
    if (config.last_reset_value_template !== undefined && config.state_class !== 'total') {
      return `The option \`last_reset_value_template\` cannot be used together with state class \`${config.state_class ?? 'None'}\``;
    }
    if (config.options !== undefined) {
      if (config.options.length === 0) return 'An empty options list is not allowed';
      if (config.state_class || config.unit_of_measurement) return 'Specifying `options` is not allowed together with the `state_class` or `unit_of_measurement` option';
      if (config.device_class !== 'enum') return `The option \`options\` must be used together with device class \`enum\`, got \`device_class\` '${config.device_class ?? 'None'}'`;
    }
    return undefined;
  },
  keptOnUpdate: ['value', 'lastReset'],
  // a live sensor takes the same value again: nothing changes, as the original writes nothing
  repeatIsNoop: (config) => config.expire_after === undefined && !config.force_update,
  machine: mqttSensorMachine,
  input: (config, restored, now) => {
    // only a sensor whose values expire restores its last one, and only while it is still valid
    const { kept, expireAfterMs, remainingMs } = expiryInput(restored, config.expire_after, now);
    const lastReset = kept?.attributes.last_reset;
    return { value: kept?.state ?? null, lastReset: typeof lastReset === 'string' ? lastReset : null, expireAfterMs, remainingMs };
  },
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        // a message proves the device alive even when its payload is refused (expire_after)
        const value = m.payload === null ? undefined : readValue(m.payload, m.topic, m.config, m.warn, m.entityId);
        const resetText = m.config.last_reset_value_template !== undefined ? m.render('last_reset_value_template') : undefined;
        const lastReset = typeof resetText === 'string' ? readLastReset(resetText, m.topic, m.warn) : undefined;
        return { type: 'message', value, lastReset };
      },
    },
  ],
  render: (snapshot, config) => {
    const { value, lastReset } = snapshot.context as { value: string | null; lastReset: string | null };
    const capabilities: Record<string, unknown> = {};
    if (config.state_class) capabilities.state_class = config.state_class;
    if (config.options) capabilities.options = config.options;
    const attributes: Record<string, unknown> = {};
    if (config.state_class === 'total' && lastReset !== null) attributes.last_reset = lastReset;
    return {
      state: value,
      capabilities,
      attributes,
      unit_of_measurement: config.unit_of_measurement ?? null,
      available: snapshot.value !== 'expired',
      force_update: config.force_update,
    };
  },
  services: [],
  blockedAttributes: ['last_reset', 'state_class'],
  registryInfo: (config) => {
    const capabilities: Record<string, unknown> = {};
    if (config.state_class) capabilities.state_class = config.state_class;
    if (config.options) capabilities.options = config.options;
    return {
      capabilities: Object.keys(capabilities).length ? capabilities : null,
      unit_of_measurement: config.unit_of_measurement ?? null,
      options: config.suggested_display_precision !== undefined ? { sensor: { suggested_display_precision: config.suggested_display_precision } } : undefined,
    };
  },
};

/** A last_reset payload (after its template) as the attribute's text, or undefined when it is none. */
export function readLastReset(payload: string, topic: string, warn: (line: string) => void): string | undefined {
  if (payload === '') return undefined;
  const parsed = readDatetime(payload);
  if (!parsed) {
    warn(`Invalid last_reset message '${payload}' from '${topic}'`);
    return undefined;
  }
  return isoformat(parsed);
}
