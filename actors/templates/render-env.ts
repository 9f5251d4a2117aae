// The render as the template library sees it: what a global function, a filter or a test is
// given (RenderEnv), what the home offers (World), what a render records it read (RenderInfo),
// and the helpers the library's modules define their functions with.
import type { Room } from './budget.ts';
import type { Zone } from './zones.ts';
import { Callable, Float, type Ctx } from './values.ts';

export type FilterFn = (env: RenderEnv, value: unknown, args: unknown[], kwargs: Map<string, unknown>) => unknown;
export type TestFn = (env: RenderEnv, value: unknown, args: unknown[], kwargs: Map<string, unknown>) => boolean;

/** The functions, filters and tests a template can name. */
export interface Library {
  globals: Map<string, unknown>;
  filters: Map<string, FilterFn>;
  tests: Map<string, TestFn>;
}

/** What a render read: the entities, domains and whole-state iterations that should re-render it. */
export class RenderInfo {
  readonly entities = new Set<string>();
  readonly domains = new Set<string>();
  /** domains whose entity count was read: an entity added or removed there re-renders */
  readonly domainsLifecycle = new Set<string>();
  allStates = false;
  allStatesLifecycle = false;
  hasTime = false;
}

/** What the home offers a render; see states.ts for the parts. */
export interface World {
  states: import('./states.ts').StateSource;
  home: import('./states.ts').TemplateHome;
  /** epoch ms */
  now(): number;
  zone: Zone;
  location: { latitude: number; longitude: number; metric: boolean };
}

/** The render as functions and filters see it. */
export interface RenderEnv extends Ctx {
  readonly template: string;
  readonly info: RenderInfo;
  readonly world: World;
  call(fn: unknown, args: unknown[], kwargs?: Map<string, unknown>): unknown;
  getattr(obj: unknown, name: string): unknown;
  getitem(obj: unknown, key: unknown): unknown;
  contains(haystack: unknown, needle: unknown): boolean;
  filter(name: string, value: unknown, args: unknown[], kwargs?: Map<string, unknown>): unknown;
  test(name: string, value: unknown, args: unknown[]): boolean;
  iterate(x: unknown): unknown[];
  truth(x: unknown): boolean;
  print(x: unknown): string;
  /** the work of reading or copying `chars` characters of text */
  chargeText(chars: number): void;
  /** refuses a value of `size` characters or items past the value limit */
  checkSize(size: number): void;
  /** the guard before building a value of `size` items or characters: refused past the limit, its building counted */
  ensureRoom(size: number, room?: Room): void;
}

/** A value a caller gives a template (variables), as the template sees it: lists, dicts, numbers. */
export function fromJson(value: unknown): unknown {
  if (typeof value === 'number' && !Number.isInteger(value)) return new Float(value);
  // a float the caller already marked as one (an MQTT light's hue: `0.0`)
  if (value instanceof Float) return value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (value !== null && typeof value === 'object') {
    const dict = new Map<unknown, unknown>();
    for (const [key, item] of Object.entries(value)) dict.set(key, fromJson(item));
    return dict;
  }
  return value;
}

/** A global function of the library: `body` sees the render it is called in. */
export function fn(name: string, body: (env: RenderEnv, args: unknown[], kwargs: Map<string, unknown>) => unknown): Callable {
  return new Callable(name, (ctx, args, kwargs) => body(ctx as RenderEnv, args, kwargs));
}

/** A positional-or-keyword argument of a call, or `fallback` when it was not given. */
export function argument(args: unknown[], kwargs: Map<string, unknown>, index: number, name: string, fallback?: unknown): unknown {
  if (kwargs.has(name)) return kwargs.get(name);
  return index < args.length ? args[index] : fallback;
}
