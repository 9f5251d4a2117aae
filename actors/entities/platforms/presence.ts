import { personMachine, whereabouts, type PersonContext, type Whereabouts } from '../../../machines/person.machine.ts';
import { personsIn, zoneMachine, type ZoneContext } from '../../../machines/zone.machine.ts';
import { validEntityId } from '../state.ts';
import { slugify, uniqueId } from '../slug.ts';
import { EntryReader, PlatformConfigError } from './config.ts';
import type { PlatformDomain, PlatformEntry } from './types.ts';
import { lastKnown, numberAttribute, stringAttribute } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';

/**
 * Reads a section in the original's own list form (persons, zones: entries without a
 * `platform`), each entry's entity id from its name.
 */
function parseList<O>(domain: string, section: unknown, keys: string[], parse: (entry: EntryReader) => O): PlatformEntry<O>[] {
  if (section === null || section === undefined) return [];
  const list = Array.isArray(section) ? section : [section];
  const taken = new Set<string>();
  return list.map((raw, index) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new PlatformConfigError(`Invalid config for '${domain}' at ${domain}[${index}]: expected a dictionary`);
    const entry = new EntryReader(domain, index, raw as Record<string, unknown>);
    for (const key of Object.keys(raw)) if (!keys.includes(key)) throw entry.error(key, 'extra keys not allowed');
    const name = entry.required('name', cv.string);
    const objectId = uniqueId(slugify(name), (id) => taken.has(id));
    taken.add(objectId);
    const parsed: PlatformEntry<O> = { domain, index, platform: 'virtual', name, entityId: `${domain}.${objectId}`, options: parse(entry) };
    if (entry.has('icon')) parsed.icon = entry.required('icon', cv.icon);
    return parsed;
  });
}

// ---- person ----

/** A person of configuration.yaml. */
export interface PersonOptions {
  id: string;
  user_id: string | null;
  device_trackers: string[];
}

const toTrackers = refine(cv.stringList, (ids) =>
  ids.map((id) => {
    if (!validEntityId(id) || !id.startsWith('device_tracker.')) throw new Refusal(`Entity ID ${id} does not belong to domain device_tracker`);
    return id;
  }),
);

/** person: where their device trackers say they are (`home`, `not_home`, a zone), or `unknown`. */
export const personDomain: PlatformDomain<PersonOptions> = {
  domain: 'person',
  optionKeys: [],
  parseOptions: () => ({ id: '', user_id: null, device_trackers: [] }),
  parseSection: (section) =>
    parseList('person', section, ['name', 'id', 'user_id', 'device_trackers'], (entry) => ({
      id: entry.required('id', cv.string),
      user_id: entry.optional('user_id', cv.string, null as string | null),
      device_trackers: entry.optional('device_trackers', toTrackers, []),
    })),
  supportedFeatures: () => undefined,
  machine: personMachine,
  watches: (entry) => ({ entityIds: entry.options.device_trackers }),
  watchEvent: (entityId, state) => ({
    type: 'tracker_changed',
    entity_id: entityId,
    state: state ? { state: state.state, attributes: state.attributes, last_updated: state.last_updated } : null,
  }),
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const kept: Whereabouts | null = last
      ? { state: last.state, source: stringAttribute(last, 'source') ?? null, latitude: numberAttribute(last, 'latitude') ?? null, longitude: numberAttribute(last, 'longitude') ?? null, gps_accuracy: numberAttribute(last, 'gps_accuracy') ?? null }
      : null;
    return { device_trackers: entry.options.device_trackers, restored: kept };
  },
  render: (snapshot, entry) => {
    const w = whereabouts(snapshot.context as PersonContext);
    const a: Record<string, unknown> = { editable: false, id: entry.options.id };
    if (w.latitude !== null) a.latitude = w.latitude;
    if (w.longitude !== null) a.longitude = w.longitude;
    if (w.gps_accuracy !== null) a.gps_accuracy = w.gps_accuracy;
    if (w.source !== null) a.source = w.source;
    if (entry.options.user_id !== null) a.user_id = entry.options.user_id;
    a.device_trackers = entry.options.device_trackers;
    return { state: w.state ?? 'unknown', attributes: a };
  },
  services: [],
};

// ---- zone ----

/** A zone of configuration.yaml, or the home zone from the core location. */
export interface ZoneOptions {
  latitude: number;
  longitude: number;
  radius: number;
  passive: boolean;
  /** the home zone is made from the core configuration, which can be edited */
  home: boolean;
}

function toCoordinate(limit: number) {
  return refine(cv.coerceFloat, (n) => {
    if (n < -limit || n > limit) throw new Refusal(`invalid coordinate, must be between -${limit} and ${limit}`);
    return n;
  });
}

/** The entry of zone.home, from the core location. */
export function homeZone(location: { name: string; latitude: number; longitude: number; radius: number }): PlatformEntry<ZoneOptions> {
  return {
    domain: 'zone',
    index: -1,
    platform: 'virtual',
    name: location.name,
    entityId: 'zone.home',
    icon: 'mdi:home',
    options: { latitude: location.latitude, longitude: location.longitude, radius: location.radius, passive: false, home: true },
  };
}

/** zone: a place; its state is how many persons are in it. */
export const zoneDomain: PlatformDomain<ZoneOptions> = {
  domain: 'zone',
  optionKeys: [],
  parseOptions: () => ({ latitude: 0, longitude: 0, radius: 100, passive: false, home: false }),
  parseSection: (section) =>
    parseList('zone', section, ['name', 'latitude', 'longitude', 'radius', 'icon', 'passive'], (entry) => ({
      latitude: entry.required('latitude', toCoordinate(90)),
      longitude: entry.required('longitude', toCoordinate(180)),
      radius: entry.optional('radius', cv.coerceFloat, 100),
      passive: entry.optional('passive', cv.boolean, false),
      home: false,
    })).map((e) => ({ ...e, icon: e.icon ?? 'mdi:map-marker' })),
  supportedFeatures: () => undefined,
  machine: zoneMachine,
  watches: () => ({ domains: ['person'] }),
  watchEvent: (entityId, state) => ({ type: 'person_changed', entity_id: entityId, state: state?.state ?? null }),
  input: (entry) => ({ presence: entry.options.home ? 'home' : (entry.name ?? '') }),
  render: (snapshot, entry) => {
    const persons = personsIn(snapshot.context as ZoneContext);
    const { latitude, longitude, radius, passive, home } = entry.options;
    return { state: String(persons.length), attributes: { latitude, longitude, radius, passive, persons, editable: home } };
  },
  services: [],
};
