import { assign, emit, enqueueActions, setup } from 'xstate';
import { adjustedPercentage, presetRejection, type FanEmitted, type FanEvent } from '../fan.machine.ts';
import { percentageToRanged } from './cover.machine.ts';
import type { MqttPublishRequest } from './switch.machine.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT fan is built to do, from its options. */
export interface MqttFanSpec {
  /** commands set what it shows, per part (optimistic, or no state topic for it) */
  optimistic: boolean;
  optimisticPercentage: boolean;
  optimisticPresetMode: boolean;
  optimisticOscillation: boolean;
  optimisticDirection: boolean;
  speedRange: [number, number];
  /** the speeds it has (speed_count): at most 100 */
  speedCount: number;
  presetModes: string[];
}

/** What an MQTT fan shows: null is unknown. */
export interface MqttFanState {
  on: boolean | null;
  percentage: number | null;
  preset_mode: string | null;
  oscillating: boolean | null;
  direction: string | null;
}

export interface MqttFanInput {
  spec: MqttFanSpec;
  fan: MqttFanState;
}

export interface MqttFanContext extends MqttFanInput {}

/** The virtual fan's services (a direction is any text here: the device's), and messages from its topics. */
export type MqttFanEvent =
  | { type: 'message'; patch: Partial<MqttFanState> }
  | Exclude<FanEvent, { type: 'set_direction' }>
  | { type: 'set_direction'; direction: string };

export type MqttFanEmitted = MqttPublishRequest | FanEmitted;

const publish = (topic: string, template: string, payload: { option: string } | { value: string | number }): MqttPublishRequest => ({
  type: 'publish',
  topic,
  template,
  ...('option' in payload ? { payload: payload.option } : { value: payload.value }),
});

/** The original's _async_adjust_speed (the virtual fan's): a step, or the next of the fan's speeds. */
const adjusted = (c: MqttFanContext, modifier: 1 | -1, step: number | undefined) => adjustedPercentage(c.fan.percentage ?? 0, modifier, step, c.spec.speedCount);

/** The preset mode a call names, when the fan does not have it. */
function invalidPreset(c: MqttFanContext, event: MqttFanEvent): string | undefined {
  const preset = 'preset_mode' in event ? event.preset_mode : undefined;
  return preset !== undefined && !c.spec.presetModes.includes(preset) ? preset : undefined;
}

/**
 * An MQTT fan: on or off, a percentage of its speed range, a preset mode, oscillation and
 * direction, each from its own state topic (or assumed, in optimistic mode). Each command
 * publishes on its own command topic through its own command template.
 */
export const mqttFanMachine = setup({
  types: {
    context: {} as MqttFanContext,
    events: {} as MqttFanEvent,
    input: {} as MqttFanInput,
    emitted: {} as MqttFanEmitted,
  },
  actions: {
    take: assign(({ context, event }) => (event.type === 'message' ? { fan: { ...context.fan, ...event.patch } } : {})),
    rejectPreset: emit(({ context, event }) => presetRejection(String(invalidPreset(context, event)), context.spec.presetModes)),
    command: enqueueActions(({ context, event, enqueue }) => {
      const { spec } = context;
      const fan = { ...context.fan };
      const setPercentage = (percentage: number) => {
        enqueue.emit(publish('percentage_command_topic', 'percentage_command_template', { value: Math.ceil(percentageToRanged(spec.speedRange, percentage)) }));
        if (spec.optimisticPercentage) fan.percentage = percentage;
      };
      const setPreset = (preset: string) => {
        enqueue.emit(publish('preset_mode_command_topic', 'preset_mode_command_template', { value: preset }));
        if (spec.optimisticPresetMode) fan.preset_mode = preset;
      };
      const turnOn = (percentage?: number, preset?: string) => {
        enqueue.emit(publish('command_topic', 'command_template', { option: 'payload_on' }));
        if (percentage) setPercentage(percentage);
        if (preset) setPreset(preset);
        if (spec.optimistic) fan.on = true;
      };
      const turnOff = () => {
        enqueue.emit(publish('command_topic', 'command_template', { option: 'payload_off' }));
        if (spec.optimistic) fan.on = false;
      };
      switch (event.type) {
        case 'turn_on':
          turnOn(event.percentage, event.preset_mode);
          break;
        case 'turn_off':
          turnOff();
          break;
        case 'toggle':
          if (context.fan.on === true) turnOff();
          else turnOn();
          break;
        case 'set_percentage':
          setPercentage(event.percentage);
          break;
        case 'increase_speed':
          setPercentage(adjusted(context, 1, event.percentage_step));
          break;
        case 'decrease_speed':
          setPercentage(adjusted(context, -1, event.percentage_step));
          break;
        case 'set_preset_mode':
          setPreset(event.preset_mode);
          break;
        case 'oscillate':
          enqueue.emit(publish('oscillation_command_topic', 'oscillation_command_template', { option: event.oscillating ? 'payload_oscillation_on' : 'payload_oscillation_off' }));
          if (spec.optimisticOscillation) fan.oscillating = event.oscillating;
          break;
        case 'set_direction':
          enqueue.emit(publish('direction_command_topic', 'direction_command_template', { value: event.direction }));
          if (spec.optimisticDirection) fan.direction = event.direction;
          break;
      }
      enqueue.assign({ fan });
    }),
  },
  guards: {
    invalidPreset: ({ context, event }) => invalidPreset(context, event) !== undefined,
  },
}).createMachine(
  runningOnMessages('mqtt_fan', {
    turn_on: [{ guard: 'invalidPreset', actions: 'rejectPreset' }, { actions: 'command' }],
    set_preset_mode: [{ guard: 'invalidPreset', actions: 'rejectPreset' }, { actions: 'command' }],
    turn_off: { actions: 'command' },
    toggle: { actions: 'command' },
    set_percentage: { actions: 'command' },
    increase_speed: { actions: 'command' },
    decrease_speed: { actions: 'command' },
    oscillate: { actions: 'command' },
    set_direction: { actions: 'command' },
  }),
);
