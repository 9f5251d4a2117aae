import { Type } from '@sinclair/typebox';
import type { PlatformService } from './types.ts';
import { parseFloatText, parseIntText } from '../../../machines/python/float.ts';

/** The original's SirenEntityFeature bits. */
export const SIREN_TURN_ON = 1;
export const SIREN_TURN_OFF = 2;
export const SIREN_TONES = 4;
export const SIREN_VOLUME_SET = 8;
export const SIREN_DURATION = 16;

/** What siren.turn_on may carry (the original's TURN_ON_SCHEMA), coerced. */
export interface SirenParams {
  tone?: string | number;
  duration?: number;
  volume_level?: number;
}

/** vol.Any(vol.Coerce(int), cv.string): a tone that reads as an int is one. */
export function toTone(value: unknown): string | number {
  if (typeof value === 'number') return Math.trunc(value);
  const text = typeof value === 'boolean' ? (value ? 'True' : 'False') : String(value);
  return parseIntText(text) ?? text;
}

/** The turn_on parameters of a call (or a state message), coerced as the original's schema coerces them. */
export function sirenParams(data: Record<string, unknown>): SirenParams {
  const out: SirenParams = {};
  if (data.tone !== undefined) out.tone = toTone(data.tone);
  if (data.duration !== undefined) out.duration = typeof data.duration === 'number' ? Math.trunc(data.duration) : (parseIntText(String(data.duration)) as number);
  if (data.volume_level !== undefined) out.volume_level = typeof data.volume_level === 'number' ? data.volume_level : (parseFloatText(String(data.volume_level)) ?? NaN);
  return out;
}

const target = { entity: [{ domain: ['siren'] }] };
const NO_DATA = Type.Object({}, { additionalProperties: false });

/**
 * siren: the domain's services (the original's siren component). Hearth has no virtual siren
 * platform; the platforms that make sirens (MQTT) take these. turn_on's tone must be one of the
 * entity's available tones; parameters a siren does not support are dropped.
 */
export const sirenServices: PlatformService[] = [
  {
    service: 'turn_on',
    description: {
      name: 'Turn on',
      description: 'Turns the siren on.',
      fields: {
        tone: { example: 'fire', selector: { text: {} }, name: 'Tone', description: 'The tone to emit. When `available_tones` property is a map, either the key or the value can be used. Must be supported by the integration.' },
        volume_level: { example: 0.5, selector: { number: { min: 0, max: 1, step: 0.05 } }, name: 'Volume', description: 'The volume. 0 is inaudible, 1 is the maximum volume. Must be supported by the integration.' },
        duration: { example: 15, selector: { text: {} }, name: 'Duration', description: 'Number of seconds the sound is played. Must be supported by the integration.' },
      },
      target,
    },
    schema: Type.Object(
      {
        tone: Type.Optional(Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
        // cv.positive_int
        duration: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\s*\\+?\\d+\\s*$' })])),
        // cv.small_float
        volume_level: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.String({ pattern: '^\\s*(?:0(?:\\.\\d*)?|1(?:\\.0*)?|\\.\\d+)\\s*$' })])),
      },
      { additionalProperties: false },
    ),
    requiredFeatures: [SIREN_TURN_ON],
    toEvent: (data) => ({ type: 'turn_on', params: sirenParams(data) }),
  },
  {
    service: 'turn_off',
    description: { name: 'Turn off', description: 'Turns the siren off.', fields: {}, target },
    schema: NO_DATA,
    requiredFeatures: [SIREN_TURN_OFF],
    toEvent: () => ({ type: 'turn_off' }),
  },
  {
    service: 'toggle',
    description: { name: 'Toggle', description: 'Toggles the siren on/off.', fields: {}, target },
    schema: NO_DATA,
    requiredFeatures: [SIREN_TURN_ON | SIREN_TURN_OFF],
    toEvent: () => ({ type: 'toggle' }),
  },
];
