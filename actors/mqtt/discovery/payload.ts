import { expandAbbreviations } from './abbreviations.ts';

/**
 * Reading discovery messages, pure: which component and id a topic names, the payload's JSON
 * with abbreviations spelled out and the `~` base topic applied, and a device message
 * (`<prefix>/device/<id>/config`, its `cmps`) split into one config per component.
 */

/** The platforms discovery knows (the original's SUPPORTED_COMPONENTS); others are refused with a warning. */
export const SUPPORTED_COMPONENTS = [
  'alarm_control_panel', 'binary_sensor', 'button', 'camera', 'climate', 'cover', 'device_automation', 'device_tracker', 'event', 'fan',
  'humidifier', 'image', 'lawn_mower', 'light', 'lock', 'notify', 'number', 'scene', 'select', 'sensor', 'siren', 'switch', 'tag', 'text',
  'update', 'vacuum', 'valve', 'water_heater',
] as const;

/** Options a device message's body shares with its components unless a component sets its own (the original's SHARED_OPTIONS). */
export const SHARED_OPTIONS = [
  'availability', 'availability_mode', 'availability_template', 'availability_topic', 'command_topic', 'payload_available', 'payload_not_available',
  'state_topic', 'qos', 'encoding',
] as const;

const TOPIC_MATCHER = /^(\w+)\/(?:([a-zA-Z0-9_-]+)\/)?([a-zA-Z0-9_-]+)\/config$/;

/** One component's discovery: its platform, id (the original's discovery hash) and config (empty: removal). */
export interface ComponentDiscovery {
  component: string;
  /** `<node_id> <object_id>` or `<object_id>`, as the original joins them */
  discoveryId: string;
  /** the topic the config came on (a device message's, for its components) */
  topic: string;
  config: Record<string, unknown>;
  /** came in a device message */
  fromDevice: boolean;
}

/** What a message on the discovery topics is. */
export type DiscoveryMessage =
  | { kind: 'ignored' }
  | { kind: 'invalid'; warning: string }
  | { kind: 'components'; items: ComponentDiscovery[]; origin?: Record<string, unknown> }
  | { kind: 'device_removed'; deviceNodeId: string; topic: string };

function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function replaceBase(value: string, base: string): string {
  let out = value;
  if (out.startsWith('~')) out = `${base}${out.slice(1)}`;
  if (out.endsWith('~')) out = `${out.slice(0, -1)}${base}`;
  return out;
}

/** `~` at the start or end of any `*topic` value (and of each availability item's topic) becomes the base topic. */
export function applyBaseTopic(config: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(config, '~')) return config;
  const base = String(config['~']);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === '~') continue;
    out[k] = typeof v === 'string' && v !== '' && k.endsWith('topic') ? replaceBase(v, base) : v;
  }
  if (out.availability) {
    const list = Array.isArray(out.availability) ? out.availability : [out.availability];
    const fixed = list.map((a) => (isDict(a) && typeof a.topic === 'string' && a.topic !== '' ? { ...a, topic: replaceBase(a.topic, base) } : a));
    out.availability = Array.isArray(out.availability) ? fixed : fixed[0];
  }
  return out;
}

/** Parses JSON text that must hold an object; undefined otherwise. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return isDict(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads one message of `<prefix>/...`: a component's config, or a device message split into its
 * components. An empty payload is a removal (for a device message: of all its components, which
 * only the caller knows). Problems come back as the original's warnings.
 */
export function readDiscoveryMessage(prefix: string, topic: string, payload: string): DiscoveryMessage {
  const trimmed = topic.startsWith(`${prefix}/`) ? topic.slice(prefix.length + 1) : topic;
  const match = TOPIC_MATCHER.exec(trimmed);
  if (!match) {
    if (trimmed.endsWith('config')) {
      return { kind: 'invalid', warning: `Received message on illegal discovery topic '${topic}'. The topic contains non allowed characters. For more information see https://www.home-assistant.io/integrations/mqtt/#discovery-topic` };
    }
    return { kind: 'ignored' };
  }
  const [, component, nodeId, objectId] = match;
  if (component === 'device') return readDeviceMessage(topic, payload, objectId, nodeId);
  if (!(SUPPORTED_COMPONENTS as readonly string[]).includes(component)) return { kind: 'invalid', warning: `Integration ${component} is not supported` };
  const discoveryId = nodeId ? `${nodeId} ${objectId}` : objectId;
  if (payload === '') return { kind: 'components', items: [{ component, discoveryId, topic, config: {}, fromDevice: false }] };
  const parsed = jsonObject(payload);
  if (!parsed) return { kind: 'invalid', warning: `Unable to parse JSON ${objectId}: '${payload}'` };
  const config = applyBaseTopic(expandAbbreviations(parsed));
  return { kind: 'components', items: [{ component, discoveryId, topic, config, fromDevice: false }], origin: isDict(config.origin) ? config.origin : undefined };
}

function readDeviceMessage(topic: string, payload: string, objectId: string, nodeId: string | undefined): DiscoveryMessage {
  const deviceNodeId = nodeId ? `${nodeId} ${objectId}` : objectId;
  if (payload === '') return { kind: 'device_removed', deviceNodeId, topic };
  const parsed = jsonObject(payload);
  if (!parsed) return { kind: 'invalid', warning: `Unable to parse JSON ${objectId}: '${payload}'` };
  const body = expandAbbreviations(parsed);
  const problem = deviceMessageProblem(body);
  if (problem) return { kind: 'invalid', warning: `Invalid MQTT device discovery payload for ${objectId}, ${problem}: '${payload}'` };
  const items: ComponentDiscovery[] = [];
  for (const [componentId, raw] of Object.entries(body.components as Record<string, Record<string, unknown>>)) {
    const { platform, ...rest } = raw;
    // the device's id is the components' node id; a node id in the topic comes before the component's id
    const discoveryId = `${objectId} ${nodeId ? `${nodeId} ${componentId}` : componentId}`;
    let config: Record<string, unknown> = {};
    // a component of nothing but its platform is one the device no longer has
    if (Object.keys(rest).length > 0) {
      config = { ...rest, device: body.device, origin: body.origin };
      for (const option of SHARED_OPTIONS) if (Object.hasOwn(body, option) && !Object.hasOwn(config, option)) config[option] = body[option];
      if (Object.hasOwn(body, '~') && !Object.hasOwn(config, '~')) config['~'] = body['~'];
      config = applyBaseTopic(config);
    }
    items.push({ component: String(platform), discoveryId, topic, config, fromDevice: true });
  }
  return { kind: 'components', items, origin: body.origin as Record<string, unknown> };
}

/** What the original's DEVICE_DISCOVERY_SCHEMA refuses at the level of the whole message. */
function deviceMessageProblem(body: Record<string, unknown>): string | undefined {
  if (!Object.hasOwn(body, 'device')) return "required key not provided @ data['device']";
  if (!isDict(body.device)) return "expected a dictionary for dictionary value @ data['device']";
  if (!Object.hasOwn(body, 'origin')) return "required key not provided @ data['origin']";
  if (!isDict(body.origin) || typeof body.origin.name !== 'string') return "required key not provided @ data['origin']['name']";
  if (!Object.hasOwn(body, 'components')) return "required key not provided @ data['components']";
  if (!isDict(body.components)) return "expected a dictionary for dictionary value @ data['components']";
  for (const [id, c] of Object.entries(body.components)) {
    if (!isDict(c)) return `expected a dictionary for dictionary value @ data['components']['${id}']`;
    if (!Object.hasOwn(c, 'platform')) return `required key not provided @ data['components']['${id}']['platform']`;
    if (!(SUPPORTED_COMPONENTS as readonly string[]).includes(String(c.platform))) {
      return `value must be one of [${SUPPORTED_COMPONENTS.map((s) => `'${s}'`).join(', ')}] for dictionary value @ data['components']['${id}']['platform']`;
    }
  }
  return undefined;
}
