// Given a helper domain's configuration (and a restored state), when events, then what it shows.
import { initialTransition, transition, type EventObject } from 'xstate';
import type { EntityState, HelperDomain, HelperEnv } from '../../actors/entities/types.ts';

/** The time and zone a given helper sees unless a test names others: 2026-11-28 12:00 UTC. */
export const TEST_ENV: HelperEnv = { now: Date.UTC(2026, 10, 28, 12), timeZone: 'UTC' };

/** Starts the item named `objectId` (default the first) of a section, as the pure machine. */
export function givenHelper(domain: HelperDomain, section: unknown, restored?: string, objectId?: string, env: HelperEnv = TEST_ENV) {
  const items = domain.parseConfig(section);
  const item = objectId ? items.find((i) => i.objectId === objectId)! : items[0];
  const last: EntityState | undefined =
    restored === undefined
      ? undefined
      : { entity_id: `${domain.domain}.${item.objectId}`, state: restored, attributes: {}, last_changed: 0, last_reported: 0, last_updated: 0, context: { id: 'c', parent_id: null, user_id: null } };
  let [snapshot] = initialTransition(domain.machine, domain.input(item, last, env));
  const rejected: Array<{ message: string; code: string }> = [];
  const h = {
    when(...events: Array<EventObject & Record<string, unknown>>) {
      for (const event of events) {
        const [next, actions] = transition(domain.machine, snapshot, event);
        snapshot = next;
        for (const a of actions as any[]) if (a.type === 'xstate.emit' && a.params.event.type === 'rejected') rejected.push(a.params.event);
      }
      return h;
    },
    get shown() {
      return domain.render(snapshot, item, env);
    },
    rejected,
  };
  return h;
}
