import { mqttNumberMachine } from '../../../machines/mqtt/number.machine.ts';
import { InvalidValue, toBool, toFloat, toStr } from '../schema.ts';
import { parseFloatText } from '../../../machines/python/float.ts';
import { numberServices } from '../../entities/platforms/number.ts';
import { SENSOR_DEVICE_CLASSES } from '../../entities/platforms/sensor.ts';
import { optional, orNull, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { SENSOR_NAMES } from './device-class-names.ts';
import { hasNonBlankPayload } from './state-payloads.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { parseIntText } from '../../../machines/python/float.ts';
import { floatRepr } from '../../../machines/python/float.ts';

/** The number device classes: the sensor's, less those whose values are not numbers. */
export const NUMBER_DEVICE_CLASSES = SENSOR_DEVICE_CLASSES.filter((c) => c !== 'date' && c !== 'enum' && c !== 'timestamp');

const MODES = ['auto', 'box', 'slider'] as const;

export interface MqttNumberConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  value_template?: string;
  min: number;
  max: number;
  step: number;
  mode: (typeof MODES)[number];
  payload_reset: string;
  unit_of_measurement?: string | null;
  optimistic: boolean;
  retain: boolean;
}

/** vol.All(vol.Lower, vol.Coerce(NumberDeviceClass)). */
function toNumberDeviceClass(value: unknown): string {
  const text = toStr(value).toLowerCase();
  if (!(NUMBER_DEVICE_CLASSES as readonly string[]).includes(text)) throw new InvalidValue(`expected NumberDeviceClass or one of ${NUMBER_DEVICE_CLASSES.map((c) => `'${c}'`).join(', ')}`);
  return text;
}

/** vol.Coerce(NumberMode). */
function toMode(value: unknown): MqttNumberConfig['mode'] {
  if (typeof value === 'string' && (MODES as readonly string[]).includes(value)) return value as MqttNumberConfig['mode'];
  throw new InvalidValue(`expected NumberMode or one of ${MODES.map((m) => `'${m}'`).join(', ')}`);
}

/** vol.All(vol.Coerce(float), vol.Range(min=1e-3)). */
function toStep(value: unknown): number {
  const step = toFloat(value);
  if (!(step >= 1e-3)) throw new InvalidValue('value must be at least 0.001');
  return step;
}

/** Python's str.isnumeric() (ASCII digits; other numeric characters are left to float()). */
const isNumeric = (text: string) => /^\p{N}+$/u.test(text);

/** A restored state as a value (only an optimistic number restores one). */
function restoredValue(state: string | undefined): string | null {
  if (state === undefined || state === 'unknown' || state === 'unavailable') return null;
  const n = (parseFloatText(state) ?? NaN);
  return Number.isFinite(n) ? state : null;
}

/** number: a value in [min, max] by step, from its state topic, set over its command topic. */
export const mqttNumber: MqttPlatform<MqttNumberConfig> = {
  domain: 'number',
  defaultName: 'MQTT Number',
  deviceClassNames: SENSOR_NAMES,
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
    device_class: optional(orNull(toNumberDeviceClass)),
    min: optional(toFloat, 0),
    max: optional(toFloat, 100),
    step: optional(toStep, 1),
    mode: optional(toMode, 'auto'),
    payload_reset: optional(toStr, 'None'),
    unit_of_measurement: optional(orNull(toStr)),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
  },
  refine: (config) => (config.min >= config.max ? "'max' must be > 'min'" : undefined),
  keptOnUpdate: ['value'],
  machine: mqttNumberMachine,
  // only an optimistic number restores its value: others hear it from their device
  input: (config, restored, _now, entityId) => ({
    value: isOptimisticFor(config) ? restoredValue(restored?.state) : null,
    optimistic: isOptimisticFor(config),
    min: config.min,
    max: config.max,
    entityId,
  }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (!hasNonBlankPayload(m)) return undefined;
        const { config } = m;
        if (m.payload === config.payload_reset) return { type: 'message', value: null };
        // str.isnumeric() makes an int, anything else goes through float()
        const int = isNumeric(m.payload) ? parseIntText(m.payload) : undefined;
        const n = int ?? (parseFloatText(m.payload) ?? NaN);
        if (Number.isNaN(n)) {
          m.warn(`Payload '${m.raw}' is not a Number`);
          return undefined;
        }
        const text = int !== undefined ? String(int) : floatRepr(n);
        if (n < config.min || n > config.max) {
          m.warn(`Invalid value for ${m.entityId}: ${text} (range ${floatRepr(config.min)} - ${floatRepr(config.max)})`);
          return undefined;
        }
        return { type: 'message', value: text };
      },
    },
  ],
  render: (snapshot, config) => ({
    state: snapshot.context.value as string | null,
    capabilities: { min: config.min, max: config.max, step: config.step, mode: config.mode },
    unit_of_measurement: config.unit_of_measurement ?? null,
    assumed_state: isOptimisticFor(config),
  }),
  services: numberServices,
  blockedAttributes: ['min', 'max', 'step'],
  registryInfo: (config) => ({
    capabilities: { min: config.min, max: config.max, step: config.step, mode: config.mode },
    unit_of_measurement: config.unit_of_measurement ?? null,
  }),
};


