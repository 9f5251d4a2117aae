import { assign, setup } from 'xstate';

/** A device tracker's state as a person reads it. */
export interface TrackerState {
  state: string;
  attributes: Record<string, unknown>;
  last_updated: number;
}

/** Where a person is, and from which tracker. */
export interface Whereabouts {
  state: string | null;
  source: string | null;
  latitude: number | null;
  longitude: number | null;
  gps_accuracy: number | null;
}

export interface PersonInput {
  /** the person's device trackers, in configured order */
  device_trackers: string[];
  /** the last state, kept while no tracker has one (a person without trackers) */
  restored: Whereabouts | null;
}

export interface PersonContext extends PersonInput {
  trackers: Record<string, TrackerState>;
}

export type PersonEvent = { type: 'tracker_changed'; entity_id: string; state: TrackerState | null };

const numberOr = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The original's person state: a home report of a tracker that is no GPS tracker (a router)
 * wins, else the latest GPS tracker, else the latest not_home; among equals the latest update.
 */
export function whereabouts(context: PersonContext): Whereabouts {
  let home: [string, TrackerState] | undefined;
  let gps: [string, TrackerState] | undefined;
  let away: [string, TrackerState] | undefined;
  const later = (previous: [string, TrackerState] | undefined, next: [string, TrackerState]) => (!previous || next[1].last_updated > previous[1].last_updated ? next : previous);
  for (const id of context.device_trackers) {
    const t = context.trackers[id];
    if (!t || t.state === 'unknown' || t.state === 'unavailable') continue;
    if (t.attributes.source_type === 'gps') gps = later(gps, [id, t]);
    else if (t.state === 'home') home = later(home, [id, t]);
    else if (t.state === 'not_home') away = later(away, [id, t]);
  }
  const latest = home ?? gps ?? away;
  if (!latest) return context.device_trackers.length === 0 && context.restored ? context.restored : { state: null, source: null, latitude: null, longitude: null, gps_accuracy: null };
  const [source, t] = latest;
  return { state: t.state, source, latitude: numberOr(t.attributes.latitude), longitude: numberOr(t.attributes.longitude), gps_accuracy: numberOr(t.attributes.gps_accuracy) };
}

/** A person: where their device trackers say they are. */
export const personMachine = setup({
  types: {
    context: {} as PersonContext,
    events: {} as PersonEvent,
    input: {} as PersonInput,
  },
  actions: {
    track: assign({
      trackers: ({ context, event }) => {
        const next = { ...context.trackers };
        if (event.state) next[event.entity_id] = event.state;
        else delete next[event.entity_id];
        return next;
      },
    }),
  },
}).createMachine({
  id: 'person',
  context: ({ input }) => ({ ...input, trackers: {} }),
  initial: 'tracking',
  states: {
    tracking: {
      on: { tracker_changed: { actions: 'track' } },
    },
  },
});
