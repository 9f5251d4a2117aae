import type { EntityState } from '../entities/types.ts';
import type { LocationUpdate } from './sensor-schema.ts';

/**
 * The companion app's device tracker: where the app says it is (a location name) or where its
 * gps puts it among the zones (the original's TrackerEntity state and zone.async_active_zone).
 */

/** A zone as the tracker sees it. */
export interface ZoneView {
  entity_id: string;
  name: string;
  latitude: number;
  longitude: number;
  radius: number;
  passive: boolean;
}

/** The last location an app sent (what the tracker shows). */
export type TrackerData = LocationUpdate;

const EARTH_RADIUS_M = 6371008.8;

/** The great-circle distance in metres (haversine). */
export function distance(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The zones among entity states (zone.*, not unavailable, with coordinates). */
export function zonesOf(states: Iterable<EntityState>): ZoneView[] {
  const zones: ZoneView[] = [];
  for (const s of states) {
    if (!s.entity_id.startsWith('zone.') || s.state === 'unavailable') continue;
    const a = s.attributes;
    if (typeof a.latitude !== 'number' || typeof a.longitude !== 'number') continue;
    zones.push({
      entity_id: s.entity_id,
      name: typeof a.friendly_name === 'string' ? a.friendly_name : s.entity_id.slice(5),
      latitude: a.latitude,
      longitude: a.longitude,
      radius: typeof a.radius === 'number' ? a.radius : 0,
      passive: a.passive === true,
    });
  }
  return zones.sort((x, y) => (x.entity_id < y.entity_id ? -1 : x.entity_id > y.entity_id ? 1 : 0));
}

/**
 * The active zone of a position: the nearest non-passive zone the accuracy circle reaches into
 * (distance - accuracy < radius); of two as near, the smaller.
 */
export function activeZone(zones: ZoneView[], latitude: number, longitude: number, accuracy: number): ZoneView | undefined {
  let closest: ZoneView | undefined;
  let min = Infinity;
  for (const z of zones) {
    if (z.passive) continue;
    const d = distance(latitude, longitude, z.latitude, z.longitude);
    if (!(d - accuracy < z.radius)) continue;
    if (closest === undefined || d < min || (d === min && z.radius < closest.radius)) {
      closest = z;
      min = d;
    }
  }
  return closest;
}

/** The tracker's state: the location name, else home / a zone's name / not_home by gps, else unknown. */
export function trackerState(data: TrackerData | undefined, zones: ZoneView[]): string {
  if (data?.location_name) return data.location_name;
  if (data?.gps) {
    const zone = activeZone(zones, data.gps[0], data.gps[1], data.gps_accuracy ?? 0);
    if (!zone) return 'not_home';
    return zone.entity_id === 'zone.home' ? 'home' : zone.name;
  }
  return 'unknown';
}

/** The tracker's attributes in the original's order, then its name. */
export function trackerAttributes(data: TrackerData | undefined, friendlyName: string): Record<string, unknown> {
  const a: Record<string, unknown> = { source_type: 'gps' };
  if (data?.battery !== undefined) a.battery_level = data.battery;
  if (data?.gps) {
    a.latitude = data.gps[0];
    a.longitude = data.gps[1];
    a.gps_accuracy = data.gps_accuracy;
  }
  if (data?.altitude !== undefined) a.altitude = data.altitude;
  if (data?.course !== undefined) a.course = data.course;
  if (data?.speed !== undefined) a.speed = data.speed;
  if (data?.vertical_accuracy !== undefined) a.vertical_accuracy = data.vertical_accuracy;
  a.friendly_name = friendlyName;
  return a;
}

/** The location a restored tracker state shows (what the app last sent, as far as the state tells). */
export function trackerDataOf(state: EntityState): TrackerData {
  const a = state.attributes;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const data: TrackerData = {};
  const lat = num(a.latitude);
  const lon = num(a.longitude);
  if (lat !== undefined && lon !== undefined) {
    data.gps = [lat, lon];
    data.gps_accuracy = num(a.gps_accuracy) ?? 0;
  }
  // a state the gps does not explain is the name the app sent
  if (state.state !== 'unknown' && (data.gps === undefined || !['home', 'not_home'].includes(state.state))) data.location_name = state.state;
  for (const [key, attr] of [['battery', 'battery_level'], ['altitude', 'altitude'], ['course', 'course'], ['speed', 'speed'], ['vertical_accuracy', 'vertical_accuracy']] as const) {
    const v = num(a[attr]);
    if (v !== undefined) data[key] = v;
  }
  return data;
}
