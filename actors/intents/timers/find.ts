import type { Slots } from '../types.ts';
import { multipleTimersMatched, normalizeName, timerNotFound, type TimerInfo, type TimerPlaces } from './manager.ts';

/** Which timers a pause (only active) or unpause (only paused) may pick. */
export type TimerFilter = 'only_active' | 'only_inactive';

const slotValue = (slots: Slots, name: string): unknown => (slots[name] ? slots[name].value : undefined);

/** The start time spoken (`3 minute timer`), null for each part not said; null when none is. */
function startTimeOf(slots: Slots): { h: number | null; m: number | null; s: number | null } | null {
  const part = (name: string) => (slots[name] ? Number(slots[name].value) : null);
  const h = part('start_hours');
  const m = part('start_minutes');
  const s = part('start_seconds');
  return h === null && m === null && s === null ? null : { h, m, s };
}

const sameStart = (t: TimerInfo, start: { h: number | null; m: number | null; s: number | null }) =>
  t.start_hours === start.h && t.start_minutes === start.m && t.start_seconds === start.s;

/** The area (and its floor) of the device that spoke, if it has one. */
function deviceArea(places: TimerPlaces | undefined, deviceId: string | null) {
  if (!deviceId || !places) return undefined;
  const device = places.getDevice(deviceId);
  if (!device?.area_id) return undefined;
  return places.getArea(device.area_id);
}

/**
 * The one timer an intent means: filtered by active state (pause/unpause), then name, then area
 * name, then start time, each step taking a single survivor at once; with no filter a single
 * timer is it; then the device's own timer, one in the device's area, one on its floor. More
 * than one left: `Multiple timers matched`; none: `Timer not found`. Timers that run a
 * conversation command are never picked.
 */
export function findTimer(timers: TimerInfo[], places: TimerPlaces | undefined, deviceId: string | null, slots: Slots, filter?: TimerFilter): TimerInfo {
  let matching = timers.filter((t) => !t.conversation_command);
  let hasFilter = false;
  if (filter) {
    hasFilter = true;
    matching = matching.filter((t) => (filter === 'only_active' ? t.is_active : !t.is_active));
    if (matching.length === 1) return matching[0];
  }
  const name = slotValue(slots, 'name');
  if (slots.name) {
    hasFilter = true;
    const wanted = normalizeName(String(name));
    matching = matching.filter((t) => normalizeName(t.name ?? '') === wanted);
    if (matching.length === 1) return matching[0];
  }
  if (slots.area) {
    hasFilter = true;
    const wanted = normalizeName(String(slotValue(slots, 'area')));
    matching = matching.filter((t) => t.area_name === wanted);
    if (matching.length === 1) return matching[0];
  }
  const start = startTimeOf(slots);
  if (start) {
    hasFilter = true;
    matching = matching.filter((t) => sameStart(t, start));
    if (matching.length === 1) return matching[0];
  }
  if (!hasFilter && matching.length === 1) return matching[0];
  if (matching.length && deviceId) {
    const own = matching.filter((t) => t.device_id === deviceId);
    if (own.length === 1) return own[0];
    const area = deviceArea(places, deviceId);
    if (area) {
      const inArea = matching.filter((t) => t.area_id === area.area_id);
      if (inArea.length === 1) return inArea[0];
      const onFloor = matching.filter((t) => t.floor_id === area.floor_id);
      if (onFloor.length === 1) return onFloor[0];
    }
  }
  if (matching.length) throw multipleTimersMatched();
  throw timerNotFound();
}

/**
 * The timers an intent means (cancel all, status): filtered by name, area name and start time
 * when given, then those in the device's area first, then those on its floor.
 */
export function findTimers(timers: TimerInfo[], places: TimerPlaces | undefined, deviceId: string | null, slots: Slots): TimerInfo[] {
  let matching = timers.filter((t) => !t.conversation_command);
  if (slots.name) {
    const wanted = normalizeName(String(slotValue(slots, 'name')));
    matching = matching.filter((t) => normalizeName(t.name ?? '') === wanted);
  }
  if (slots.area) {
    const wanted = normalizeName(String(slotValue(slots, 'area')));
    matching = matching.filter((t) => t.area_name === wanted);
  }
  const start = startTimeOf(slots);
  if (start) matching = matching.filter((t) => sameStart(t, start));
  const area = deviceArea(places, deviceId);
  if (!area) return matching;
  const rank = (t: TimerInfo) => (t.area_id === area.area_id ? 0 : t.floor_id === area.floor_id ? 1 : 2);
  // a stable sort keeps start order within each rank
  return [...matching].sort((a, b) => rank(a) - rank(b));
}

/**
 * Time left said less precisely: with hours, to the hour or half hour (above :45 the next hour,
 * below :15 the hour); with minutes, to the minute or half minute likewise by the seconds;
 * seconds alone: above 50 a minute, below 10 exact, else down to a multiple of 10.
 */
export function roundTime(hours: number, minutes: number, seconds: number): [number, number, number] {
  if (hours > 0) {
    if (minutes > 45) return [hours + 1, 0, 0];
    if (minutes < 15) return [hours, 0, 0];
    return [hours, 30, 0];
  }
  if (minutes > 0) {
    if (seconds > 45) return [0, minutes + 1, 0];
    if (seconds < 15) return [0, minutes, 0];
    return [0, minutes, 30];
  }
  if (seconds > 50) return [0, 1, 0];
  if (seconds < 10) return [0, 0, seconds];
  return [0, 0, seconds - (seconds % 10)];
}
