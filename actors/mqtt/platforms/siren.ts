import { mqttSirenMachine, processParams, type SirenSettings } from '../../../machines/mqtt/siren.machine.ts';
import { toBool, toStr } from '../schema.ts';
import { SIREN_DURATION, SIREN_TONES, SIREN_TURN_OFF, SIREN_TURN_ON, SIREN_VOLUME_SET, sirenParams, sirenServices } from '../../entities/platforms/siren.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { parseJsonObject } from './state-payloads.ts';
import { listOf, optional, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform, ReadMessage } from './types.ts';

export interface MqttSirenConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  command_off_template?: string;
  state_topic?: string;
  state_value_template?: string;
  available_tones?: Array<string | number>;
  payload_on: string;
  payload_off: string;
  state_on?: string;
  state_off?: string;
  support_duration: boolean;
  support_volume_set: boolean;
  optimistic: boolean;
  retain: boolean;
}

/** cv.ensure_list: the tones as they are given (strings or numbers). */
const toToneItem = (v: unknown): string | number => (typeof v === 'number' ? v : toStr(v));

function features(c: MqttSirenConfig): number {
  let f = SIREN_TURN_ON | SIREN_TURN_OFF;
  if (c.support_duration) f |= SIREN_DURATION;
  if (c.available_tones && c.available_tones.length) f |= SIREN_TONES;
  if (c.support_volume_set) f |= SIREN_VOLUME_SET;
  return f;
}

/** The attributes a siren shows from the start: each parameter it supports, null. */
function initialSettings(c: MqttSirenConfig): SirenSettings {
  const s: SirenSettings = {};
  if (c.support_duration) s.duration = null;
  if (c.available_tones && c.available_tones.length) s.tone = null;
  if (c.support_volume_set) s.volume_level = null;
  return s;
}

/** A parameter of a state message that the turn_on schema refuses, in voluptuous's words; undefined when all pass. */
function paramProblem(data: Record<string, unknown>): string | undefined {
  for (const [key, v] of Object.entries(data)) {
    if (key === 'tone') {
      if (v === null || typeof v === 'object') return `expected str for dictionary value @ data['tone']`;
    } else if (key === 'duration') {
      const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : NaN;
      if (Number.isNaN(n)) return `expected int for dictionary value @ data['duration']`;
      if (n < 0) return `value must be at least 0 for dictionary value @ data['duration']`;
    } else if (key === 'volume_level') {
      const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
      if (Number.isNaN(n)) return `expected float for dictionary value @ data['volume_level']`;
      if (n < 0 || n > 1) return `value must be at most 1 for dictionary value @ data['volume_level']`;
    } else return `extra keys not allowed @ data['${key}']`;
  }
  return undefined;
}

/** A state message: a state payload, or a JSON object with `state` and turn_on's parameters. */
function readState(m: ReadMessage<MqttSirenConfig>) {
  const { config } = m;
  const payload = m.payload;
  if (payload === null || payload === '' || payload === '{}') return undefined;
  const stateOn = config.state_on || config.payload_on;
  const stateOff = config.state_off || config.payload_off;
  let json: Record<string, unknown>;
  if (payload === stateOn || payload === stateOff || payload === PAYLOAD_NONE) json = { state: payload };
  else {
    const parsed = parseJsonObject(payload);
    if (parsed === undefined) {
      m.warn(`No valid (JSON) payload detected after processing payload '{}' on topic ${m.topic}`);
      return undefined;
    }
    json = { ...parsed };
  }
  let on: boolean | null | undefined;
  if ('state' in json) {
    if (json.state === stateOn) on = true;
    if (json.state === stateOff) on = false;
    if (json.state === PAYLOAD_NONE) on = null;
    delete json.state;
  }
  let settings: SirenSettings | undefined;
  if (Object.keys(json).length) {
    const problem = paramProblem(json);
    // the state the message carried still counts
    if (problem) {
      m.warn(`Unable to update siren state attributes from payload '${JSON.stringify(json)}': ${problem}`);
      return on === undefined ? undefined : { type: 'message', on };
    }
    const processed = processParams({ features: features(config), availableTones: config.available_tones ?? null, entityId: m.entityId }, sirenParams(json));
    if (typeof processed === 'string') {
      m.warn(processed);
      return on === undefined ? undefined : { type: 'message', on };
    }
    settings = processed;
  }
  return { type: 'message', on, settings };
}

/** siren: on/off with a tone, a duration and a volume, from its state topic; turned on and off over its command topic. */
export const mqttSiren: MqttPlatform<MqttSirenConfig> = {
  domain: 'siren',
  defaultName: 'MQTT Siren',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    command_off_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    state_value_template: optional(toTemplate),
    available_tones: optional(listOf(toToneItem)),
    payload_on: optional(toStr, 'ON'),
    payload_off: optional(toStr, 'OFF'),
    state_on: optional(toStr),
    state_off: optional(toStr),
    support_duration: optional(toBool, true),
    support_volume_set: optional(toBool, true),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
  },
  keptOnUpdate: ['on', 'settings'],
  machine: mqttSirenMachine,
  input: (config, _restored, _now, entityId) => ({
    on: isOptimisticFor(config) ? false : null,
    settings: initialSettings(config),
    optimistic: isOptimisticFor(config),
    features: features(config),
    availableTones: config.available_tones ?? null,
    payloadOn: config.payload_on,
    payloadOff: config.payload_off,
    offTemplate: config.command_off_template !== undefined ? 'command_off_template' : 'command_template',
    entityId,
  }),
  subscriptions: () => [{ topicKey: 'state_topic', templateKey: 'state_value_template', read: readState }],
  render: (snapshot, config) => {
    const on = snapshot.context.on as boolean | null;
    const f = features(config);
    return {
      state: on === null ? null : on ? 'on' : 'off',
      capabilities: f & SIREN_TONES ? { available_tones: config.available_tones } : {},
      attributes: { ...(snapshot.context.settings as SirenSettings) },
      assumed_state: isOptimisticFor(config),
      supported_features: f,
    };
  },
  services: sirenServices,
  blockedAttributes: ['available_tones', 'duration', 'tone', 'volume_level'],
  registryInfo: (config) => ({
    capabilities: features(config) & SIREN_TONES ? { available_tones: config.available_tones } : null,
    supported_features: features(config),
  }),
};
