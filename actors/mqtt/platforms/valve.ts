import { COVER_CLOSE, COVER_OPEN, COVER_SET_POSITION, COVER_STOP } from '../../../machines/cover.machine.ts';
import { rangedToPercentage } from '../../../machines/mqtt/cover.machine.ts';
import { mqttValveMachine, valveStateOf, type MqttValveSpec, type MqttValveState } from '../../../machines/mqtt/valve.machine.ts';
import { valveDomain } from '../../entities/platforms/valve.ts';
import { optional, orNull, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { oneOf, toBool, toInt, toStr } from '../schema.ts';
import { parseFloatText } from '../../../machines/python/float.ts';

export interface MqttValveConfig extends MqttEntityConfig {
  command_topic?: string;
  command_template?: string;
  state_topic?: string;
  value_template?: string;
  optimistic: boolean;
  retain: boolean;
  reports_position: boolean;
  payload_open?: string | null;
  payload_close?: string | null;
  payload_stop?: string | null;
  position_open: number;
  position_closed: number;
  state_open?: string;
  state_closed?: string;
  state_opening: string;
  state_closing: string;
}

/** The options a valve that reports its position may not have, and their defaults otherwise. */
const NO_POSITION_DEFAULTS: Record<string, string> = { payload_close: 'CLOSE', payload_open: 'OPEN', state_open: 'open', state_closed: 'closed' };

/** What a valve can do: open and close with their payloads, a position when it reports one, stop with payload_stop. */
function valveFeatures(c: MqttValveConfig): number {
  let f = 0;
  if (c.command_topic !== undefined) {
    if (c.payload_open !== null) f |= COVER_OPEN;
    if (c.payload_close !== null) f |= COVER_CLOSE;
  }
  if (c.reports_position) f |= COVER_SET_POSITION;
  if (c.payload_stop !== undefined && c.payload_stop !== null) f |= COVER_STOP;
  return f;
}

const valveSpec = (c: MqttValveConfig): MqttValveSpec => ({
  optimistic: isOptimisticFor(c),
  reportsPosition: c.reports_position,
  positionOpen: c.position_open,
  positionClosed: c.position_closed,
  features: valveFeatures(c),
});

/** valve: open, closed, opening, closing, and a position when it reports one; its payloads through one command template. */
export const mqttValve: MqttPlatform<MqttValveConfig> = {
  domain: 'valve',
  defaultName: 'MQTT Valve',
  fields: {
    command_topic: optional(validPublishTopic),
    command_template: optional(toTemplate),
    device_class: optional(orNull((v) => oneOf(v, valveDomain.deviceClasses!))),
    optimistic: optional(toBool, false),
    payload_close: optional(orNull(toStr)),
    payload_open: optional(orNull(toStr)),
    payload_stop: optional(orNull(toStr)),
    position_closed: optional(toInt, 0),
    position_open: optional(toInt, 100),
    reports_position: optional(toBool, false),
    retain: optional(toBool, false),
    state_closed: optional(toStr),
    state_closing: optional(toStr, 'closing'),
    state_open: optional(toStr),
    state_opening: optional(toStr, 'opening'),
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
  },
  refine(c) {
    if (c.reports_position && Object.keys(NO_POSITION_DEFAULTS).some((k) => c[k] !== undefined)) {
      return 'Options `payload_open`, `payload_close`, `state_open` and `state_closed` are not allowed if the valve reports a position.';
    }
    // the defaults come in after the check (the original's _validate_and_add_defaults)
    for (const [k, v] of Object.entries(NO_POSITION_DEFAULTS)) if (c[k] === undefined) (c as Record<string, unknown>)[k] = v;
    return undefined;
  },
  machine: mqttValveMachine,
  keptOnUpdate: ['valve'],
  // the original's MQTT valve restores nothing: it waits for its device (or its commands)
  input: (config) => ({ spec: valveSpec(config) }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (m.payload === null || m.payload === '') return undefined;
        const c = m.config;
        let position: unknown = m.payload;
        let state: unknown = m.payload;
        let parsed: unknown;
        try {
          parsed = JSON.parse(m.payload);
        } catch {
          // a plain payload
        }
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
          const dict = parsed as Record<string, unknown>;
          if (c.reports_position && !('position' in dict)) {
            m.warn(`Missing required \`position\` attribute in json payload on topic '${m.topic}', got: ${m.payload}`);
            return undefined;
          }
          if (!c.reports_position && !('state' in dict)) {
            m.warn(`Missing required \`state\` attribute in json payload  on topic '${m.topic}', got: ${m.payload}`);
            return undefined;
          }
          position = dict.position ?? null;
          state = dict.state ?? null;
        }
        if (!c.reports_position) {
          const word = state === c.state_opening ? 'opening' : state === c.state_closing ? 'closing' : state === c.state_open ? 'open' : state === c.state_closed ? 'closed' : undefined;
          if (word === undefined) {
            m.warn(`Payload received on topic '${m.topic}' is not one of [open, closed, opening, closing], got: ${String(state)}`);
            return undefined;
          }
          return { type: 'message', state: word };
        }
        let word: 'opening' | 'closing' | 'reset' | undefined = state === c.state_opening ? 'opening' : state === c.state_closing ? 'closing' : undefined;
        let percentage: number | undefined;
        if (word === undefined || position !== state) {
          const n = typeof position === 'number' ? position : position === null ? NaN : (parseFloatText(String(position)) ?? NaN);
          if (Number.isNaN(n)) m.warn(`Ignoring non numeric payload '${String(position)}' received on topic '${m.topic}'`);
          else {
            percentage = Math.min(Math.max(rangedToPercentage([c.position_closed + 1, c.position_open], n), 0), 100);
            // fully open or closed: no longer opening or closing
            if (word === undefined && (percentage === 0 || percentage === 100)) word = 'reset';
          }
        }
        if (state && word === undefined && percentage === undefined) {
          m.warn(`Payload received on topic '${m.topic}' is not one of [opening, closing], got: ${String(state)}`);
          return undefined;
        }
        if (word === undefined && percentage === undefined) return undefined;
        return { type: 'message', ...(word ? { state: word } : {}), ...(percentage !== undefined ? { position: percentage } : {}) };
      },
    },
  ],
  render: (snapshot, config) => {
    const { spec, valve } = snapshot.context as { spec: MqttValveSpec; valve: MqttValveState };
    return {
      state: valveStateOf(spec, valve),
      attributes: spec.reportsPosition ? { current_position: valve.position } : {},
      assumed_state: spec.optimistic,
      supported_features: valveFeatures(config),
    };
  },
  services: valveDomain.services,
  blockedAttributes: ['current_position'],
  registryInfo: (config) => ({ supported_features: valveFeatures(config) }),
};
