import { topicMatches } from './topics.ts';

/**
 * Who listens to which topic filter. A filter is subscribed at the broker once, at the highest
 * QoS its listeners ask for; a message goes to every listener whose filter matches its topic. A
 * retained message (one the broker replays on a new subscription) reaches each listener once per
 * topic, as the original's client does, so another listener subscribing later does not make the
 * others see old values again.
 */

/** A message as listeners get it: the payload still as bytes (each listener decodes it its own way). */
export interface RawMessage {
  topic: string;
  payload: Buffer;
  qos: 0 | 1 | 2;
  retain: boolean;
}

export interface Listener {
  qos: 0 | 1 | 2;
  deliver(message: RawMessage): void;
  /** topics whose retained message this listener has had */
  retained: Set<string>;
}

export class SubscriptionTable {
  private readonly byFilter = new Map<string, Set<Listener>>();

  /** Adds a listener; true when the filter is new (the broker must be asked). */
  add(filter: string, listener: Listener): void {
    let set = this.byFilter.get(filter);
    if (!set) this.byFilter.set(filter, (set = new Set()));
    set.add(listener);
  }

  /** Removes a listener; true when the filter has none left (the broker may forget it). */
  remove(filter: string, listener: Listener): boolean {
    const set = this.byFilter.get(filter);
    if (!set) return false;
    set.delete(listener);
    if (set.size > 0) return false;
    this.byFilter.delete(filter);
    return true;
  }

  /** The highest QoS asked for a filter. */
  qosOf(filter: string): 0 | 1 | 2 {
    let qos: 0 | 1 | 2 = 0;
    for (const l of this.byFilter.get(filter) ?? []) if (l.qos > qos) qos = l.qos;
    return qos;
  }

  /** Every filter with its QoS (what to subscribe again after a reconnect). */
  all(): Record<string, { qos: 0 | 1 | 2 }> {
    return Object.fromEntries([...this.byFilter.keys()].map((f) => [f, { qos: this.qosOf(f) }]));
  }

  /** Forgets which retained messages were delivered (after a reconnect the broker's are news). */
  forgetRetained(): void {
    for (const set of this.byFilter.values()) for (const l of set) l.retained.clear();
  }

  /** Hands a message to every matching listener (a listener once, even under overlapping filters). */
  dispatch(message: RawMessage): void {
    const reached = new Set<Listener>();
    for (const [filter, set] of [...this.byFilter]) {
      if (!topicMatches(filter, message.topic)) continue;
      for (const l of [...set]) {
        if (reached.has(l)) continue;
        reached.add(l);
        if (message.retain) {
          if (l.retained.has(message.topic)) continue;
          l.retained.add(message.topic);
        }
        l.deliver(message);
      }
    }
  }
}
