import { assign, emit, setup } from 'xstate';

/** FanEntityFeature. */
export const FAN_SET_SPEED = 1;
export const FAN_OSCILLATE = 2;
export const FAN_DIRECTION = 4;
export const FAN_PRESET_MODE = 8;
export const FAN_TURN_OFF = 16;
export const FAN_TURN_ON = 32;

export interface FanConfig {
  speed_count: number;
  preset_modes: string[];
  features: number;
}

/** A fan's settings: percentage 0 and no preset mode means off. */
export interface FanSettings {
  percentage: number;
  preset_mode: string | null;
  oscillating: boolean;
  direction: 'forward' | 'reverse';
  /** the speed turn_on without a percentage goes back to */
  last_percentage: number;
}

export interface FanInput {
  entityId: string;
  config: FanConfig;
  on: boolean;
  settings: FanSettings;
}

export interface FanContext extends FanInput {}

export type FanEvent =
  | { type: 'turn_on'; percentage?: number; preset_mode?: string }
  | { type: 'turn_off' }
  | { type: 'toggle' }
  | { type: 'set_percentage'; percentage: number }
  | { type: 'increase_speed'; percentage_step?: number }
  | { type: 'decrease_speed'; percentage_step?: number }
  | { type: 'set_preset_mode'; preset_mode: string }
  | { type: 'oscillate'; oscillating: boolean }
  | { type: 'set_direction'; direction: 'forward' | 'reverse' };

export type FanEmitted = {
  type: 'rejected';
  code: 'service_validation_error';
  message: string;
  translation: { domain: string; key: string; placeholders: Record<string, string> };
};

/** The percentage of the fan's speed that a percentage asks for (a 3-speed fan at 50% runs at 66%). */
export function snapPercentage(percentage: number, speedCount: number): number {
  if (percentage === 0) return 0;
  const speed = Math.ceil((speedCount * percentage) / 100);
  return Math.trunc(Math.floor((speed * 100) / speedCount));
}

/** The original's _async_adjust_speed: by the given step, else one speed up or down. */
export function adjustedPercentage(current: number, modifier: 1 | -1, step: number | undefined, speedCount: number): number {
  let next: number;
  if (step !== undefined) next = current + step * modifier;
  else {
    const index = Math.ceil((speedCount * current) / 100);
    next = Math.trunc(Math.floor(((index + modifier) * 100) / speedCount));
  }
  return Math.max(0, Math.min(100, next));
}

/** A preset mode the fan does not have, refused as the original refuses it (not_valid_preset_mode). */
export function presetRejection(preset: string, presetModes: readonly string[]): FanEmitted {
  const modes = presetModes.join(', ');
  return {
    type: 'rejected',
    code: 'service_validation_error',
    message: `Preset mode ${preset} is not valid, valid preset modes are: ${modes}.`,
    translation: { domain: 'fan', key: 'not_valid_preset_mode', placeholders: { preset_mode: preset, preset_modes: modes } },
  };
}

const presetOf = (event: FanEvent) => ('preset_mode' in event ? event.preset_mode : undefined);

function percentageAsked(context: FanContext, event: FanEvent): number | undefined {
  switch (event.type) {
    case 'turn_on':
      return event.percentage;
    case 'set_percentage':
      return event.percentage;
    case 'increase_speed':
      return adjustedPercentage(context.settings.percentage, 1, event.percentage_step, context.config.speed_count);
    case 'decrease_speed':
      return adjustedPercentage(context.settings.percentage, -1, event.percentage_step, context.config.speed_count);
    default:
      return undefined;
  }
}

/** A fan: on or off, its speed as a percentage (in steps of its speed count), preset modes, oscillation, direction. */
export const fanMachine = setup({
  types: {
    context: {} as FanContext,
    events: {} as FanEvent,
    emitted: {} as FanEmitted,
    input: {} as FanInput,
  },
  actions: {
    turnOn: assign(({ context, event }) => {
      const s = { ...context.settings };
      const preset = presetOf(event);
      const asked = percentageAsked(context, event);
      if (preset !== undefined) {
        // a preset replaces the speed, as the original's demo fan shows it
        s.preset_mode = preset;
        s.percentage = 0;
      } else {
        s.percentage = snapPercentage(asked ?? s.last_percentage, context.config.speed_count);
        s.preset_mode = null;
        if (s.percentage > 0) s.last_percentage = s.percentage;
      }
      return { settings: s };
    }),
    turnOff: assign(({ context }) => ({ settings: { ...context.settings, percentage: 0, preset_mode: null } })),
    setOscillating: assign(({ context, event }) => (event.type === 'oscillate' ? { settings: { ...context.settings, oscillating: event.oscillating } } : {})),
    setDirection: assign(({ context, event }) => (event.type === 'set_direction' ? { settings: { ...context.settings, direction: event.direction } } : {})),
    rejectPreset: emit(({ context, event }) => presetRejection(String(presetOf(event)), context.config.preset_modes)),
  },
  guards: {
    startedOn: ({ context }) => context.on,
    invalidPreset: ({ context, event }) => {
      const preset = presetOf(event);
      return preset !== undefined && !context.config.preset_modes.includes(preset);
    },
    /** the call leaves the fan without speed or preset: off */
    endsOff: ({ context, event }) => presetOf(event) === undefined && percentageAsked(context, event) === 0,
  },
}).createMachine({
  id: 'fan',
  context: ({ input }) => input,
  initial: 'starting',
  on: {
    oscillate: { actions: 'setOscillating' },
    set_direction: { actions: 'setDirection' },
  },
  states: {
    starting: {
      always: [{ guard: 'startedOn', target: 'on' }, { target: 'off' }],
    },
    on: {
      on: {
        turn_off: { target: 'off', actions: 'turnOff' },
        toggle: { target: 'off', actions: 'turnOff' },
        turn_on: [{ guard: 'invalidPreset', actions: 'rejectPreset' }, { guard: 'endsOff', target: 'off', actions: 'turnOff' }, { actions: 'turnOn' }],
        set_percentage: [{ guard: 'endsOff', target: 'off', actions: 'turnOff' }, { actions: 'turnOn' }],
        increase_speed: [{ guard: 'endsOff', target: 'off', actions: 'turnOff' }, { actions: 'turnOn' }],
        decrease_speed: [{ guard: 'endsOff', target: 'off', actions: 'turnOff' }, { actions: 'turnOn' }],
        set_preset_mode: [{ guard: 'invalidPreset', actions: 'rejectPreset' }, { actions: 'turnOn' }],
      },
    },
    off: {
      on: {
        turn_off: { actions: 'turnOff' },
        turn_on: [{ guard: 'invalidPreset', actions: 'rejectPreset' }, { guard: 'endsOff', actions: 'turnOff' }, { target: 'on', actions: 'turnOn' }],
        toggle: { target: 'on', actions: 'turnOn' },
        set_percentage: [{ guard: 'endsOff', actions: 'turnOff' }, { target: 'on', actions: 'turnOn' }],
        increase_speed: [{ guard: 'endsOff', actions: 'turnOff' }, { target: 'on', actions: 'turnOn' }],
        decrease_speed: [{ guard: 'endsOff', actions: 'turnOff' }, { target: 'on', actions: 'turnOn' }],
        set_preset_mode: [{ guard: 'invalidPreset', actions: 'rejectPreset' }, { target: 'on', actions: 'turnOn' }],
      },
    },
  },
});
