import { mqttEventMachine } from '../../../machines/mqtt/event.machine.ts';
import { restoredTime } from './restore.ts';
import { InvalidValue, toStr } from '../schema.ts';
import { listOf, optional, orNull, required, toTemplate } from '../schema.ts';
import { validSubscribeTopic } from '../topics.ts';
import { EVENT_NAMES } from './device-class-names.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { parseJsonObject } from './state-payloads.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

const DEVICE_CLASSES = ['button', 'doorbell', 'motion'];

export interface MqttEventConfig extends MqttEntityConfig {
  state_topic: string;
  value_template?: string;
  event_types: string[];
}

/** vol.All(vol.Lower, vol.Coerce(EventDeviceClass)). */
function toEventDeviceClass(value: unknown): string {
  const text = toStr(value).toLowerCase();
  if (!DEVICE_CLASSES.includes(text)) throw new InvalidValue(`expected EventDeviceClass or one of ${DEVICE_CLASSES.map((c) => `'${c}'`).join(', ')}`);
  return text;
}

/** datetime.isoformat(timespec="milliseconds") of a UTC time. */
export function isoMilliseconds(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/** Attributes of a restored state that are not the event's own data. */
const NOT_EVENT_DATA = new Set(['event_types', 'event_type', 'friendly_name', 'icon', 'entity_picture', 'device_class', 'assumed_state', 'supported_features', 'unit_of_measurement']);

/**
 * event: a stateless event source. Each (not retained) state message holding a JSON object with
 * an `event_type` among event_types is an event: the state is its time, its attributes its type
 * and the object's other keys.
 */
export const mqttEvent: MqttPlatform<MqttEventConfig> = {
  domain: 'event',
  defaultName: 'MQTT Event',
  deviceClassNames: EVENT_NAMES,
  fields: {
    state_topic: required(validSubscribeTopic),
    value_template: optional(toTemplate),
    device_class: optional(orNull(toEventDeviceClass)),
    event_types: required(listOf(toStr)),
  },
  keptOnUpdate: ['lastEvent', 'eventType', 'extra'],
  machine: mqttEventMachine,
  // an event entity restores its last event, as the original's EventEntity does
  input: (_config, restored) => {
    const last = restoredTime(restored);
    if (!restored || last === null) return { lastEvent: null, eventType: null, extra: {} };
    const a = restored.attributes;
    return {
      lastEvent: last,
      eventType: typeof a.event_type === 'string' ? a.event_type : null,
      extra: Object.fromEntries(Object.entries(a).filter(([k]) => !NOT_EVENT_DATA.has(k))),
    };
  },
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        // a retained message is an old event replayed, not a new one
        if (m.retain) return undefined;
        const payload = m.payload;
        if (payload === null || payload === '' || payload === PAYLOAD_NONE || payload === '{}') return undefined;
        const parsed = parseJsonObject(payload);
        if (parsed === undefined) {
          m.warn(`No valid JSON event payload detected, value after processing payload '${payload}' on topic ${m.topic}`);
          return undefined;
        }
        if (!('event_type' in parsed)) {
          m.warn(`\`event_type\` missing in JSON event payload,  '${payload}' on topic ${m.topic}`);
          return undefined;
        }
        const { event_type, ...extra } = parsed;
        const eventType = typeof event_type === 'string' ? event_type : JSON.stringify(event_type);
        if (!m.config.event_types.includes(eventType)) {
          m.warn(`Invalid event type ${eventType} for ${m.entityId} received on topic ${m.topic}, payload ${payload}`);
          return undefined;
        }
        return { type: 'message', time: m.now, eventType, extra };
      },
    },
  ],
  render: (snapshot, config) => {
    const { lastEvent, eventType, extra } = snapshot.context as { lastEvent: number | null; eventType: string | null; extra: Record<string, unknown> };
    return {
      state: lastEvent === null ? null : isoMilliseconds(lastEvent),
      capabilities: { event_types: config.event_types },
      attributes: { event_type: eventType, ...extra },
    };
  },
  services: [],
  blockedAttributes: ['event_type', 'event_types'],
  registryInfo: (config) => ({ capabilities: { event_types: config.event_types } }),
};
