// Time zones as templates use them: a fixed offset (UTC, or one parsed from an ISO string) or an
// IANA name, whose offset is looked up per instant through Intl, as zoneinfo does per wall time
// (fold 0: an ambiguous or skipped wall time takes the offset in force before the change).
import { zoneOffsetMs } from '../wall-clock.ts';

/** A time zone: a fixed offset (UTC, or one parsed from an ISO string) or an IANA name. */
export type Zone = { kind: 'fixed'; offset: number; name: string } | { kind: 'iana'; name: string };

/** UTC, as the original's dt_util.UTC. */
export const UTC: Zone = { kind: 'fixed', offset: 0, name: 'UTC' };

/** The zone of a configured name; UTC when the name is not a zone this runtime knows. */
export function zoneNamed(name: string | undefined): Zone {
  if (!name || name === 'UTC' || name === 'Etc/UTC') return UTC;
  try {
    zoneOffsetMs(0, name);
    return { kind: 'iana', name };
  } catch {
    return UTC;
  }
}

/** Seconds east of UTC in force at an instant. */
export function offsetAt(zone: Zone, utcSec: number): number {
  if (zone.kind === 'fixed') return zone.offset;
  return zoneOffsetMs(utcSec * 1000, zone.name) / 1000;
}

/** The offset of a wall time in a zone (zoneinfo's fold 0). */
export function offsetOfWall(zone: Zone, wallSec: number): number {
  if (zone.kind === 'fixed') return zone.offset;
  const before = offsetAt(zone, wallSec - 86400);
  const after = offsetAt(zone, wallSec + 86400);
  for (const offset of [before, after]) if (offsetAt(zone, wallSec - offset) === offset) return offset;
  return before;
}

/** An offset as ISO 8601 writes it: `+01:00`, `-0530` without the colon, seconds only when there are some. */
export function offsetText(offset: number, colon = true): string {
  const sign = offset < 0 ? '-' : '+';
  const magnitude = Math.abs(offset);
  const hours = String(Math.floor(magnitude / 3600)).padStart(2, '0');
  const minutes = String(Math.floor((magnitude % 3600) / 60)).padStart(2, '0');
  const seconds = magnitude % 60;
  const separator = colon ? ':' : '';
  return `${sign}${hours}${separator}${minutes}${seconds ? `${separator}${String(seconds).padStart(2, '0')}` : ''}`;
}

/** The zone's short name at an instant (`CET`, `UTC`, `UTC+05:30`); '' for a naive time. */
export function zoneAbbreviation(zone: Zone | null, utcSec: number, offset: number): string {
  if (!zone) return '';
  if (zone.kind === 'fixed') return zone.name === 'UTC' ? 'UTC' : `UTC${offsetText(offset)}`;
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone.name, timeZoneName: 'short' }).formatToParts(new Date(utcSec * 1000));
  return parts.find((part) => part.type === 'timeZoneName')?.value ?? zone.name;
}
