import type { RawMessage } from './subscriptions.ts';

/** How many messages of each topic are kept (the original's STORED_MESSAGES). */
const STORED_MESSAGES = 10;

/** A message as `mqtt/device/debug_info` shows it. */
export interface DebugMessage {
  payload: string;
  qos: number;
  retain: boolean;
  time: number;
  topic: string;
}

interface EntityDebug {
  subscriptions: Map<string, DebugMessage[]>;
  transmitted: Map<string, DebugMessage[]>;
  discovery?: { topic: string; payload: Record<string, unknown> };
}

const push = (map: Map<string, DebugMessage[]>, key: string, m: DebugMessage) => {
  const list = map.get(key) ?? [];
  list.push(m);
  if (list.length > STORED_MESSAGES) list.shift();
  map.set(key, list);
};

/**
 * What `mqtt/device/debug_info` tells of each entity: its subscriptions with the last messages
 * received on each, the last messages it published, and the discovery message that made it.
 * Memory only, as the original's.
 */
export class DebugInfo {
  private readonly entities = new Map<string, EntityDebug>();

  private of(entityId: string): EntityDebug {
    let d = this.entities.get(entityId);
    if (!d) this.entities.set(entityId, (d = { subscriptions: new Map(), transmitted: new Map() }));
    return d;
  }

  subscribed(entityId: string, filter: string): void {
    const d = this.of(entityId);
    if (!d.subscriptions.has(filter)) d.subscriptions.set(filter, []);
  }

  received(entityId: string, filter: string, m: RawMessage, payload: string, time: number): void {
    push(this.of(entityId).subscriptions, filter, { payload, qos: m.qos, retain: m.retain, time, topic: m.topic });
  }

  transmitted(entityId: string, topic: string, payload: string, qos: number, retain: boolean, time: number): void {
    push(this.of(entityId).transmitted, topic, { payload, qos, retain, time, topic });
  }

  discovered(entityId: string, topic: string, payload: Record<string, unknown>): void {
    this.of(entityId).discovery = { topic, payload };
  }

  /** Forgets an entity (removed, or moved to another id: `to`). */
  forget(entityId: string, to?: string): void {
    const d = this.entities.get(entityId);
    this.entities.delete(entityId);
    if (d && to) this.entities.set(to, d);
  }

  /** One entity's debug info in the original's shape (times as ISO text by `iso`). */
  entity(entityId: string, iso: (ms: number) => string): Record<string, unknown> {
    const d = this.of(entityId);
    const messages = (list: DebugMessage[]) => list.map((m) => ({ ...m, time: iso(m.time) }));
    return {
      entity_id: entityId,
      subscriptions: [...d.subscriptions].map(([topic, list]) => ({ topic, messages: messages(list) })),
      discovery_data: d.discovery ? { topic: d.discovery.topic, payload: d.discovery.payload } : {},
      transmitted: [...d.transmitted].map(([topic, list]) => ({ topic, messages: messages(list) })),
    };
  }
}
