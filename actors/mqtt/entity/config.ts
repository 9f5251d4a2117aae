import { InvalidValue, oneOf, toBool, toIcon, toStr } from '../schema.ts';
import type { MqttEntityConfig, MqttPlatform } from '../platforms/types.ts';
import { Invalid, dict, listOf, optional, orNull, readDict, required, toTemplate, toUrl, type Check, type Extra, type Fields } from '../schema.ts';
import { toQos, validSubscribeTopic } from '../topics.ts';

/**
 * The options every MQTT entity has (the original's MQTT_ENTITY_COMMON_SCHEMA with availability,
 * QoS and encoding), and one entity's config read against them and its platform's own.
 */

/** cv.configuration_url: http(s), or the original's own `homeassistant://` links. */
function toConfigurationUrl(value: unknown): string {
  const text = toStr(value);
  if (/^homeassistant:\/\/./.test(text)) return text;
  return toUrl(text);
}

/** A connection: `[type, id]`. */
function toPair(value: unknown): [string, string] {
  if (!Array.isArray(value) || value.length !== 2) throw new InvalidValue('length of value must be exactly 2');
  return [toStr(value[0]), toStr(value[1])];
}

const DEVICE_FIELDS: Fields = {
  identifiers: optional(listOf(toStr), () => []),
  connections: optional(listOf(toPair), () => []),
  manufacturer: optional(toStr),
  model: optional(toStr),
  model_id: optional(toStr),
  name: optional(toStr),
  hw_version: optional(toStr),
  serial_number: optional(toStr),
  sw_version: optional(toStr),
  via_device: optional(toStr),
  suggested_area: optional(toStr),
  configuration_url: optional(toConfigurationUrl),
};

/** The device block: at least one identifier or connection, as the original requires. */
const toDevice: Check<Record<string, unknown>> = (value) => {
  const device = dict(DEVICE_FIELDS)(value);
  if ((device.identifiers as unknown[]).length === 0 && (device.connections as unknown[]).length === 0) {
    throw new InvalidValue("Device must have at least one identifying value in 'identifiers' and/or 'connections'");
  }
  return device;
};

const toOrigin = dict({ name: required(toStr), sw_version: optional(toStr), support_url: optional(toConfigurationUrl) });

const toAvailabilityItem = dict({
  topic: required(validSubscribeTopic),
  payload_available: optional(toStr, 'online'),
  payload_not_available: optional(toStr, 'offline'),
  value_template: optional(toTemplate),
});

/** The options of every MQTT entity. */
export const COMMON_FIELDS: Fields = {
  platform: optional(toStr),
  name: optional(orNull(toStr)),
  unique_id: optional(toStr),
  object_id: optional(toStr),
  default_entity_id: optional(toStr),
  device: optional(toDevice),
  origin: optional(toOrigin),
  enabled_by_default: optional(toBool, true),
  entity_category: optional(orNull((v) => oneOf(v, ['config', 'diagnostic']))),
  entity_picture: optional(toUrl),
  icon: optional(toIcon),
  json_attributes_topic: optional(validSubscribeTopic),
  json_attributes_template: optional(toTemplate),
  availability_topic: optional(validSubscribeTopic),
  availability_template: optional(toTemplate),
  availability: optional(listOf(toAvailabilityItem)),
  availability_mode: optional((v) => oneOf(toStr(v), ['all', 'any', 'latest']), 'latest'),
  payload_available: optional(toStr, 'online'),
  payload_not_available: optional(toStr, 'offline'),
  qos: optional(toQos, 0),
  encoding: optional(toStr, 'utf-8'),
};

/**
 * An entity's config read as its platform's schema reads it: YAML refuses unknown keys
 * (`forbid`), discovery messages drop them (`remove`). Throws Invalid with the original's wording.
 */
export function readEntityConfig<C extends MqttEntityConfig>(platform: MqttPlatform<C>, raw: unknown, extra: Extra): C {
  const config = readDict(raw, { ...COMMON_FIELDS, ...platform.fields }, extra) as C;
  // vol.Exclusive(availability_topic, availability): one way of naming availability topics
  if (config.availability_topic !== undefined && config.availability !== undefined) {
    throw new Invalid("two or more values in the same group of exclusion 'availability'", ['<availability>']);
  }
  if (config.entity_category === null) delete config.entity_category;
  delete config.platform;
  const problem = platform.refine?.(config);
  if (problem) throw new Invalid(problem);
  return config;
}
