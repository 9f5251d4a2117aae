import { BINARY_SENSOR_DEVICE_CLASSES, SENSOR_DEVICE_CLASSES, STATE_CLASSES } from '../entities/platforms/sensor.ts';
import { isObject } from '../json-object.ts';
import { pyRepr } from '../../machines/python/repr.ts';

/**
 * The data schemas of the sensor and location webhook actions (the original's voluptuous
 * schemas): pure checks that either give the cleaned data or say what is wrong, in the
 * original's humanised words where a client sees them (update_sensor_states' invalid_format).
 */

export type SensorType = 'sensor' | 'binary_sensor';
export const SENSOR_TYPES: readonly SensorType[] = ['binary_sensor', 'sensor'];
export type SensorStateValue = null | boolean | number | string;

/** A sensor as register_sensor gives it, defaults applied. */
export interface SensorRegistration {
  type: SensorType;
  unique_id: string;
  name: string;
  state: SensorStateValue;
  attributes: Record<string, unknown>;
  device_class?: string | null;
  unit_of_measurement?: string | null;
  state_class?: string | null;
  entity_category?: 'config' | 'diagnostic' | null;
  icon: string | null;
  disabled?: boolean;
}

/** One item of update_sensor_states, defaults applied. */
export interface SensorUpdate {
  type: SensorType;
  unique_id: string;
  state: SensorStateValue;
  attributes: Record<string, unknown>;
  icon: string;
}

/** The data of update_location, checked. */
export interface LocationUpdate {
  location_name?: string;
  gps?: [number, number];
  gps_accuracy?: number;
  battery?: number;
  speed?: number;
  altitude?: number;
  course?: number;
  vertical_accuracy?: number;
}

export const DEFAULT_ICON = 'mdi:cellphone';

const REGISTRATION_KEYS = ['attributes', 'device_class', 'name', 'type', 'unique_id', 'unit_of_measurement', 'state', 'entity_category', 'icon', 'state_class', 'disabled'];
const LOCATION_KEYS = ['location_name', 'gps', 'gps_accuracy', 'battery', 'speed', 'altitude', 'course', 'vertical_accuracy'];

/** One schema failure: the message and the key it is about (the original's Invalid with a path). */
interface Problem {
  key: string;
  message: string;
}

type Result<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStateValue = (v: unknown): v is SensorStateValue => v === null || typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string';
/** cv.string: a string, or a number made into one */
const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const isIcon = (v: unknown): v is string => typeof v === 'string' && v.includes(':');

/** vol.Coerce(float): a number, or a string that reads as one (bools are ints in Python) */
function toFloat(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

/** voluptuous' humanize_error over every problem, sorted as the original joins them. */
function humanise(data: Record<string, unknown>, problems: Problem[]): string {
  return problems
    .map((p) => `${p.message} @ data['${p.key}']. Got ${pyRepr(data[p.key])}`)
    .sort()
    .join('\n');
}

/** The loose first check of each update_sensor_states item: type and unique_id (other keys allowed). */
export function looseSensorItem(item: unknown): { type: SensorType; unique_id: string } | undefined {
  if (!isObject(item)) return undefined;
  if (!SENSOR_TYPES.includes(item.type as SensorType)) return undefined;
  const uniqueId = asString(item.unique_id);
  if (uniqueId === undefined) return undefined;
  return { type: item.type as SensorType, unique_id: uniqueId };
}

/** The full check of an update_sensor_states item; extra keys are refused. */
export function checkSensorUpdate(item: Record<string, unknown>): { ok: true; value: SensorUpdate } | { ok: false; message: string } {
  const problems: Problem[] = [];
  const allowed = ['attributes', 'icon', 'state', 'type', 'unique_id'];
  for (const key of Object.keys(item)) if (!allowed.includes(key)) problems.push({ key, message: 'extra keys not allowed' });
  if (!('state' in item)) problems.push({ key: 'state', message: 'required key not provided' });
  else if (!isStateValue(item.state)) problems.push({ key: 'state', message: 'not a valid value for dictionary value' });
  if ('attributes' in item && !isObject(item.attributes)) problems.push({ key: 'attributes', message: 'expected dict for dictionary value' });
  if ('icon' in item && !isIcon(item.icon)) problems.push({ key: 'icon', message: 'Icons should be specified in the form "prefix:name" for dictionary value' });
  if (problems.length) return { ok: false, message: humanise(item, problems) };
  return {
    ok: true,
    value: {
      type: item.type as SensorType,
      unique_id: asString(item.unique_id)!,
      state: item.state as SensorStateValue,
      attributes: (item.attributes as Record<string, unknown> | undefined) ?? {},
      icon: (item.icon as string | undefined) ?? DEFAULT_ICON,
    },
  };
}

/** The register_sensor schema; a failure is the deliberate empty OK, so only whether it passed matters. */
export function checkSensorRegistration(data: unknown): Result<SensorRegistration> {
  const bad = (key: string, message: string): Result<SensorRegistration> => ({ ok: false, problems: [{ key, message }] });
  if (!isObject(data)) return bad('', 'expected a dictionary');
  const extra = Object.keys(data).find((k) => !REGISTRATION_KEYS.includes(k));
  if (extra !== undefined) return bad(extra, 'extra keys not allowed');
  if (!SENSOR_TYPES.includes(data.type as SensorType)) return bad('type', 'value must be one of binary_sensor, sensor');
  const type = data.type as SensorType;
  const uniqueId = asString(data.unique_id);
  if (uniqueId === undefined) return bad('unique_id', 'expected str');
  const name = asString(data.name);
  if (name === undefined) return bad('name', 'expected str');
  const out: SensorRegistration = { type, unique_id: uniqueId, name, state: null, attributes: {}, icon: DEFAULT_ICON };
  if ('state' in data) {
    if (!isStateValue(data.state)) return bad('state', 'not a valid value');
    out.state = data.state;
  }
  if ('attributes' in data) {
    if (!isObject(data.attributes)) return bad('attributes', 'expected dict');
    out.attributes = data.attributes;
  }
  if ('device_class' in data && data.device_class !== null) {
    if (typeof data.device_class !== 'string') return bad('device_class', 'expected str');
    const dc = data.device_class.toLowerCase();
    // the original accepts a device class of either domain (vol.Any of both enums)
    if (!(BINARY_SENSOR_DEVICE_CLASSES as readonly string[]).includes(dc) && !(SENSOR_DEVICE_CLASSES as readonly string[]).includes(dc)) return bad('device_class', 'invalid device class');
    out.device_class = dc;
  } else if ('device_class' in data) out.device_class = null;
  if ('unit_of_measurement' in data) {
    if (data.unit_of_measurement !== null && asString(data.unit_of_measurement) === undefined) return bad('unit_of_measurement', 'expected str');
    out.unit_of_measurement = data.unit_of_measurement === null ? null : asString(data.unit_of_measurement)!;
  }
  if ('state_class' in data) {
    if (data.state_class !== null && !(STATE_CLASSES as readonly unknown[]).includes(data.state_class)) return bad('state_class', 'invalid state class');
    // the original's _validate_state_class_sensor: the key at all (even null) only on a sensor
    if (type !== 'sensor') return bad('state_class', 'state_class only allowed for sensors');
    out.state_class = data.state_class as string | null;
  }
  if ('entity_category' in data) {
    if (data.entity_category !== null && data.entity_category !== 'config' && data.entity_category !== 'diagnostic') return bad('entity_category', 'invalid entity category');
    out.entity_category = data.entity_category as 'config' | 'diagnostic' | null;
  }
  if ('icon' in data) {
    if (data.icon !== null && !isIcon(data.icon)) return bad('icon', 'Icons should be specified in the form "prefix:name"');
    out.icon = data.icon as string | null;
  }
  if ('disabled' in data) {
    if (typeof data.disabled !== 'boolean') return bad('disabled', 'expected bool');
    out.disabled = data.disabled;
  }
  return { ok: true, value: out };
}

/** The update_location schema: every key optional, gps only with gps_accuracy; other keys are refused. */
export function checkLocation(data: unknown): Result<LocationUpdate> {
  const bad = (key: string, message: string): Result<LocationUpdate> => ({ ok: false, problems: [{ key, message }] });
  if (!isObject(data)) return bad('', 'expected a dictionary');
  const extra = Object.keys(data).find((k) => !LOCATION_KEYS.includes(k));
  if (extra !== undefined) return bad(extra, 'extra keys not allowed');
  const out: LocationUpdate = {};
  if ('location_name' in data) {
    const s = asString(data.location_name);
    if (s === undefined) return bad('location_name', 'expected str');
    out.location_name = s;
  }
  if ('gps' in data) {
    const g = data.gps;
    if (!Array.isArray(g) || g.length !== 2 || !isNumber(g[0]) || !isNumber(g[1]) || Math.abs(g[0]) > 90 || Math.abs(g[1]) > 180) return bad('gps', 'invalid gps');
    out.gps = [g[0], g[1]];
  }
  if ('gps_accuracy' in data) {
    const v = toFloat(data.gps_accuracy);
    if (v === undefined || v < 0) return bad('gps_accuracy', 'expected a positive number');
    out.gps_accuracy = v;
  }
  // cv.key_dependency: gps needs gps_accuracy (an accuracy alone is fine)
  if (out.gps !== undefined && out.gps_accuracy === undefined) return bad('gps', 'dependency violation - key "gps" requires key "gps_accuracy" to exist');
  for (const key of ['battery', 'speed', 'course', 'vertical_accuracy'] as const) {
    if (!(key in data)) continue;
    // cv.positive_int: coerced to an int, at least 0
    const v = toFloat(data[key]);
    if (v === undefined || Math.trunc(v) < 0) return bad(key, 'expected a positive int');
    out[key] = Math.trunc(v);
  }
  if ('altitude' in data) {
    const v = toFloat(data.altitude);
    if (v === undefined) return bad('altitude', 'expected float');
    out.altitude = v;
  }
  return { ok: true, value: out };
}
