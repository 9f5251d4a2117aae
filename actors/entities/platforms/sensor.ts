import { sensorMachine } from '../../../machines/sensor.machine.ts';
import { stateString } from '../state.ts';
import type { EntryReader } from './config.ts';
import type { PlatformDomain } from './types.ts';
import { lastKnown } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, anything, refine } from '../../voluptuous/schema.ts';

/** SensorDeviceClass. */
export const SENSOR_DEVICE_CLASSES = [
  'absolute_humidity', 'apparent_power', 'aqi', 'area', 'atmospheric_pressure', 'battery', 'blood_glucose_concentration', 'carbon_dioxide',
  'carbon_monoxide', 'conductivity', 'current', 'data_rate', 'data_size', 'date', 'distance', 'duration', 'energy', 'energy_distance',
  'energy_storage', 'enum', 'frequency', 'gas', 'humidity', 'illuminance', 'irradiance', 'moisture', 'monetary', 'nitrogen_dioxide',
  'nitrogen_monoxide', 'nitrous_oxide', 'ozone', 'ph', 'pm1', 'pm10', 'pm25', 'pm4', 'power_factor', 'power', 'precipitation',
  'precipitation_intensity', 'pressure', 'reactive_energy', 'reactive_power', 'signal_strength', 'sound_pressure', 'speed',
  'sulphur_dioxide', 'temperature', 'timestamp', 'volatile_organic_compounds', 'volatile_organic_compounds_parts', 'voltage', 'volume',
  'volume_flow_rate', 'volume_storage', 'water', 'weight', 'wind_direction', 'wind_speed',
] as const;

/** BinarySensorDeviceClass. */
export const BINARY_SENSOR_DEVICE_CLASSES = [
  'battery', 'battery_charging', 'carbon_monoxide', 'cold', 'connectivity', 'door', 'garage_door', 'gas', 'heat', 'light', 'lock',
  'moisture', 'motion', 'moving', 'occupancy', 'opening', 'plug', 'power', 'presence', 'problem', 'running', 'safety', 'smoke', 'sound',
  'tamper', 'update', 'vibration', 'window',
] as const;

/** SensorStateClass. */
export const STATE_CLASSES = ['measurement', 'measurement_angle', 'total', 'total_increasing'] as const;

/** Options of a virtual sensor. */
export interface SensorOptions {
  initial: string;
  unit_of_measurement?: string;
  state_class?: string;
}

/** A scalar as the state it shows (a YAML number as its text). */
const toStateText = refine(anything, (value) => {
  if (value === null) return 'unknown';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    const text = typeof value === 'string' ? value : stateString(value);
    if (text.length > 255) throw new Refusal('a state is at most 255 characters');
    return text;
  }
  throw new Refusal('expected a number or a text');
});

function parseSensor(entry: EntryReader): SensorOptions {
  const options: SensorOptions = { initial: entry.optional('initial', toStateText, 'unknown') };
  if (entry.has('unit_of_measurement')) options.unit_of_measurement = entry.required('unit_of_measurement', cv.string);
  if (entry.has('state_class')) options.state_class = entry.required('state_class', cv.oneOf(STATE_CLASSES));
  return options;
}

/** sensor: a read-only value with its unit, device class and state class. */
export const sensorDomain: PlatformDomain<SensorOptions> = {
  domain: 'sensor',
  optionKeys: ['initial', 'unit_of_measurement', 'state_class'],
  deviceClasses: SENSOR_DEVICE_CLASSES,
  parseOptions: parseSensor,
  supportedFeatures: () => undefined,
  machine: sensorMachine,
  input: (entry, restored) => ({ value: lastKnown(restored)?.state ?? entry.options.initial }),
  render: (snapshot, entry) => ({
    state: snapshot.context.value,
    attributes: entry.options.state_class !== undefined ? { state_class: entry.options.state_class } : {},
    unit_of_measurement: entry.options.unit_of_measurement,
  }),
  services: [],
};

/** binary_sensor: a read-only on or off with its device class. */
export const binarySensorDomain: PlatformDomain<{ initial: string }> = {
  domain: 'binary_sensor',
  optionKeys: ['initial'],
  deviceClasses: BINARY_SENSOR_DEVICE_CLASSES,
  parseOptions: (entry) => ({ initial: entry.has('initial') ? (entry.required('initial', cv.boolean) ? 'on' : 'off') : 'unknown' }),
  supportedFeatures: () => undefined,
  machine: sensorMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored)?.state;
    return { value: last === 'on' || last === 'off' ? last : entry.options.initial };
  },
  render: (snapshot) => ({ state: snapshot.context.value, attributes: {} }),
  services: [],
};
