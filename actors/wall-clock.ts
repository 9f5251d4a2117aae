/**
 * Wall-clock times of a time zone, as the original's naive datetimes in `DEFAULT_TIME_ZONE`:
 * the fields a clock on the wall shows, and the instant they mean there.
 */

import type { WallTime } from '../machines/wall-time.ts';

export type { WallTime };

/** Days of a month of the proleptic Gregorian calendar. */
export function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `timeZone` at the instant `ms` (whole seconds). */
export function wallAt(ms: number, timeZone: string): WallTime {
  const part: Record<string, string> = {};
  for (const { type, value } of format(timeZone).formatToParts(Math.floor(ms / 1000) * 1000)) part[type] = value;
  const year = part.era === 'BC' ? 1 - Number(part.year) : Number(part.year);
  return { year, month: Number(part.month), day: Number(part.day), hour: Number(part.hour), minute: Number(part.minute), second: Number(part.second) };
}

/** The wall fields read as if they were UTC, in epoch ms (years below 100 included). */
export function wallAsUtcMs(w: WallTime): number {
  const date = new Date(0);
  date.setUTCFullYear(w.year, w.month - 1, w.day);
  date.setUTCHours(w.hour, w.minute, w.second, 0);
  return date.getTime();
}

/** How far `timeZone`'s wall clock is ahead of UTC at the instant `ms`. */
export function zoneOffsetMs(ms: number, timeZone: string): number {
  const at = Math.floor(ms / 1000) * 1000;
  return wallAsUtcMs(wallAt(at, timeZone)) - at;
}

/**
 * The instant a wall time means in `timeZone`: the zone's offset at a first guess, checked once
 * more where a change of offset lies between.
 */
export function wallToEpochMs(w: WallTime, timeZone: string): number {
  const wall = wallAsUtcMs(w);
  const first = wall - zoneOffsetMs(wall, timeZone);
  return wall - zoneOffsetMs(first, timeZone);
}
