/**
 * Entries of one registry by key, in insertion order (a replaced entry keeps its place, as a
 * dict's does), with indexes from a value (an area id, a label) to the keys holding it, kept
 * up to date on every put and delete.
 */
export class Table<E> {
  private readonly rows = new Map<string, E>();
  private readonly indexes = new Map<string, { of: (e: E) => Iterable<string>; keys: Map<string, Set<string>> }>();

  constructor(
    private readonly keyOf: (e: E) => string,
    indexes: Record<string, (e: E) => Iterable<string>> = {},
  ) {
    for (const [name, of] of Object.entries(indexes)) this.indexes.set(name, { of, keys: new Map() });
  }

  get(key: string): E | undefined {
    return this.rows.get(key);
  }

  has(key: string): boolean {
    return this.rows.has(key);
  }

  get size(): number {
    return this.rows.size;
  }

  values(): IterableIterator<E> {
    return this.rows.values();
  }

  /** Adds an entry or replaces the one with the same key. */
  put(entry: E): void {
    const key = this.keyOf(entry);
    const old = this.rows.get(key);
    if (old !== undefined) this.unindex(key, old);
    this.rows.set(key, entry);
    for (const { of, keys } of this.indexes.values()) {
      for (const value of of(entry)) {
        let set = keys.get(value);
        if (!set) keys.set(value, (set = new Set()));
        set.add(key);
      }
    }
  }

  delete(key: string): E | undefined {
    const old = this.rows.get(key);
    if (old === undefined) return undefined;
    this.unindex(key, old);
    this.rows.delete(key);
    return old;
  }

  clear(): void {
    this.rows.clear();
    for (const index of this.indexes.values()) index.keys.clear();
  }

  /** The entries an index maps `value` to, in the order they were indexed. */
  find(index: string, value: string): E[] {
    const keys = this.indexes.get(index)!.keys.get(value);
    return keys ? [...keys].map((k) => this.rows.get(k)!) : [];
  }

  /** The first entry an index maps `value` to. */
  first(index: string, value: string): E | undefined {
    const keys = this.indexes.get(index)!.keys.get(value);
    if (!keys) return undefined;
    for (const k of keys) return this.rows.get(k);
    return undefined;
  }

  private unindex(key: string, entry: E): void {
    for (const { of, keys } of this.indexes.values()) {
      for (const value of of(entry)) {
        const set = keys.get(value);
        if (!set) continue;
        set.delete(key);
        if (set.size === 0) keys.delete(value);
      }
    }
  }
}
