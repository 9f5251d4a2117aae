// Wall-clock times as whole seconds since 1970 read as if they were UTC: the fields of one, and
// one built from fields with Python's range checks.
import { typeError, valueError } from './errors.ts';

/** Microseconds in a second. */
export const US = 1_000_000;

/** A number written with at least `width` digits. */
export const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** Wall-clock fields of whole seconds since 1970 read as UTC. */
export function wallFields(wallSec: number) {
  const date = new Date(wallSec * 1000);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    weekday: (date.getUTCDay() + 6) % 7,
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Builds a wall time from fields, with Python's range checks. */
export function wallOf(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const ints = [year, month, day, hour, minute, second];
  if (ints.some((field) => !Number.isInteger(field))) throw typeError('integer argument expected, got float');
  if (year < 1 || year > 9999) throw valueError(`year ${year} is out of range`);
  if (month < 1 || month > 12) throw valueError('month must be in 1..12');
  if (day < 1 || day > daysInMonth(year, month)) throw valueError('day is out of range for month');
  if (hour < 0 || hour > 23) throw valueError('hour must be in 0..23');
  if (minute < 0 || minute > 59) throw valueError('minute must be in 0..59');
  if (second < 0 || second > 59) throw valueError('second must be in 0..59');
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getTime() / 1000;
}

/** The first and last wall times Python's datetime holds (years 1 to 9999). */
export const MIN_WALL = wallOf(1, 1, 1);
export const MAX_WALL = wallOf(9999, 12, 31, 23, 59, 59);

/** The day of the year, 1 for January 1st. */
export function dayOfYear(year: number, month: number, day: number): number {
  return (Date.UTC(year, month - 1, day) - Date.UTC(year, 0, 1)) / 86_400_000 + 1;
}
