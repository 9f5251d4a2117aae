/**
 * The original's device automation platforms of the domains Hearth has (each domain's
 * device_action.py, device_trigger.py and device_condition.py): which actions, triggers and
 * conditions an entity offers, from its supported features, colour modes or device class, and
 * the extra fields each one takes, in voluptuous-serialize's form.
 */

/** What a platform reads of one entity: its current attributes, else what its registry entry says. */
export interface EntityFacts {
  supportedFeatures: number;
  colorModes: string[];
  deviceClass: string | null;
}

/** One serialized field of a capability's schema (voluptuous-serialize). */
export type ExtraField = Record<string, unknown> & { name: string };

/** A template of what an entity offers: its `type` and any keys beside it. */
export type Template = Record<string, string>;

/** What a record is: something to do, something that starts an automation, something to check. */
export type AutomationKind = 'action' | 'trigger' | 'condition';

/**
 * One domain's platform. A list function answers the templates an entity offers; a
 * capabilities function answers the extra fields of one (`undefined`: none, which the original
 * answers as an empty list), and a domain without one answers `{}`.
 */
export interface AutomationPlatform {
  list: Partial<Record<AutomationKind, (facts: EntityFacts) => Template[]>>;
  capabilities: Partial<Record<AutomationKind, (type: string, facts: EntityFacts | undefined) => ExtraField[] | undefined>>;
}

const types = (...names: string[]): Template[] => names.map((type) => ({ type }));

// cv.positive_time_period_dict
const FOR: ExtraField = { name: 'for', optional: true, type: 'positive_time_period_dict' };
const forOnly = () => [FOR];

// vol.All(vol.Coerce(int), vol.Range(min=0, max=100)) with its default
const percent = (name: string, fallback: number): ExtraField => ({ name, optional: true, type: 'integer', default: fallback, valueMin: 0, valueMax: 100 });

/** toggle_entity: what switches, fans and lights have in common. */
const toggleEntity: AutomationPlatform = {
  list: {
    action: () => types('turn_off', 'turn_on', 'toggle'),
    // entity.py's changed_states before toggle_entity's own
    trigger: () => types('changed_states', 'turned_off', 'turned_on'),
    condition: () => types('is_off', 'is_on'),
  },
  capabilities: { trigger: forOnly, condition: forOnly },
};

const LIGHT_FLASH = 8;
const BRIGHTNESS_MODES = new Set(['brightness', 'color_temp', 'hs', 'xy', 'rgb', 'rgbw', 'rgbww', 'white']);
const brightnessSupported = (facts: EntityFacts) => facts.colorModes.some((m) => BRIGHTNESS_MODES.has(m));

const light: AutomationPlatform = {
  list: {
    ...toggleEntity.list,
    action: (facts) => [
      ...types('turn_off', 'turn_on', 'toggle'),
      ...(brightnessSupported(facts) ? types('brightness_increase', 'brightness_decrease') : []),
      ...(facts.supportedFeatures & LIGHT_FLASH ? types('flash') : []),
    ],
  },
  capabilities: {
    ...toggleEntity.capabilities,
    // only turn_on takes extra fields; an entity that cannot be found has none
    action: (type, facts) => {
      if (type !== 'turn_on') return undefined;
      const fields: ExtraField[] = [];
      if (facts && brightnessSupported(facts)) fields.push({ name: 'brightness_pct', optional: true, type: 'float', valueMin: 0, valueMax: 100 });
      if (facts && facts.supportedFeatures & LIGHT_FLASH) fields.push({ name: 'flash', optional: true, type: 'select', options: [['short', 'short'], ['long', 'long']] });
      return fields.length ? fields : undefined;
    },
  },
};

const COVER = { OPEN: 1, CLOSE: 2, SET_POSITION: 4, STOP: 8, OPEN_TILT: 16, CLOSE_TILT: 32, SET_TILT_POSITION: 128 };
const opensAndCloses = (f: number) => (f & (COVER.OPEN | COVER.CLOSE)) !== 0;

const cover: AutomationPlatform = {
  list: {
    action: ({ supportedFeatures: f }) => [
      ...(f & COVER.SET_POSITION ? types('set_position') : []),
      ...(f & COVER.OPEN ? types('open') : []),
      ...(f & COVER.CLOSE ? types('close') : []),
      ...(f & COVER.STOP ? types('stop') : []),
      ...(f & COVER.SET_TILT_POSITION ? types('set_tilt_position') : []),
      ...(f & COVER.OPEN_TILT ? types('open_tilt') : []),
      ...(f & COVER.CLOSE_TILT ? types('close_tilt') : []),
    ],
    trigger: ({ supportedFeatures: f }) => [
      ...(opensAndCloses(f) ? types('opened', 'closed', 'opening', 'closing') : []),
      ...(f & COVER.SET_POSITION ? types('position') : []),
      ...(f & COVER.SET_TILT_POSITION ? types('tilt_position') : []),
    ],
    condition: ({ supportedFeatures: f }) => [
      ...(opensAndCloses(f) ? types('is_open', 'is_closed', 'is_opening', 'is_closing') : []),
      ...(f & COVER.SET_POSITION ? types('is_position') : []),
      ...(f & COVER.SET_TILT_POSITION ? types('is_tilt_position') : []),
    ],
  },
  capabilities: {
    action: (type) => (type === 'set_position' ? [percent('position', 0)] : type === 'set_tilt_position' ? [percent('tilt_position', 0)] : undefined),
    trigger: (type) => (type === 'position' || type === 'tilt_position' ? [percent('above', 0), percent('below', 100)] : [FOR]),
    condition: (type) => (type === 'is_position' || type === 'is_tilt_position' ? [percent('above', 0), percent('below', 100)] : undefined),
  },
};

const LOCK_OPEN = 1;

const lock: AutomationPlatform = {
  list: {
    action: (facts) => [...types('lock', 'unlock'), ...(facts.supportedFeatures & LOCK_OPEN ? types('open') : [])],
    trigger: () => types('jammed', 'locked', 'locking', 'open', 'opening', 'unlocked', 'unlocking'),
    condition: () => types('is_jammed', 'is_locked', 'is_locking', 'is_open', 'is_opening', 'is_unlocked', 'is_unlocking'),
  },
  capabilities: { trigger: forOnly },
};

/** binary_sensor: by device class, the trigger and condition of `on` and of `off`. */
const BINARY_SENSOR: Record<string, [on: string, off: string]> = {
  battery: ['bat_low', 'not_bat_low'],
  battery_charging: ['charging', 'not_charging'],
  carbon_monoxide: ['co', 'no_co'],
  cold: ['cold', 'not_cold'],
  connectivity: ['connected', 'not_connected'],
  door: ['opened', 'not_opened'],
  garage_door: ['opened', 'not_opened'],
  gas: ['gas', 'no_gas'],
  heat: ['hot', 'not_hot'],
  light: ['light', 'no_light'],
  lock: ['not_locked', 'locked'],
  moisture: ['moist', 'not_moist'],
  motion: ['motion', 'no_motion'],
  moving: ['moving', 'not_moving'],
  occupancy: ['occupied', 'not_occupied'],
  opening: ['opened', 'not_opened'],
  plug: ['plugged_in', 'not_plugged_in'],
  power: ['powered', 'not_powered'],
  presence: ['present', 'not_present'],
  problem: ['problem', 'no_problem'],
  running: ['running', 'not_running'],
  safety: ['unsafe', 'not_unsafe'],
  smoke: ['smoke', 'no_smoke'],
  sound: ['sound', 'no_sound'],
  tamper: ['tampered', 'not_tampered'],
  update: ['update', 'no_update'],
  vibration: ['vibration', 'no_vibration'],
  window: ['opened', 'not_opened'],
};
const NO_CLASS: [string, string] = ['turned_on', 'turned_off'];
// the conditions' names: is_<trigger>, except where the original names them otherwise
const CONDITION_OF: Record<string, string> = { opened: 'is_open', not_opened: 'is_not_open', turned_on: 'is_on', turned_off: 'is_off' };
const pairOf = (facts: EntityFacts) => (facts.deviceClass && BINARY_SENSOR[facts.deviceClass]) || NO_CLASS;

const binarySensor: AutomationPlatform = {
  list: {
    trigger: (facts) => types(...pairOf(facts)),
    condition: (facts) => types(...pairOf(facts).map((t) => CONDITION_OF[t] ?? `is_${t}`)),
  },
  capabilities: { trigger: forOnly, condition: forOnly },
};

/** The platforms by domain; a domain without one offers nothing. */
export const AUTOMATION_PLATFORMS: Record<string, AutomationPlatform> = {
  light,
  switch: toggleEntity,
  fan: toggleEntity,
  cover,
  lock,
  binary_sensor: binarySensor,
};
