/**
 * The loaded components (the original's `hass.config.components`), which `get_config`,
 * `GET /api/config` and `GET /api/components` list and clients read to decide what to offer.
 * Nothing is listed by hand: each kind of part that serves something (service domains, routes,
 * WebSocket command families, the domains of platform entities) is a source read whenever the
 * list is asked for, so a component that registers itself is listed with no list to edit.
 */
export class LoadedComponents {
  private readonly sources: Array<() => Iterable<string>> = [];

  /** Adds a source of component names, read each time the list is asked for. */
  follow(source: () => Iterable<string>): void {
    this.sources.push(source);
  }

  /** Every component of every source, once each, sorted. */
  list(): string[] {
    const names = new Set<string>();
    for (const source of this.sources) for (const name of source()) names.add(name);
    return [...names].sort();
  }
}
