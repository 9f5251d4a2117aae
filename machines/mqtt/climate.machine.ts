import { assign, emit, enqueueActions, setup } from 'xstate';
import { climateProblem, climateRejection, turnOnMode, type ClimateContext, type ClimateEmitted, type ClimateEvent, type HvacMode } from '../climate.machine.ts';
import { PyFloat } from './py-float.ts';
import type { MqttPublishRequest } from './switch.machine.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT climate device is built to do, from its options. */
export interface MqttClimateSpec {
  /** optimistic: true */
  optimistic: boolean;
  /** which topics are set */
  has: Record<string, boolean>;
  /** heat_cool beside heat or cool: one setpoint or a range is active at a time (the other parked) */
  singleAndRange: boolean;
  hvacModes: HvacMode[];
  fanModes: string[];
  presetModes: string[];
  swingModes: string[];
  minTemp: number;
  maxTemp: number;
  minHumidity: number;
  maxHumidity: number;
  features: number;
  /** the device's unit: temperatures are converted from and to the system's (°C) */
  fahrenheit: boolean;
}

/** What an MQTT climate device shows (in its own unit): null is unknown. */
export interface MqttClimateState {
  hvac_mode: string | null;
  hvac_action: string | null;
  current_temperature: number | null;
  temperature: number | null;
  target_temp_low: number | null;
  target_temp_high: number | null;
  current_humidity: number | null;
  humidity: number | null;
  fan_mode: string | null;
  swing_mode: string | null;
  preset_mode: string | null;
  parkedTemperature: number | null;
  parkedRange: [number | null, number | null];
}

export interface MqttClimateInput {
  spec: MqttClimateSpec;
  climate: MqttClimateState;
}

export interface MqttClimateContext extends MqttClimateInput {}

export type MqttClimateEvent =
  | { type: 'message'; patch: Partial<MqttClimateState> }
  | { type: 'setpoint'; key: 'temperature' | 'target_temp_low' | 'target_temp_high'; value: number | null }
  | ClimateEvent;

export type MqttClimateEmitted = MqttPublishRequest | ClimateEmitted;

/** A system temperature (°C) in the device's unit. */
const toDevice = (spec: MqttClimateSpec, t: number) => (spec.fahrenheit ? t * 1.8 + 32 : t);

/** The virtual thermostat's view of this device, for the checks every climate service makes. */
function asChecked(spec: MqttClimateSpec): ClimateContext {
  const shown = (t: number) => (spec.fahrenheit ? (t - 32) / 1.8 : t);
  return {
    config: {
      features: spec.features,
      hvac_modes: spec.hvacModes,
      min_temp: shown(spec.minTemp),
      max_temp: shown(spec.maxTemp),
      target_temp_step: null,
      min_humidity: spec.minHumidity,
      max_humidity: spec.maxHumidity,
      fan_modes: spec.fanModes,
      preset_modes: spec.presetModes,
      swing_modes: spec.swingModes,
    },
  } as unknown as ClimateContext;
}

/** _park_single_setpoint: a range is active; the single setpoint waits. */
function parkSingle(spec: MqttClimateSpec, c: MqttClimateState): void {
  if (!spec.singleAndRange || c.temperature === null) return;
  c.parkedTemperature = c.temperature;
  c.temperature = null;
}

/** _park_range_setpoints: a single setpoint is active; the range waits. */
function parkRange(spec: MqttClimateSpec, c: MqttClimateState): void {
  if (!spec.singleAndRange || (c.target_temp_low === null && c.target_temp_high === null)) return;
  c.parkedRange = [c.target_temp_low, c.target_temp_high];
  c.target_temp_low = null;
  c.target_temp_high = null;
}

/** _swap_setpoints: an assumed mode change brings back the setpoints that mode uses. */
function swapSetpoints(spec: MqttClimateSpec, c: MqttClimateState, mode: string): void {
  if (!spec.singleAndRange || !['cool', 'heat', 'heat_cool'].includes(mode)) return;
  const range = mode === 'heat_cool';
  if (spec.optimistic || !spec.has.temperature_state_topic) {
    if (range) parkSingle(spec, c);
    else if (c.temperature === null) c.temperature = c.parkedTemperature;
  }
  if (spec.optimistic || (!spec.has.temperature_low_state_topic && !spec.has.temperature_high_state_topic)) {
    if (!range) parkRange(spec, c);
    else if (c.target_temp_low === null && c.target_temp_high === null) [c.target_temp_low, c.target_temp_high] = c.parkedRange;
  }
}

/**
 * An MQTT climate device: its HVAC mode (the state), action, temperatures, humidity and fan,
 * swing and preset modes, each from its own topic; each command on its own topic through its
 * own template. A part without a state topic (or every part, with optimistic: true) takes what
 * its command sets. The services' checks are the virtual thermostat's (the original's).
 */
export const mqttClimateMachine = setup({
  types: {
    context: {} as MqttClimateContext,
    events: {} as MqttClimateEvent,
    input: {} as MqttClimateInput,
    emitted: {} as MqttClimateEmitted,
  },
  actions: {
    take: assign(({ context, event }) => (event.type === 'message' ? { climate: { ...context.climate, ...event.patch } } : {})),
    takeSetpoint: assign(({ context, event }) => {
      if (event.type !== 'setpoint') return {};
      const c = { ...context.climate, [event.key]: event.value };
      if (event.value !== null) {
        if (event.key === 'temperature') parkRange(context.spec, c);
        else parkSingle(context.spec, c);
      }
      return { climate: c };
    }),
    reject: emit(({ context, event }) => climateRejection(climateProblem(asChecked(context.spec), event as ClimateEvent)!)),
    command: enqueueActions(({ context, event, enqueue }) => {
      const { spec } = context;
      const c: MqttClimateState = { ...context.climate, parkedRange: [...context.climate.parkedRange] as [number | null, number | null] };
      const assumes = (stateTopic: string) => spec.optimistic || !spec.has[stateTopic];
      const send = (topic: string, template: string, value: MqttPublishRequest['value'] | { option: string }) => {
        if (!spec.has[topic]) return;
        if (value !== null && typeof value === 'object' && 'option' in value) enqueue.emit({ type: 'publish', topic, template, payload: value.option });
        else enqueue.emit({ type: 'publish', topic, template, value });
      };
      /** a part's command on its `<part>_command_topic`, taken at once when it has no `<part>_state_topic` (or in optimistic mode) */
      const setPart = <K extends 'humidity' | 'fan_mode' | 'swing_mode' | 'preset_mode'>(part: string, key: K, value: NonNullable<MqttClimateState[K]>) => {
        send(`${part}_command_topic`, `${part}_command_template`, value);
        if (assumes(`${part}_state_topic`)) c[key] = value;
      };
      const setMode = (mode: string) => {
        send('mode_command_topic', 'mode_command_template', mode);
        if (assumes('mode_state_topic')) {
          c.hvac_mode = mode;
          swapSetpoints(spec, c, mode);
        }
      };
      const turnOn = () => {
        if (spec.has.power_command_topic) return send('power_command_topic', 'power_command_template', { option: 'payload_on' });
        const mode = turnOnMode(spec.hvacModes);
        if (mode) setMode(mode);
      };
      const turnOff = () => {
        if (spec.has.power_command_topic) {
          send('power_command_topic', 'power_command_template', { option: 'payload_off' });
          if (spec.optimistic) c.hvac_mode = 'off';
          return;
        }
        if (spec.hvacModes.includes('off')) setMode('off');
      };
      switch (event.type) {
        case 'turn_on':
          turnOn();
          break;
        case 'turn_off':
          turnOff();
          break;
        case 'toggle':
          if (c.hvac_mode === 'off') turnOn();
          else turnOff();
          break;
        case 'set_hvac_mode':
          setMode(event.hvac_mode);
          break;
        case 'set_temperature': {
          if (event.hvac_mode !== undefined) setMode(event.hvac_mode);
          const setpoint = (value: number | undefined, key: 'temperature' | 'target_temp_low' | 'target_temp_high', topic: string, stateTopic: string) => {
            if (value === undefined) return;
            const t = toDevice(spec, value);
            if (assumes(stateTopic)) {
              c[key] = t;
              if (key === 'temperature') parkRange(spec, c);
              else parkSingle(spec, c);
            }
            send(`${topic}_command_topic`, `${topic}_command_template`, new PyFloat(t));
          };
          setpoint(event.temperature, 'temperature', 'temperature', 'temperature_state_topic');
          setpoint(event.target_temp_low, 'target_temp_low', 'temperature_low', 'temperature_low_state_topic');
          setpoint(event.target_temp_high, 'target_temp_high', 'temperature_high', 'temperature_high_state_topic');
          break;
        }
        case 'set_humidity':
          setPart('target_humidity', 'humidity', event.humidity);
          break;
        case 'set_fan_mode':
          setPart('fan_mode', 'fan_mode', event.fan_mode);
          break;
        case 'set_swing_mode':
          setPart('swing_mode', 'swing_mode', event.swing_mode);
          break;
        case 'set_preset_mode':
          setPart('preset_mode', 'preset_mode', event.preset_mode);
          break;
      }
      enqueue.assign({ climate: c });
    }),
  },
  guards: {
    refused: ({ context, event }) => climateProblem(asChecked(context.spec), event as ClimateEvent) !== undefined,
  },
}).createMachine(
  runningOnMessages('mqtt_climate', {
    setpoint: { actions: 'takeSetpoint' },
    turn_on: { actions: 'command' },
    turn_off: { actions: 'command' },
    toggle: { actions: 'command' },
    set_hvac_mode: [{ guard: 'refused', actions: 'reject' }, { actions: 'command' }],
    set_temperature: [{ guard: 'refused', actions: 'reject' }, { actions: 'command' }],
    set_humidity: [{ guard: 'refused', actions: 'reject' }, { actions: 'command' }],
    set_fan_mode: [{ guard: 'refused', actions: 'reject' }, { actions: 'command' }],
    set_preset_mode: [{ guard: 'refused', actions: 'reject' }, { actions: 'command' }],
    set_swing_mode: [{ guard: 'refused', actions: 'reject' }, { actions: 'command' }],
  }),
);
