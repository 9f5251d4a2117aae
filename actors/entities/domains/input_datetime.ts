import { parseFloatText, parseIntText } from '../../../machines/python/float.ts';
import { Type } from '@sinclair/typebox';
import { inputDatetimeMachine, type DateTimeValue, type InputDatetimeConfig } from '../../../machines/input_datetime.machine.ts';
import type { HelperDomain, HelperEnv } from '../types.ts';
import { ItemReader, commonAttributes, parseSection, targetOf } from './config.ts';
import { parseDatetime, toEpochMs, type ParsedDatetime } from '../../history/time.ts';
import { daysIn, wallAt, wallToEpochMs } from '../../wall-clock.ts';
import * as cv from '../../voluptuous/cv.ts';

const DOMAIN = 'input_datetime';

type DatePart = Pick<DateTimeValue, 'year' | 'month' | 'day'>;
type TimePart = Pick<DateTimeValue, 'hour' | 'minute' | 'second'>;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

// strptime's %Y-%m-%d: four-digit year, month and day with or without their leading zero
const DATE_TEXT = /^(\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9])$/;

/** dt_util.parse_date: the date a `YYYY-MM-DD` text names, or undefined. */
export function parseDate(text: string): DatePart | undefined {
  const m = DATE_TEXT.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1 || day > daysIn(year, month)) return undefined;
  return { year, month, day };
}

/** dt_util.parse_time: `H:M[:S]` read with int() (what follows a third colon is not looked at), or undefined. */
export function parseTimeOfDay(text: string): TimePart | undefined {
  const parts = text.split(':');
  if (parts.length < 2) return undefined;
  const [hour, minute] = [parseIntText(parts[0]), parseIntText(parts[1])];
  const second = parts.length > 2 ? parseIntText(parts[2]) : 0;
  if (hour === undefined || minute === undefined || second === undefined) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  return { hour, minute, second };
}

/** A parsed datetime on the zone's wall clock: one with an offset is moved there, as astimezone does. */
function onWall(p: ParsedDatetime, timeZone: string): DateTimeValue {
  if (p.offsetMinutes === undefined) return { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
  return wallAt(toEpochMs(p, timeZone), timeZone);
}

const midnight = { hour: 0, minute: 0, second: 0 };

/** The original's parse_initial_datetime: what `initial` means for this item, or why it cannot be read. */
function initialValue(config: InputDatetimeConfig, today: DatePart, timeZone: string): DateTimeValue | string {
  const initial = config.initial!;
  if (config.has_date && config.has_time) {
    const parsed = parseDatetime(initial);
    return parsed ? onWall(parsed, timeZone) : `Initial value '${initial}' can't be parsed as a datetime`;
  }
  if (config.has_date) {
    const date = parseDate(initial);
    return date ? { ...date, ...midnight } : `Initial value '${initial}' can't be parsed as a date`;
  }
  const time = parseTimeOfDay(initial);
  return time ? { ...today, ...time } : `Initial value '${initial}' can't be parsed as a time`;
}

/** What the last state shows, read as this item reads its own states; undefined when it cannot be. */
function restoredValue(config: InputDatetimeConfig, state: string, today: DatePart): DateTimeValue | undefined {
  if (config.has_date && config.has_time) {
    const parsed = parseDatetime(state);
    return parsed && { year: parsed.year, month: parsed.month, day: parsed.day, hour: parsed.hour, minute: parsed.minute, second: parsed.second };
  }
  if (config.has_date) {
    const date = parseDate(state);
    return date && { ...date, ...midnight };
  }
  const time = parseTimeOfDay(state);
  return time && { ...today, ...time };
}

function parseItem(raw: Record<string, unknown>, objectId: string): InputDatetimeConfig {
  const item = new ItemReader(DOMAIN, objectId, raw, ['name', 'has_date', 'has_time', 'icon', 'initial']);
  const config: InputDatetimeConfig = { has_date: item.optional('has_date', cv.boolean, false), has_time: item.optional('has_time', cv.boolean, false) };
  if (item.has('name')) config.name = item.required('name', cv.string);
  if (item.has('icon')) config.icon = item.required('icon', cv.icon);
  if (item.has('initial')) config.initial = item.required('initial', cv.string);
  if (!config.has_date && !config.has_time) throw item.error(undefined, 'Entity needs at least a date or a time');
  // only whether it can be read matters here: a time alone is put on whichever day it is
  if (config.initial) {
    const checked = initialValue(config, { year: 2000, month: 1, day: 1 }, 'UTC');
    if (typeof checked === 'string') throw item.error(undefined, checked);
  }
  return config;
}

/** The state the original's strftime formats give. */
function stateOf(config: InputDatetimeConfig, v: DateTimeValue): string {
  const date = `${pad(v.year, 4)}-${pad(v.month)}-${pad(v.day)}`;
  const time = `${pad(v.hour)}:${pad(v.minute)}:${pad(v.second)}`;
  if (config.has_date && config.has_time) return `${date} ${time}`;
  return config.has_date ? date : time;
}

/** The `timestamp` attribute: seconds of the day for a time alone, else the instant on the zone's clock. */
function timestampOf(config: InputDatetimeConfig, v: DateTimeValue, timeZone: string): number {
  if (!config.has_date) return v.hour * 3600 + v.minute * 60 + v.second;
  const wall = config.has_time ? v : { ...v, ...midnight };
  return wallToEpochMs(wall, timeZone) / 1000;
}

const today = (env: HelperEnv): DatePart => {
  const { year, month, day } = wallAt(env.now, env.timeZone);
  return { year, month, day };
};

// a key's problem in voluptuous's words, at the key it is about
const at = (key: string, message: string) => `${message} for dictionary value @ data['${key}']`;

/**
 * The original's set_datetime schema after its types: cv.date, cv.time, cv.datetime and
 * vol.Coerce(float) on their keys, at least one of them, and no two kinds together.
 */
function setDatetimeProblem(data: Record<string, unknown>): string | undefined {
  const { date, time, datetime, timestamp } = data;
  if (date !== undefined && (typeof date !== 'string' || !parseDate(date))) return at('date', typeof date === 'string' ? 'Could not parse date' : 'Not a date value');
  if (time !== undefined && (typeof time !== 'string' || !parseTimeOfDay(time))) return at('time', typeof time === 'string' ? `Invalid time specified: ${time}` : 'Not a parseable type');
  if (datetime !== undefined && (typeof datetime !== 'string' || !parseDatetime(datetime))) return at('datetime', `Invalid datetime specified: ${String(datetime)}`);
  if (timestamp !== undefined && Number.isNaN(timestampSeconds(timestamp))) return at('timestamp', 'expected float');
  const keys = Object.keys(data);
  if (![date, time, datetime, timestamp].some((v) => v !== undefined)) return 'must contain at least one of date, time, datetime, timestamp.';
  const kinds = [date !== undefined || time !== undefined, datetime !== undefined, timestamp !== undefined].filter(Boolean).length;
  if (kinds > 1) return `Cannot use together: ${keys.join(', ')}`;
  return undefined;
}

/** vol.Coerce(float) of a timestamp; NaN when it is not one. */
function timestampSeconds(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseFloatText(value) ?? NaN;
  return NaN;
}

/** The event of a valid set_datetime call: the date and time it names on the zone's wall clock. */
function setDatetimeEvent(data: Record<string, any>, env: HelperEnv) {
  // a timestamp of 0 counts as not given, as the original's `if timestamp:` has it
  const seconds = data.timestamp === undefined ? 0 : timestampSeconds(data.timestamp);
  let value: DateTimeValue | undefined;
  if (seconds) value = wallAt(seconds * 1000, env.timeZone);
  else if (typeof data.datetime === 'string') {
    // the fields as written: the original takes date() and time() of the datetime, offset or not
    const p = parseDatetime(data.datetime)!;
    value = { year: p.year, month: p.month, day: p.day, hour: p.hour, minute: p.minute, second: p.second };
  }
  if (value) return { type: 'set_datetime', date: { year: value.year, month: value.month, day: value.day }, time: { hour: value.hour, minute: value.minute, second: value.second } };
  return { type: 'set_datetime', date: typeof data.date === 'string' ? parseDate(data.date) : undefined, time: typeof data.time === 'string' ? parseTimeOfDay(data.time) : undefined };
}

const target = targetOf(DOMAIN);

/** input_datetime: a date and/or a time the user picks. */
export const inputDatetimeDomain: HelperDomain<InputDatetimeConfig> = {
  domain: DOMAIN,
  parseConfig: (section) => parseSection(DOMAIN, section, parseItem),
  machine: inputDatetimeMachine,
  // `initial` wins; else the last state read as this item shows its states; else today at midnight
  input: (item, restored, env) => {
    const day = today(env);
    let value: DateTimeValue | undefined;
    if (item.config.initial) value = initialValue(item.config, day, env.timeZone) as DateTimeValue;
    else if (restored) value = restoredValue(item.config, restored.state, day);
    return { entityId: `${DOMAIN}.${item.objectId}`, config: item.config, value: value ?? { ...day, ...midnight } };
  },
  render: (snapshot, _item, env) => {
    const config: InputDatetimeConfig = snapshot.context.config;
    const v: DateTimeValue = snapshot.context.value;
    const attributes: Record<string, unknown> = {
      has_date: config.has_date,
      has_time: config.has_time,
      // editable is false: these items come from configuration.yaml, not the UI's storage
      editable: false,
    };
    if (config.has_date) Object.assign(attributes, { year: v.year, month: v.month, day: v.day });
    if (config.has_time) Object.assign(attributes, { hour: v.hour, minute: v.minute, second: v.second });
    attributes.timestamp = timestampOf(config, v, env.timeZone);
    return { state: stateOf(config, v), attributes: { ...attributes, ...commonAttributes(config) } };
  },
  services: [
    {
      service: 'set_datetime',
      description: {
        name: 'Set',
        description: 'Sets the date and/or time.',
        fields: {
          date: { example: '"2019-04-20"', selector: { text: null }, name: 'Date', description: 'The target date.' },
          time: { example: '"05:04:20"', selector: { time: null }, name: 'Time', description: 'The target time.' },
          datetime: { example: '"2019-04-20 05:04:20"', selector: { text: null }, name: 'Date & time', description: 'The target date & time.' },
          timestamp: {
            selector: { number: { min: 0, max: 9223372036854775807, mode: 'box' } },
            name: 'Timestamp',
            description: 'The target date & time, expressed by a UNIX timestamp.',
          },
        },
        target,
      },
      // the values are read by the original's parsers in refine, with its messages
      schema: Type.Object(
        { date: Type.Optional(Type.Unknown()), time: Type.Optional(Type.Unknown()), datetime: Type.Optional(Type.Unknown()), timestamp: Type.Optional(Type.Unknown()) },
        { additionalProperties: false },
      ),
      refine: setDatetimeProblem,
      toEvent: setDatetimeEvent,
    },
  ],
};
