import type { HttpRequest as UwsRequest } from '@trufflesuite/uws-js-unofficial';

/** A path pattern's routes: its segments (`:name` for a parameter) and a handler entry per method. */
export interface Route<Entry> {
  segments: string[];
  methods: Map<string, Entry>;
}

const COLON = 0x3a;

/**
 * The router's paths: found by one lookup when a pattern has no parameter, else matched in the
 * order they were added (the first match wins, so a more specific pattern is added first).
 */
export class RouteTable<Entry> {
  readonly routes: Route<Entry>[] = [];
  /** routes without parameters, found by one lookup */
  private readonly exact = new Map<string, Route<Entry>>();
  /** routes with `:param` segments, matched in turn */
  private readonly withParams: Route<Entry>[] = [];

  /** The route of `pattern` (like `/api/states/:entity_id`), made when it is new. */
  routeOf(pattern: string): Route<Entry> {
    const segments = pattern.split('/').slice(1);
    let route = this.routes.find((r) => r.segments.join('/') === segments.join('/'));
    if (!route) {
      route = { segments, methods: new Map() };
      this.routes.push(route);
      if (pattern.includes(':')) this.withParams.push(route);
      else this.exact.set(pattern, route);
    }
    return route;
  }

  /** The route a path matches and its decoded parameters; a parameter empty or not decodable matches nothing. */
  match(path: string): { route: Route<Entry>; params: Record<string, string> } | undefined {
    const exact = this.exact.get(path);
    if (exact) return { route: exact, params: {} };
    const parts = path.split('/').slice(1);
    outer: for (const route of this.withParams) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i];
        if (seg.startsWith(':')) {
          if (parts[i] === '') continue outer;
          try {
            params[seg.slice(1)] = decodeURIComponent(parts[i]);
          } catch {
            continue outer;
          }
        } else if (seg !== parts[i]) continue outer;
      }
      return { route, params };
    }
    return undefined;
  }
}

/** The decoded `:param` values uWS matched for `route`, or undefined when one is empty or not decodable. */
export function paramsOf(route: Route<unknown>, req: UwsRequest): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  let index = 0;
  for (const seg of route.segments) {
    if (seg.charCodeAt(0) !== COLON) continue;
    const raw = req.getParameter(index++);
    if (!raw) return undefined;
    try {
      params[seg.slice(1)] = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return params;
}

/** A route's pattern again, as uWS's router takes it. */
export function patternOf(route: Route<unknown>): string {
  return `/${route.segments.join('/')}`;
}
