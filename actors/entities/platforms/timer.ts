import { parseFloatText } from '../../../machines/python/float.ts';
import { Type } from '@sinclair/typebox';
import { isoformat } from '../../../machines/python/isoformat.ts';
import { timerMachine, type TimerInput } from '../../../machines/timer.machine.ts';
import { ItemReader, parseSection } from '../domains/config.ts';
import type { PlatformDomain, PlatformEntry, PlatformService } from './types.ts';
import { lastKnown, stringAttribute } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, anything, refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'timer';

/** Options of a timer (configured as the original's helper: `timer: {laundry: {duration: '00:01:00'}}`). */
export interface TimerOptions {
  /** ms */
  duration: number;
  restore: boolean;
}

const PERIOD_ERROR = (value: string) => `offset ${value} should be format 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.F'`;

/** cv.time_period: 'HH:MM', 'HH:MM:SS(.F)' (a sign allowed), seconds, or {days, hours, minutes, seconds, milliseconds}; in ms. */
export function toTimePeriod(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value * 1000;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const units: Record<string, number> = { days: 86_400_000, hours: 3_600_000, minutes: 60_000, seconds: 1000, milliseconds: 1 };
    let ms = 0;
    let any = false;
    for (const [key, v] of Object.entries(value)) {
      if (!Object.hasOwn(units, key)) throw new Refusal(`extra keys not allowed @ data['${key}']`);
      const n = typeof v === 'number' ? v : typeof v === 'string' ? (parseFloatText(v) ?? NaN) : NaN;
      if (!Number.isFinite(n)) throw new Refusal(`expected float for dictionary value @ data['${key}']`);
      ms += n * units[key];
      any = true;
    }
    if (!any) throw new Refusal('must contain at least one of days, hours, minutes, seconds, milliseconds.');
    return ms;
  }
  if (typeof value !== 'string') throw new Refusal('expected a time period');
  const seconds = parseFloatText(value) ?? NaN;
  if (Number.isFinite(seconds) && !value.includes(':')) return seconds * 1000;
  let text = value;
  let sign = 1;
  if (text.startsWith('-')) [sign, text] = [-1, text.slice(1)];
  else if (text.startsWith('+')) text = text.slice(1);
  const parts = text.split(':');
  const int = (p: string) => (/^\s*\d+\s*$/.test(p) ? Number(p) : NaN);
  const [h, m, s] = [int(parts[0]), int(parts[1] ?? ''), parts.length === 3 ? (parseFloatText(parts[2]) ?? NaN) : 0];
  if ((parts.length !== 2 && parts.length !== 3) || ![h, m, s].every(Number.isFinite)) throw new Refusal(PERIOD_ERROR(text));
  return sign * ((h * 60 + m) * 60 + s) * 1000;
}

/** cv.time_period as a schema: its forms are too many for TypeBox's keywords, so the reading is ours. */
const TIME_PERIOD = refine(anything, toTimePeriod);

/** The original's _format_timedelta: `H:MM:SS`, whole seconds. */
export function formatDuration(ms: number): string {
  const total = ms / 1000;
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total - hours * 3600) / 60);
  const seconds = Math.floor(total - hours * 3600 - minutes * 60);
  return `${hours}:${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
}

function parseItem(raw: Record<string, unknown>, objectId: string): TimerOptions & { name?: string; icon?: string } {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'icon', 'duration', 'restore']);
  const options: TimerOptions & { name?: string; icon?: string } = {
    duration: item.optional('duration', TIME_PERIOD, 0),
    restore: item.optional('restore', cv.boolean, false),
  };
  if (options.duration < 0) throw item.error('duration', 'a duration cannot be negative');
  if (item.has('name')) options.name = item.required('name', cv.string);
  if (item.has('icon')) options.icon = item.required('icon', cv.icon);
  return options;
}

const target = { entity: [{ domain: [DOMAIN] }] };
const noData = Type.Object({}, { additionalProperties: false });
const period = Type.Union([Type.Number(), Type.String(), Type.Record(Type.String(), Type.Union([Type.Number(), Type.String()]))]);

/** cv.time_period over what the schema let through, in the original's words. */
function periodProblem(data: Record<string, unknown>): string | undefined {
  if (data.duration === undefined) return undefined;
  try {
    toTimePeriod(data.duration);
    return undefined;
  } catch (err) {
    if (err instanceof Refusal) return `${err.message} for dictionary value @ data['duration']`;
    throw err;
  }
}

const durationField = (required: boolean) => ({ duration: { required, name: 'Duration', description: required ? 'Duration to add or subtract to the running timer.' : 'Custom duration to restart the timer with.', example: '00:01:00 or 60', selector: { text: null } } });

const services: PlatformService[] = [
  {
    service: 'start',
    description: { name: 'Start', description: 'Starts a timer or restarts it with a provided duration.', fields: durationField(false), target },
    schema: Type.Object({ duration: Type.Optional(period) }, { additionalProperties: false }),
    refine: periodProblem,
    toEvent: (d) => ({ type: 'start', ...(d.duration !== undefined ? { duration: toTimePeriod(d.duration) } : {}) }),
  },
  { service: 'pause', description: { name: 'Pause', description: 'Pauses a running timer, retaining the remaining duration for later continuation.', fields: {}, target }, schema: noData, toEvent: () => ({ type: 'pause' }) },
  { service: 'cancel', description: { name: 'Cancel', description: 'Resets a timer\'s duration to the last known initial value without firing the timer finished event.', fields: {}, target }, schema: noData, toEvent: () => ({ type: 'cancel' }) },
  { service: 'finish', description: { name: 'Finish', description: 'Finishes a running timer earlier than scheduled.', fields: {}, target }, schema: noData, toEvent: () => ({ type: 'finish' }) },
  {
    service: 'change',
    description: { name: 'Change', description: 'Changes a timer by adding or subtracting a given duration.', fields: durationField(true), target },
    schema: Type.Object({ duration: period }, { additionalProperties: false }),
    refine: periodProblem,
    toEvent: (d) => ({ type: 'change', duration: toTimePeriod(d.duration) }),
  },
];

/**
 * timer: idle, active, paused, configured as the original's helper. With `restore: true` a
 * restart keeps it running to the same `finishes_at` (or finishes it at once, firing
 * timer.finished, when that time has passed while Hearth was down).
 */
export const timerDomain: PlatformDomain<TimerOptions> = {
  domain: DOMAIN,
  optionKeys: [],
  parseOptions: () => ({ duration: 0, restore: false }),
  parseSection: (section) =>
    parseSection(DOMAIN, section, parseItem).map(({ objectId, config }, index): PlatformEntry<TimerOptions> => ({
      domain: DOMAIN,
      index,
      platform: 'virtual',
      entityId: `${DOMAIN}.${objectId}`,
      ...(config.name !== undefined ? { name: config.name } : {}),
      ...(config.icon !== undefined ? { icon: config.icon } : {}),
      options: { duration: config.duration, restore: config.restore },
    })),
  forceUpdate: true,
  supportedFeatures: () => undefined,
  machine: timerMachine,
  input: (entry, restored, now): TimerInput => {
    const { duration, restore } = entry.options;
    const input: TimerInput = { entityId: entry.entityId, duration, running: duration, rest: 'idle', remaining: null, end: null, now };
    const last = restore ? lastKnown(restored) : undefined;
    if (!last) return input;
    const period = (key: string) => {
      const text = stringAttribute(last, key);
      try {
        return text === undefined ? undefined : toTimePeriod(text);
      } catch {
        return undefined;
      }
    };
    input.running = period('duration') ?? duration;
    if (last.state === 'paused') return { ...input, rest: 'paused', remaining: period('remaining') ?? null };
    const end = Date.parse(stringAttribute(last, 'finishes_at') ?? '');
    if (last.state === 'active' && Number.isFinite(end)) return { ...input, rest: 'active', end };
    return input;
  },
  render: (snapshot, entry) => {
    const { running, end, remaining } = snapshot.context as { running: number; end: number | null; remaining: number | null };
    const a: Record<string, unknown> = { duration: formatDuration(running), editable: false };
    if (end !== null) a.finishes_at = isoformat(end);
    if (remaining !== null) a.remaining = formatDuration(remaining);
    if (entry.options.restore) a.restore = true;
    return { state: String(snapshot.value), attributes: a };
  },
  services,
};
