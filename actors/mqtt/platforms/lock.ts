import { LOCK_OPEN } from '../../../machines/lock.machine.ts';
import { UNKNOWN_LOCK, lockStateOf, mqttLockMachine, type MqttLockState } from '../../../machines/mqtt/lock.machine.ts';
import { lockDomain } from '../../entities/platforms/lock.ts';
import { optional, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { hasNonBlankPayload } from './state-payloads.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { InvalidValue, toBool, toStr } from '../schema.ts';

export interface MqttLockConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  value_template?: string;
  code_format?: string;
  optimistic: boolean;
  retain: boolean;
  payload_lock: string;
  payload_unlock: string;
  payload_open?: string;
  payload_reset: string;
  state_jammed: string;
  state_locked: string;
  state_locking: string;
  state_open: string;
  state_opening: string;
  state_unlocked: string;
  state_unlocking: string;
}

/** cv.is_regex. */
function toRegex(value: unknown): string {
  const pattern = toStr(value);
  try {
    new RegExp(pattern);
  } catch {
    throw new InvalidValue(`Invalid regular expression '${pattern}'`);
  }
  return pattern;
}

/** lock: locked, unlocked, locking, unlocking, open, opening, jammed from its state topic; lock, unlock and open with a code. */
export const mqttLock: MqttPlatform<MqttLockConfig> = {
  domain: 'lock',
  defaultName: 'MQTT Lock',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
    code_format: optional(toRegex),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
    payload_lock: optional(toStr, 'LOCK'),
    payload_unlock: optional(toStr, 'UNLOCK'),
    payload_open: optional(toStr),
    payload_reset: optional(toStr, 'None'),
    state_jammed: optional(toStr, 'JAMMED'),
    state_locked: optional(toStr, 'LOCKED'),
    state_locking: optional(toStr, 'LOCKING'),
    state_open: optional(toStr, 'OPEN'),
    state_opening: optional(toStr, 'OPENING'),
    state_unlocked: optional(toStr, 'UNLOCKED'),
    state_unlocking: optional(toStr, 'UNLOCKING'),
  },
  machine: mqttLockMachine,
  keptOnUpdate: ['lock'],
  // the original's MQTT lock restores nothing: it waits for its device (or its commands)
  input: (config, _restored, _now, entityId) => ({ entityId, optimistic: isOptimisticFor(config), codeFormat: config.code_format ?? null, lock: UNKNOWN_LOCK }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (!hasNonBlankPayload(m)) return undefined;
        const c = m.config;
        const p = m.payload;
        if (p === c.payload_reset) return { type: 'message', lock: UNKNOWN_LOCK };
        const states = [c.state_jammed, c.state_locked, c.state_locking, c.state_open, c.state_opening, c.state_unlocked, c.state_unlocking];
        if (!states.includes(p)) return undefined;
        const lock: MqttLockState = {
          locked: p === c.state_locked,
          locking: p === c.state_locking,
          unlocking: p === c.state_unlocking,
          opening: p === c.state_opening,
          open: p === c.state_open,
          jammed: p === c.state_jammed,
        };
        return { type: 'message', lock };
      },
    },
  ],
  render: (snapshot, config) => {
    const lock = snapshot.context.lock as MqttLockState;
    return {
      state: lockStateOf(lock),
      attributes: config.code_format !== undefined ? { code_format: config.code_format } : {},
      assumed_state: isOptimisticFor(config),
      supported_features: config.payload_open !== undefined ? LOCK_OPEN : 0,
    };
  },
  services: lockDomain.services,
  blockedAttributes: ['changed_by', 'code_format'],
  registryInfo: (config) => ({ supported_features: config.payload_open !== undefined ? LOCK_OPEN : 0 }),
};
