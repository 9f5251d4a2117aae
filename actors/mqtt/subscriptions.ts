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

/** A filter's listeners; `order` is when the filter was first added (messages reach filters in that order). */
interface Filter {
  order: number;
  listeners: Set<Listener>;
}

const isWildcard = (filter: string) => filter.includes('+') || filter.includes('#');

export class SubscriptionTable {
  private readonly byFilter = new Map<string, Filter>();
  /** the filters with wildcards: a message's topic is matched against these; the others are looked up by the topic itself */
  private readonly wildcards = new Map<string, Filter>();
  private order = 0;
  /** listeners in the order they were added, numbered: a dispatch reaches only those added before it began */
  private readonly added = new WeakMap<Listener, number>();
  private listenerCount = 0;

  /** Adds a listener; true when the filter is new (the broker must be asked). */
  add(filter: string, listener: Listener): void {
    let entry = this.byFilter.get(filter);
    if (!entry) {
      entry = { order: this.order++, listeners: new Set() };
      this.byFilter.set(filter, entry);
      if (isWildcard(filter)) this.wildcards.set(filter, entry);
    }
    if (!this.added.has(listener)) this.added.set(listener, this.listenerCount++);
    entry.listeners.add(listener);
  }

  /** Removes a listener; true when the filter has none left (the broker may forget it). */
  remove(filter: string, listener: Listener): boolean {
    const entry = this.byFilter.get(filter);
    if (!entry) return false;
    entry.listeners.delete(listener);
    if (entry.listeners.size > 0) return false;
    this.byFilter.delete(filter);
    this.wildcards.delete(filter);
    return true;
  }

  /** The highest QoS asked for a filter. */
  qosOf(filter: string): 0 | 1 | 2 {
    let qos: 0 | 1 | 2 = 0;
    for (const l of this.byFilter.get(filter)?.listeners ?? []) if (l.qos > qos) qos = l.qos;
    return qos;
  }

  /** Every filter with its QoS (what to subscribe again after a reconnect). */
  all(): Record<string, { qos: 0 | 1 | 2 }> {
    return Object.fromEntries([...this.byFilter.keys()].map((f) => [f, { qos: this.qosOf(f) }]));
  }

  /** Forgets which retained messages were delivered (after a reconnect the broker's are news). */
  forgetRetained(): void {
    for (const entry of this.byFilter.values()) for (const l of entry.listeners) l.retained.clear();
  }

  /**
   * Hands a message to every matching listener (a listener once, even under overlapping
   * filters), filters in the order they were added. The filter named as the topic is looked up;
   * only filters with wildcards are matched one by one.
   */
  dispatch(message: RawMessage): void {
    const matched: Filter[] = [];
    const exact = this.byFilter.get(message.topic);
    if (exact && !this.wildcards.has(message.topic)) matched.push(exact);
    for (const [filter, entry] of this.wildcards) if (topicMatches(filter, message.topic)) matched.push(entry);
    if (matched.length > 1) matched.sort((a, b) => a.order - b.order);
    // listeners added while it is delivered (by a listener) do not get this message
    const before = this.listenerCount;
    const reached = matched.length > 1 ? new Set<Listener>() : undefined;
    for (const entry of matched) {
      for (const l of entry.listeners) {
        if (this.added.get(l)! >= before) continue;
        if (reached) {
          if (reached.has(l)) continue;
          reached.add(l);
        }
        if (message.retain) {
          if (l.retained.has(message.topic)) continue;
          l.retained.add(message.topic);
        }
        l.deliver(message);
      }
    }
  }
}
