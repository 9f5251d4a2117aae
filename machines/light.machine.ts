import { assign, emit, setup } from 'xstate';
import { LIGHT_EFFECT, resolveTurnOn, type LightConfig, type LightParams, type LightSettings } from './light-params.ts';

export type { LightConfig, LightParams, LightSettings };

/** What a light starts from: its configuration, whether it is on, and its settings (restored or defaults). */
export interface LightInput {
  entityId: string;
  config: LightConfig;
  on: boolean;
  settings: LightSettings;
}

export interface LightContext {
  entityId: string;
  config: LightConfig;
  /** read once, by the `starting` state */
  startedOn: boolean;
  settings: LightSettings;
}

export type LightEvent =
  | { type: 'turn_on'; params: LightParams }
  | { type: 'turn_off'; params: Record<string, unknown> }
  | { type: 'toggle'; params: LightParams };

export type LightEmitted = { type: 'rejected'; message: string; code: 'service_validation_error' };

type WasOn = { wasOn: boolean };

const paramsOf = (event: LightEvent) => event.params as LightParams;

/**
 * A light: `on` / `off`, and while on its brightness, colour mode and colour. turn_on (and
 * toggle of an off light) applies what the light supports of the call; brightness 0 turns it
 * off; an effect must be one of its effect_list.
 */
export const lightMachine = setup({
  types: {
    context: {} as LightContext,
    events: {} as LightEvent,
    emitted: {} as LightEmitted,
    input: {} as LightInput,
  },
  actions: {
    applyTurnOn: assign(({ context, event }, { wasOn }: WasOn) => {
      const resolved = resolveTurnOn(context.config, context.settings, wasOn, paramsOf(event));
      return resolved.off ? {} : { settings: resolved.settings };
    }),
    rejectEffect: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'service_validation_error' as const,
      message: `Effect ${paramsOf(event).effect} is not supported by ${context.entityId} (effect_list: ${context.config.effect_list.join(', ')})`,
    })),
  },
  guards: {
    startedOn: ({ context }) => context.startedOn,
    unknownEffect: ({ context, event }) => {
      const effect = paramsOf(event).effect;
      return effect !== undefined && (context.config.features & LIGHT_EFFECT) !== 0 && !context.config.effect_list.includes(effect);
    },
    turnsOff: ({ context, event }, { wasOn }: WasOn) => resolveTurnOn(context.config, context.settings, wasOn, paramsOf(event)).off,
  },
}).createMachine({
  id: 'light',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, startedOn: input.on, settings: input.settings }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'startedOn', target: 'on' }, { target: 'off' }],
    },
    on: {
      on: {
        turn_on: [
          { guard: 'unknownEffect', actions: 'rejectEffect' },
          { guard: { type: 'turnsOff', params: { wasOn: true } }, target: 'off' },
          { actions: { type: 'applyTurnOn', params: { wasOn: true } } },
        ],
        turn_off: 'off',
        toggle: 'off',
      },
    },
    off: {
      on: {
        turn_on: [
          { guard: 'unknownEffect', actions: 'rejectEffect' },
          { guard: { type: 'turnsOff', params: { wasOn: false } }, target: 'off' },
          { target: 'on', actions: { type: 'applyTurnOn', params: { wasOn: false } } },
        ],
        toggle: [
          { guard: 'unknownEffect', actions: 'rejectEffect' },
          { guard: { type: 'turnsOff', params: { wasOn: false } }, target: 'off' },
          { target: 'on', actions: { type: 'applyTurnOn', params: { wasOn: false } } },
        ],
      },
    },
  },
});
