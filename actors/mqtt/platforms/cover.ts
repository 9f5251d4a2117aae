import { pyRound } from '../../../machines/color.ts';
import { COVER_CLOSE, COVER_CLOSE_TILT, COVER_OPEN, COVER_OPEN_TILT, COVER_SET_POSITION, COVER_SET_TILT_POSITION, COVER_STOP, COVER_STOP_TILT } from '../../../machines/cover.machine.ts';
import { coverStateOf, mqttCoverMachine, rangedToPercentage, type MqttCoverSpec, type MqttCoverState } from '../../../machines/mqtt/cover.machine.ts';
import { coverDomain } from '../../entities/platforms/cover.ts';
import { optional, orNull, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { isEmptyPayload } from './state-payloads.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { oneOf, toBool, toInt, toStr } from '../schema.ts';
import { parseFloatText } from '../../../machines/python/float.ts';

export interface MqttCoverConfig extends MqttEntityConfig {
  command_topic?: string;
  state_topic?: string;
  value_template?: string;
  position_topic?: string;
  position_template?: string;
  set_position_topic?: string;
  set_position_template?: string;
  tilt_command_topic?: string;
  tilt_command_template?: string;
  tilt_status_topic?: string;
  tilt_status_template?: string;
  optimistic: boolean;
  retain: boolean;
  payload_open: string | null;
  payload_close: string | null;
  payload_stop: string | null;
  position_open: number;
  position_closed: number;
  state_open: string;
  state_opening: string;
  state_closed: string;
  state_closing: string;
  state_stopped: string;
  tilt_closed_value: number;
  tilt_opened_value: number;
  tilt_min: number;
  tilt_max: number;
  tilt_optimistic: boolean;
}

const TILT_FEATURES = COVER_OPEN_TILT | COVER_CLOSE_TILT | COVER_STOP_TILT | COVER_SET_TILT_POSITION;

/** Python's `int` as a schema: an integer, not a float or text. */
function toWholeNumber(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  return toInt(value);
}

/** What a cover can do: open and close with their payloads, stop, a position, a tilt. */
export function coverFeatures(c: MqttCoverConfig): number {
  let f = 0;
  if (c.command_topic !== undefined) {
    if (c.payload_open !== null) f |= COVER_OPEN;
    if (c.payload_close !== null) f |= COVER_CLOSE;
    if (c.payload_stop !== null) f |= COVER_STOP;
  }
  if (c.set_position_topic !== undefined) f |= COVER_SET_POSITION;
  if (c.tilt_command_topic !== undefined) f |= TILT_FEATURES;
  return f;
}

/** The original's optimistic rule: set, or every part it has is commanded without being reported. */
function coverSpec(c: MqttCoverConfig, entityId: string): MqttCoverSpec {
  const has = (k: keyof MqttCoverConfig) => c[k] !== undefined;
  const noPosition = !has('set_position_topic') && !has('position_topic');
  const noState = !has('command_topic') && !has('state_topic');
  const noTilt = !has('tilt_command_topic') && !has('tilt_status_topic');
  const optimisticPosition = has('set_position_topic') && !has('position_topic');
  const optimisticState = has('command_topic') && !has('state_topic');
  const optimisticTilt = has('tilt_command_topic') && !has('tilt_status_topic');
  return {
    entityId,
    optimistic: c.optimistic || ((noPosition || optimisticPosition) && (noState || optimisticState) && (noTilt || optimisticTilt)),
    tiltOptimistic: c.tilt_optimistic || !has('tilt_status_topic'),
    hasPosition: has('position_topic'),
    hasState: has('state_topic'),
    positionOpen: c.position_open,
    positionClosed: c.position_closed,
    tiltMin: c.tilt_min,
    tiltMax: c.tilt_max,
    tiltOpened: c.tilt_opened_value,
    tiltClosed: c.tilt_closed_value,
  };
}

/** A tilt payload as a percentage of the tilt range, or undefined when refused (logged). */
function readTilt(raw: unknown, c: MqttCoverConfig, warn: (line: string) => void): number | undefined {
  const n = typeof raw === 'number' ? raw : (parseFloatText(String(raw)) ?? NaN);
  if (Number.isNaN(n)) {
    warn(`Payload '${String(raw)}' is not numeric`);
    return undefined;
  }
  const payload = pyRound(n);
  if ((c.tilt_min <= payload && payload <= c.tilt_max) || (c.tilt_max <= payload && payload <= c.tilt_min)) {
    return rangedToPercentage([c.tilt_min + 1, c.tilt_max], payload);
  }
  warn(`Payload '${payload}' is out of range, must be between '${c.tilt_min}' and '${c.tilt_max}' inclusive`);
  return undefined;
}


/** cover: a state topic, a position topic, a tilt; open, close, stop, positions and tilts published as the device wants them. */
export const mqttCover: MqttPlatform<MqttCoverConfig> = {
  domain: 'cover',
  defaultName: 'MQTT Cover',
  fields: {
    command_topic: optional(validPublishTopic),
    device_class: optional(orNull((v) => oneOf(v, coverDomain.deviceClasses!))),
    position_topic: optional(validSubscribeTopic),
    optimistic: optional(toBool, false),
    payload_close: optional(orNull(toStr), 'CLOSE'),
    payload_open: optional(orNull(toStr), 'OPEN'),
    payload_stop: optional(orNull(toStr), 'STOP'),
    position_closed: optional(toWholeNumber, 0),
    position_open: optional(toWholeNumber, 100),
    retain: optional(toBool, false),
    set_position_template: optional(toTemplate),
    set_position_topic: optional(validPublishTopic),
    state_closed: optional(toStr, 'closed'),
    state_closing: optional(toStr, 'closing'),
    state_open: optional(toStr, 'open'),
    state_opening: optional(toStr, 'opening'),
    state_stopped: optional(toStr, 'stopped'),
    state_topic: optional(validSubscribeTopic),
    tilt_closed_value: optional(toWholeNumber, 0),
    tilt_command_topic: optional(validPublishTopic),
    tilt_max: optional(toWholeNumber, 100),
    tilt_min: optional(toWholeNumber, 0),
    tilt_opened_value: optional(toWholeNumber, 100),
    tilt_optimistic: optional(toBool, false),
    tilt_status_topic: optional(validSubscribeTopic),
    tilt_status_template: optional(toTemplate),
    value_template: optional(toTemplate),
    position_template: optional(toTemplate),
    tilt_command_template: optional(toTemplate),
  },
  refine(c) {
    const together = (a: keyof MqttCoverConfig, b: keyof MqttCoverConfig) => (c[a] !== undefined && c[b] === undefined ? `'${a}' must be set together with '${b}'.` : undefined);
    return (
      together('set_position_topic', 'position_topic') ??
      together('value_template', 'state_topic') ??
      together('position_template', 'position_topic') ??
      together('set_position_template', 'set_position_topic') ??
      together('tilt_command_template', 'tilt_command_topic') ??
      together('tilt_status_template', 'tilt_status_topic')
    );
  },
  machine: mqttCoverMachine,
  // the original's MQTT cover restores nothing: it waits for its device
  input: (config, _restored, _now, entityId) => ({ spec: coverSpec(config, entityId) }),
  subscriptions: () => [
    {
      topicKey: 'position_topic',
      templateKey: 'position_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        let payload: unknown = m.payload;
        let tilt: number | undefined;
        let tiltReported = false;
        let parsed: unknown;
        try {
          parsed = JSON.parse(m.payload!);
        } catch {
          // not JSON: the position itself
        }
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) && Object.keys(parsed).length) {
          const dict = parsed as Record<string, unknown>;
          if (!('position' in dict)) {
            m.warn('Template (position_template) returned JSON without position attribute');
            return undefined;
          }
          if ('tilt_position' in dict) {
            tiltReported = true;
            tilt = readTilt(dict.tilt_position, m.config, m.warn);
          }
          payload = dict.position;
        }
        const n = typeof payload === 'number' ? payload : (parseFloatText(String(payload)) ?? NaN);
        if (Number.isNaN(n)) {
          m.warn(`Payload '${String(payload)}' is not numeric`);
          return undefined;
        }
        const position = rangedToPercentage([m.config.position_closed + 1, m.config.position_open], n);
        return { type: 'position', position, ...(tilt !== undefined ? { tilt } : {}), ...(tiltReported ? { tiltReported } : {}) };
      },
    },
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        const c = m.config;
        const p = m.payload;
        const state = p === c.state_stopped ? 'stopped' : p === c.state_opening ? 'opening' : p === c.state_closing ? 'closing' : p === c.state_open ? 'open' : p === c.state_closed ? 'closed' : p === PAYLOAD_NONE ? null : undefined;
        if (state === undefined) {
          m.warn(`Payload is not supported (e.g. open, closed, opening, closing, stopped): ${p}`);
          return undefined;
        }
        return { type: 'state', state };
      },
    },
    {
      topicKey: 'tilt_status_topic',
      templateKey: 'tilt_status_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        const tilt = readTilt(m.payload, m.config, m.warn);
        return tilt === undefined ? undefined : { type: 'tilt', tilt };
      },
    },
  ],
  render: (snapshot, config) => {
    const { spec, cover } = snapshot.context as { spec: MqttCoverSpec; cover: MqttCoverState };
    const attributes: Record<string, unknown> = {};
    if (cover.position !== null) attributes.current_position = cover.position;
    if (cover.tilt !== null) attributes.current_tilt_position = cover.tilt;
    return { state: coverStateOf(cover), attributes, assumed_state: spec.optimistic, supported_features: coverFeatures(config) };
  },
  services: coverDomain.services,
  keptOnUpdate: ['cover'],
  blockedAttributes: ['current_position', 'current_tilt_position'],
  registryInfo: (config) => ({ supported_features: coverFeatures(config) }),
};

