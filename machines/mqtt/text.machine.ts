import { assign, emit, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';
import { isOptimistic, publishAndAssumeIfOptimistic } from './optimistic-command.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT text starts from. */
export interface MqttTextInput {
  /** the text, or null: unknown (a text restores nothing) */
  value: string | null;
  /** no state topic, or `optimistic: true`: a command sets the text itself */
  optimistic: boolean;
  min: number;
  max: number;
  /** the pattern's source, or null */
  pattern: string | null;
  entityId: string;
}

export interface MqttTextContext extends MqttTextInput {}

export type MqttTextEvent = { type: 'message'; value: string } | { type: 'set_value'; value: string };

export type MqttTextEmitted = MqttPublishRequest | { type: 'rejected'; message: string; translation: { domain: string; key: string; placeholders: Record<string, string> } };

/** re.match of the pattern: anchored at the start only. */
export function matchesPattern(pattern: string, value: string): boolean {
  return new RegExp(`^(?:${pattern})`).test(value);
}

/** Why a value is not one the text can take (the original's words), or undefined. */
export function textProblem(context: Pick<MqttTextContext, 'min' | 'max' | 'pattern' | 'entityId'>, value: string): { key: string; message: string; placeholders: Record<string, string> } | undefined {
  const length = [...value].length;
  const entity_id = context.entityId;
  if (length < context.min) {
    return { key: 'value_too_short', message: `Value ${value} for ${entity_id} is too short (minimum length ${context.min})`, placeholders: { value, entity_id, min_length: String(context.min) } };
  }
  if (length > context.max) {
    return { key: 'value_too_long', message: `Value ${value} for ${entity_id} is too long (maximum length ${context.max})`, placeholders: { value, entity_id, max_length: String(context.max) } };
  }
  if (context.pattern !== null && !matchesPattern(context.pattern, value)) {
    return { key: 'pattern_not_matched', message: `Value ${value} for ${entity_id} doesn't match pattern ${context.pattern}`, placeholders: { value, entity_id, pattern: context.pattern } };
  }
  return undefined;
}

/**
 * An MQTT text: its value comes from its state topic; set_value refuses a value shorter than
 * min, longer than max or not matching the pattern, else publishes it through the command
 * template and, in optimistic mode, takes it at once.
 */
export const mqttTextMachine = setup({
  types: {
    context: {} as MqttTextContext,
    events: {} as MqttTextEvent,
    input: {} as MqttTextInput,
    emitted: {} as MqttTextEmitted,
  },
  actions: {
    take: assign(({ event }) => ({ value: event.value })),
    refuse: emit(({ context, event }) => {
      const problem = textProblem(context, event.value)!;
      return { type: 'rejected' as const, message: problem.message, translation: { domain: 'text', key: problem.key, placeholders: problem.placeholders } };
    }),
    publish: emit(({ event }) => ({ type: 'publish' as const, topic: 'command_topic', value: event.value, template: 'command_template' })),
  },
  guards: {
    invalid: ({ context, event }) => event.type === 'set_value' && textProblem(context, event.value) !== undefined,
    optimistic: isOptimistic,
  },
}).createMachine(
  runningOnMessages('mqtt_text', {
    set_value: [{ guard: 'invalid', actions: 'refuse' }, ...publishAndAssumeIfOptimistic('publish', 'take')],
  }),
);
