import { assign, emit, enqueueActions, setup } from 'xstate';
import { planOff, planOn, type LightSpec } from './light-commands.ts';
import { LIGHT_EFFECT, offKwargs, onKwargs, type LightCallParams, type LightKwargs } from './light-service.ts';
import type { LightState } from './light-state.ts';
import type { MqttPublishRequest } from './switch.machine.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT light starts from: what its schema makes of its config, and its state (restored in optimistic mode). */
export interface MqttLightInput {
  entityId: string;
  spec: LightSpec;
  light: LightState;
}

export interface MqttLightContext extends MqttLightInput {}

export type MqttLightEvent =
  /** what a message said: the attributes it changed */
  | { type: 'message'; patch: Partial<LightState> }
  | { type: 'turn_on'; params: LightCallParams }
  | { type: 'turn_off'; params: Record<string, unknown> }
  | { type: 'toggle'; params: LightCallParams };

export type MqttLightEmitted = MqttPublishRequest | { type: 'rejected'; message: string; code: 'service_validation_error' };

const facts = (c: MqttLightContext) => ({
  isOn: c.light.on === true,
  brightness: c.light.brightness,
  modes: c.spec.modes,
  features: c.spec.features,
  minKelvin: c.spec.minKelvin,
  maxKelvin: c.spec.maxKelvin,
});

/** turn_on's data as the light takes it: its kwargs, or off (brightness 0). */
const resolveOn = (c: MqttLightContext, params: LightCallParams) => onKwargs(params, facts(c));

/** An effect the light does not list (the original's light service refuses it). */
function unknownEffect(c: MqttLightContext, params: LightCallParams): boolean {
  const effect = params.effect;
  return effect !== undefined && (c.spec.features & LIGHT_EFFECT) !== 0 && c.spec.effectList !== null && !c.spec.effectList.includes(effect);
}

/**
 * An MQTT light of any of the original's schemas: its state is what its topics last said (or,
 * in optimistic mode, what its commands assumed); turn_on publishes what its schema makes of
 * the call, turn_off its off payload; toggle turns off what is on and on anything else.
 */
export const mqttLightMachine = setup({
  types: {
    context: {} as MqttLightContext,
    events: {} as MqttLightEvent,
    input: {} as MqttLightInput,
    emitted: {} as MqttLightEmitted,
  },
  actions: {
    take: assign(({ context, event }) => (event.type === 'message' ? { light: { ...context.light, ...event.patch } } : {})),
    rejectEffect: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'service_validation_error' as const,
      message: `Effect ${(event as { params: LightCallParams }).params.effect} is not supported by ${context.entityId} (effect_list: ${(context.spec.effectList ?? []).join(', ')})`,
    })),
    turnOn: enqueueActions(({ context, event, enqueue }) => {
      const resolved = resolveOn(context, (event as { params: LightCallParams }).params);
      const plan = resolved.off ? planOff(context.spec, resolved.kwargs) : planOn(context.spec, context.light, resolved.kwargs);
      for (const p of plan.publishes) enqueue.emit(p);
      enqueue.assign({ light: { ...context.light, ...plan.patch } });
    }),
    turnOff: enqueueActions(({ context, event, enqueue }) => {
      const kwargs: LightKwargs = offKwargs((event as { params: Record<string, unknown> }).params ?? {}, context.spec.features);
      const plan = planOff(context.spec, kwargs);
      for (const p of plan.publishes) enqueue.emit(p);
      enqueue.assign({ light: { ...context.light, ...plan.patch } });
    }),
  },
  guards: {
    isOn: ({ context }) => context.light.on === true,
    unknownEffect: ({ context, event }) => unknownEffect(context, (event as { params: LightCallParams }).params),
  },
}).createMachine(
  runningOnMessages('mqtt_light', {
    turn_on: [{ guard: 'unknownEffect', actions: 'rejectEffect' }, { actions: 'turnOn' }],
    turn_off: { actions: 'turnOff' },
    toggle: [
      { guard: 'isOn', actions: 'turnOff' },
      { guard: 'unknownEffect', actions: 'rejectEffect' },
      { actions: 'turnOn' },
    ],
  }),
);
