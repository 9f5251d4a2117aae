import { InvalidValue, toBool, toInt, toStr, oneOf } from './schema.ts';
import { Invalid, optional, readDict, required, type Fields } from './schema.ts';
import { toQos, validPublishTopic } from './topics.ts';

/**
 * The `mqtt:` section of configuration.yaml as users of the original write it: the broker's
 * settings (`broker`, `port`, credentials, TLS, protocol, discovery, birth and will messages;
 * `broker: embedded` runs Hearth's own broker) and entities, either keyed by platform
 * (`mqtt: {sensor: [...]}`) or as a list of such mappings (`mqtt: [{sensor: [...]}, ...]`).
 */

/** A birth or will message; null disables it (`birth_message: {}`). */
export interface MqttMessageSpec {
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
  retain: boolean;
}

/** How to reach the broker and what to tell it. */
export interface MqttSettings {
  /** a host name, or `embedded` for Hearth's own broker */
  broker: string;
  port: number;
  /** where the embedded broker listens (`broker: embedded` only); this machine alone by default */
  host?: string;
  username?: string;
  password?: string;
  client_id?: string;
  keepalive: number;
  /** `auto` (the system's CAs) or a CA file; TLS is used when set */
  certificate?: string;
  client_cert?: string;
  client_key?: string;
  tls_insecure: boolean;
  protocol: '3.1' | '3.1.1' | '5';
  discovery: boolean;
  discovery_prefix: string;
  birth_message: MqttMessageSpec | null;
  will_message: MqttMessageSpec | null;
}

export const DEFAULT_PREFIX = 'homeassistant';
export const DEFAULT_BIRTH: MqttMessageSpec = { topic: `${DEFAULT_PREFIX}/status`, payload: 'online', qos: 0, retain: false };
export const DEFAULT_WILL: MqttMessageSpec = { topic: `${DEFAULT_PREFIX}/status`, payload: 'offline', qos: 0, retain: false };

/** One entity of the section, not yet validated (its platform validates it). */
export interface YamlItem {
  domain: string;
  /** its place, for messages: `mqtt.sensor[2]` */
  where: string;
  raw: unknown;
}

export interface MqttYaml {
  /** the broker settings the section names; undefined without `broker` */
  settings?: MqttSettings;
  /** discovery settings also apply to a broker handed over by the supervisor */
  discovery: boolean;
  discoveryPrefix: string;
  items: YamlItem[];
}

const messageSpec = (fallback: MqttMessageSpec) => (value: unknown): MqttMessageSpec | null => {
  if (value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0)) return null;
  const d = readDict(value, { topic: required(validPublishTopic), payload: optional(toStr, fallback.payload), qos: optional(toQos, 0), retain: optional(toBool, false) }, 'forbid');
  return d as unknown as MqttMessageSpec;
};

function keepalive(value: unknown): number {
  const n = toInt(value);
  if (n < 15) throw new InvalidValue('value must be at least 15');
  return n;
}

function port(value: unknown): number {
  const n = toInt(value);
  if (n < 1 || n > 65535) throw new InvalidValue('value must be at most 65535');
  return n;
}

const BROKER_FIELDS: Fields = {
  broker: optional(toStr),
  port: optional(port, 1883),
  host: optional(toStr),
  username: optional(toStr),
  password: optional(toStr),
  client_id: optional(toStr),
  keepalive: optional(keepalive, 60),
  certificate: optional(toStr),
  client_cert: optional(toStr),
  client_key: optional(toStr),
  tls_insecure: optional(toBool, false),
  protocol: optional((v) => oneOf(String(v), ['3.1', '3.1.1', '5']), '3.1.1'),
  discovery: optional(toBool, true),
  discovery_prefix: optional(validPublishTopic, DEFAULT_PREFIX),
  birth_message: optional(messageSpec(DEFAULT_BIRTH)),
  will_message: optional(messageSpec(DEFAULT_WILL)),
};

function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The entities of one `<platform>: ...` value (a mapping or a list of them). */
function itemsOf(domain: string, value: unknown, prefix: string): YamlItem[] {
  const list = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list.map((raw, i) => ({ domain, where: `${prefix}${domain}[${i}]`, raw }));
}

/**
 * Reads the section; a refused broker setting is an Invalid naming its key (`mqtt: ...`).
 * Entities are only collected here: each is validated by its platform, a bad one refused alone.
 */
export function readMqttSection(section: unknown, platforms: ReadonlySet<string>): MqttYaml {
  if (section === undefined || section === null) return { discovery: true, discoveryPrefix: DEFAULT_PREFIX, items: [] };
  if (Array.isArray(section)) {
    const items: YamlItem[] = [];
    section.forEach((block, i) => {
      if (!isDict(block)) throw new Invalid('expected a dictionary', [i]);
      for (const [domain, value] of Object.entries(block)) items.push(...itemsOf(domain, value, `mqtt[${i}].`));
    });
    return { discovery: true, discoveryPrefix: DEFAULT_PREFIX, items };
  }
  if (!isDict(section)) throw new Invalid('expected a dictionary or a list');
  const brokerPart: Record<string, unknown> = {};
  const items: YamlItem[] = [];
  for (const [key, value] of Object.entries(section)) {
    if (Object.hasOwn(BROKER_FIELDS, key)) brokerPart[key] = value;
    else if (platforms.has(key) || /^[a-z_]+$/.test(key)) items.push(...itemsOf(key, value, 'mqtt.'));
    else throw new Invalid('extra keys not allowed', [key]);
  }
  const read = readDict(brokerPart, BROKER_FIELDS, 'forbid') as Record<string, any>;
  const yaml: MqttYaml = { discovery: read.discovery, discoveryPrefix: read.discovery_prefix, items };
  if (read.broker !== undefined) {
    const prefix = read.discovery_prefix as string;
    yaml.settings = {
      ...read,
      birth_message: read.birth_message === undefined ? { ...DEFAULT_BIRTH, topic: `${prefix}/status` } : read.birth_message,
      will_message: read.will_message === undefined ? { ...DEFAULT_WILL, topic: `${prefix}/status` } : read.will_message,
    } as MqttSettings;
  }
  return yaml;
}

/** Settings for a broker given by host and credentials alone (the supervisor's service), the rest as the original's defaults. */
export function settingsFor(broker: { host: string; port: number; username?: string; password?: string; protocol?: string }, discovery = true, prefix = DEFAULT_PREFIX): MqttSettings {
  const protocol = broker.protocol === '3.1' || broker.protocol === '5' ? broker.protocol : '3.1.1';
  return {
    broker: broker.host,
    port: broker.port,
    username: broker.username,
    password: broker.password,
    keepalive: 60,
    tls_insecure: false,
    protocol,
    discovery,
    discovery_prefix: prefix,
    birth_message: { ...DEFAULT_BIRTH, topic: `${prefix}/status` },
    will_message: { ...DEFAULT_WILL, topic: `${prefix}/status` },
  };
}
