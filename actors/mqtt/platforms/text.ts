import { mqttTextMachine, textProblem } from '../../../machines/mqtt/text.machine.ts';
import { InvalidValue, oneOf, toBool, toPositiveInt, toStr } from '../schema.ts';
import { textServices } from '../../entities/platforms/text.ts';
import { MAX_STATE_LENGTH } from '../../entities/state.ts';
import { optional, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

export interface MqttTextConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  value_template?: string;
  min: number;
  max: number;
  mode: 'text' | 'password';
  pattern?: string;
  optimistic: boolean;
  retain: boolean;
}

/** cv.is_regex: a pattern that compiles. */
function toPattern(value: unknown): string {
  const text = toStr(value);
  try {
    new RegExp(text);
  } catch {
    throw new InvalidValue(`Invalid regular expression '${text}'`);
  }
  return text;
}

const capabilities = (c: MqttTextConfig) => ({ min: c.min, max: c.max, mode: c.mode, pattern: c.pattern ?? null });

/** text: a string from its state topic, set over its command topic, within min/max length and a pattern. */
export const mqttText: MqttPlatform<MqttTextConfig> = {
  domain: 'text',
  defaultName: 'MQTT Text',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
    min: optional(toPositiveInt, 0),
    max: optional(toPositiveInt, MAX_STATE_LENGTH),
    mode: optional((v) => oneOf(v, ['text', 'password'] as const), 'text'),
    pattern: optional(toPattern),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
  },
  refine(config) {
    if (config.min > config.max) return 'text length min must be <= max';
    if (config.max > MAX_STATE_LENGTH) return `max text length must be <= ${MAX_STATE_LENGTH}`;
    return undefined;
  },
  keptOnUpdate: ['value'],
  machine: mqttTextMachine,
  input: (config, _restored, _now, entityId) => ({
    value: null,
    optimistic: isOptimisticFor(config),
    min: config.min,
    max: config.max,
    pattern: config.pattern ?? null,
    entityId,
  }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (m.payload === null) return undefined;
        if (m.payload.length > MAX_STATE_LENGTH) {
          m.warn(
            `Cannot update state for entity ${m.entityId} after processing payload on topic ${m.topic}. The requested state (${m.payload.length}) exceeds the maximum allowed length (${MAX_STATE_LENGTH}). Fall back to unknown, failed state: ${m.payload.slice(0, 8192)}`,
          );
          return undefined;
        }
        // a value the text cannot show (too short, too long, not matching) is not written
        const problem = textProblem({ ...m.config, pattern: m.config.pattern ?? null, entityId: m.entityId }, m.payload);
        if (problem) {
          m.warn(`Entity ${m.entityId} provides state ${m.payload} which ${problem.key === 'value_too_short' ? `is too short (expected minimum ${m.config.min})` : problem.key === 'value_too_long' ? `is too long (expected maximum ${m.config.max})` : `does not match expected pattern ${m.config.pattern}`}`);
          return undefined;
        }
        return { type: 'message', value: m.payload };
      },
    },
  ],
  render: (snapshot, config) => ({ state: snapshot.context.value as string | null, capabilities: capabilities(config), assumed_state: isOptimisticFor(config) }),
  services: textServices,
  blockedAttributes: ['min', 'max', 'mode', 'pattern'],
  registryInfo: (config) => ({ capabilities: capabilities(config) }),
};
