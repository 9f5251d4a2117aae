import type { Bus } from './bus.ts';
import type { EventRecord } from '../store/types.ts';
import { entityEventPayload } from './compressed.ts';
import { entityRecords } from '../actors/entities/registry.ts';

interface Subscriber {
  matches(entityId: string): boolean;
  deliver(payload: string): void;
}

/**
 * The subscribe_entities fan-out: one tap on the bus for every subscriber, each change
 * serialised once (streams/compressed.ts) and handed to every subscriber whose filter wants it.
 */
export class EntityFanout {
  private readonly subscribers = new Set<Subscriber>();

  constructor(bus: Bus) {
    bus.listen('state_changed', 'subscribe_entities', (r: EventRecord) => {
      if (this.subscribers.size === 0 || !entityRecords.owns(r) || r.type !== 'state_changed') return;
      const entityId = r.data.entity_id;
      let payload: string | undefined;
      for (const s of this.subscribers) {
        if (s.matches(entityId)) s.deliver((payload ??= entityEventPayload(r)));
      }
    });
  }

  /** Adds a subscriber; the returned function removes it. */
  subscribe(matches: (entityId: string) => boolean, deliver: (payload: string) => void): () => void {
    const s: Subscriber = { matches, deliver };
    this.subscribers.add(s);
    return () => void this.subscribers.delete(s);
  }

  get size(): number {
    return this.subscribers.size;
  }
}
