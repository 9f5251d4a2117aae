import { assign, emit, raise, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';
import { isOptimistic, publishAndAssumeIfOptimistic, toggleByTurningOffOrOn } from './optimistic-command.ts';
import { runningOnMessages } from './running-machine.ts';

/** A siren's turn_on parameters (tone, duration, volume_level), as the siren's features allow them. */
export interface SirenSettings {
  tone?: string | number | null;
  duration?: number | null;
  volume_level?: number | null;
}

/** What an MQTT siren starts from. */
export interface MqttSirenInput {
  /** optimistic sirens start off, others unknown (null) */
  on: boolean | null;
  /** the attributes it shows: each supported parameter, null until set */
  settings: SirenSettings;
  optimistic: boolean;
  /** the SirenEntityFeature bits */
  features: number;
  availableTones: Array<string | number> | null;
  payloadOn: string;
  payloadOff: string;
  /** the option naming the template turn_off renders with (command_off_template, else command_template) */
  offTemplate: string;
  entityId: string;
}

export interface MqttSirenContext extends MqttSirenInput {}

export type MqttSirenEvent =
  /** a state message: `on` undefined leaves the state, `settings` the parameters it carried */
  | { type: 'message'; on?: boolean | null; settings?: SirenSettings }
  | { type: 'turn_on'; params: SirenSettings }
  | { type: 'turn_off' }
  | { type: 'toggle' };

export type MqttSirenEmitted = MqttPublishRequest | { type: 'rejected'; message: string; code: 'home_assistant_error' };

const TONES = 4;
const VOLUME_SET = 8;
const DURATION = 16;

/**
 * The original's process_turn_on_params: parameters the siren does not support are dropped; a
 * tone must be one of the available tones. Returns the parameters, or the problem in its words.
 */
export function processParams(context: Pick<MqttSirenContext, 'features' | 'availableTones' | 'entityId'>, params: SirenSettings): SirenSettings | string {
  const out: SirenSettings = { ...params };
  if (!(context.features & TONES)) delete out.tone;
  else if (out.tone !== undefined && out.tone !== null && !(context.availableTones ?? []).includes(out.tone)) {
    return `Invalid tone specified for entity ${context.entityId}: ${out.tone}, check the available_tones attribute for valid tones to pass in`;
  }
  if (!(context.features & DURATION)) delete out.duration;
  if (!(context.features & VOLUME_SET)) delete out.volume_level;
  return out;
}

/** The settings after `params`: only those the siren shows (its supported ones) change. */
function updated(settings: SirenSettings, params: SirenSettings): SirenSettings {
  const next = { ...settings };
  for (const key of ['duration', 'tone', 'volume_level'] as const) if (key in next && params[key] !== undefined) (next as any)[key] = params[key];
  return next;
}

/**
 * An MQTT siren: on/off and its tone, duration and volume from its state topic (a payload or a
 * JSON object); turn_on publishes payload_on with the call's parameters (as JSON, or through the
 * command template), turn_off payload_off; in optimistic mode a command sets the state itself.
 */
export const mqttSirenMachine = setup({
  types: {
    context: {} as MqttSirenContext,
    events: {} as MqttSirenEvent,
    input: {} as MqttSirenInput,
    emitted: {} as MqttSirenEmitted,
  },
  actions: {
    take: assign(({ context, event }) => {
      if (event.type !== 'message') return {};
      return { on: event.on === undefined ? context.on : event.on, settings: event.settings ? updated(context.settings, event.settings) : context.settings };
    }),
    refuse: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'home_assistant_error' as const,
      message: String(processParams(context, event.type === 'turn_on' ? event.params : {})),
    })),
    publishOn: emit(({ context, event }) => {
      const params = processParams(context, event.type === 'turn_on' ? event.params : {}) as SirenSettings;
      return { type: 'publish' as const, topic: 'command_topic', value: context.payloadOn, template: 'command_template', variables: { state: context.payloadOn, ...params }, json: true, skipEmpty: true };
    }),
    publishOff: emit(({ context }) => ({ type: 'publish' as const, topic: 'command_topic', value: context.payloadOff, template: context.offTemplate, variables: { state: context.payloadOff }, json: true, skipEmpty: true })),
    assumeOn: assign(({ context, event }) => {
      const params = processParams(context, event.type === 'turn_on' ? event.params : {}) as SirenSettings;
      return { on: true, settings: updated(context.settings, params) };
    }),
    assumeOff: assign({ on: false }),
    turnOffInstead: raise({ type: 'turn_off' } as const),
    turnOnInstead: raise({ type: 'turn_on', params: {} } as const),
  },
  guards: {
    invalid: ({ context, event }) => event.type === 'turn_on' && typeof processParams(context, event.params) === 'string',
    optimistic: isOptimistic,
    isOn: ({ context }) => context.on === true,
  },
}).createMachine(
  runningOnMessages('mqtt_siren', {
    turn_on: [{ guard: 'invalid', actions: 'refuse' }, ...publishAndAssumeIfOptimistic('publishOn', 'assumeOn')],
    turn_off: publishAndAssumeIfOptimistic('publishOff', 'assumeOff'),
    toggle: toggleByTurningOffOrOn(),
  }),
);
