import type { Clock } from '../clock.ts';
import type { EntityState } from '../entities/types.ts';
import { MAX_TEMPLATE_CHARS, namesUsed, parseTemplate, type Node } from './compile.ts';
import { zoneNamed } from './zones.ts';
import { DEFAULT_LIMITS, type RenderLimits } from './budget.ts';
import { Render } from './engine.ts';
import { RenderInfo, fromJson, type Library, type World } from './render-env.ts';
import { RenderFault, RenderLimitError, TemplateError } from './errors.ts';
import { templateLibrary } from './library.ts';
import { NO_REGISTRIES, TemplateState, type StateSource, type TemplateHome } from './states.ts';
import { TemplateTracker, type TrackOptions, type TrackedTemplate } from './track.ts';
import { isDict } from './values.ts';

export { RenderLimitError, TemplateError } from './errors.ts';
export { resultJson } from './json.ts';
export { NO_REGISTRIES, type TemplateHome } from './states.ts';
export type { Listeners, TrackOptions, TrackedTemplate } from './track.ts';

/** What the templates read of the home. */
export interface TemplatesOptions {
  /** the states (EntityActors) */
  entities: { get(entityId: string): EntityState | undefined; states(): Iterable<EntityState> };
  /** the core configuration: location, time zone, unit system */
  coreConfig: {
    asDict(state: string): Record<string, unknown>;
    /** what a render reads (time zone, location, units) without the rest of asDict, whose components list walks every source */
    templateBasics?(): Record<string, unknown>;
  };
  clock: Clock;
  /** area, floor, device and label lookups; none until the registries exist */
  home?: TemplateHome;
  limits?: Partial<RenderLimits>;
}

/** How one render runs. */
export interface RenderOptions {
  /** StrictUndefined: an undefined name is an error, not an empty string */
  strict?: boolean;
  /** the entities the caller may read; all when absent */
  canRead?: (entityId: string) => boolean;
  /** a caller's own timeout, with the error it reports given the bound applied (its own, or the render limit when that is shorter) */
  timeout?: { ms: number; error: (boundMs: number) => TemplateError };
  /** the original's log_fn: warnings and errors of undefined names as they happen */
  log?: (level: 'WARNING' | 'ERROR', message: string) => void;
}

/** A render's text (`isStatic` when the text held no template syntax), or its error; what it read either way. */
export type RenderOutcome = { ok: true; text: string; info: RenderInfo; isStatic?: true } | { ok: false; error: TemplateError; info: RenderInfo };

/** A state as a template variable that reads as a state object (`this` of an MQTT entity's templates), not as a dict. */
export function stateVariable(state: EntityState): unknown {
  return new TemplateState(state, false);
}

/** The original's is_template_string: text without `{{`, `{%` or `{#` renders as itself. */
const isTemplateString = (t: string) => t.includes('{') && (t.includes('{%') || t.includes('{{') || t.includes('{#'));

const CACHE_SIZE = 512;

/**
 * The template service: compiles (cached by text), renders with bounds, and keeps subscribed
 * templates current as states change (track.ts). One per instance.
 */
export class Templates {
  private readonly library: Library = templateLibrary();
  private readonly compiled = new Map<string, Node | TemplateError>();
  private readonly limits: RenderLimits;
  private readonly home: TemplateHome;
  readonly tracker: TemplateTracker;

  constructor(private readonly options: TemplatesOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.home = options.home ?? NO_REGISTRIES;
    this.tracker = new TemplateTracker(this, options.clock);
  }

  /** The tree of a template, or the error that makes it no template (both cached). */
  compile(text: string): Node | TemplateError {
    let c = this.compiled.get(text);
    if (c !== undefined) {
      // most recently used last
      this.compiled.delete(text);
      this.compiled.set(text, c);
      return c;
    }
    try {
      const program = parseTemplate(text);
      const { filters, tests } = namesUsed(program);
      for (const f of filters) if (!this.library.filters.has(f)) throw new TemplateError('TemplateAssertionError', `No filter named '${f}'.`);
      for (const t of tests) if (!this.library.tests.has(t)) throw new TemplateError('TemplateAssertionError', `No test named '${t}'.`);
      c = program;
    } catch (err) {
      if (!(err instanceof TemplateError)) throw err;
      c = err;
    }
    if (text.length <= MAX_TEMPLATE_CHARS / 16) {
      if (this.compiled.size >= CACHE_SIZE) this.compiled.delete(this.compiled.keys().next().value!);
      this.compiled.set(text, c);
    }
    return c;
  }

  /**
   * Renders template text with variables (plain JSON values) into text, as the original's
   * async_render: surrounding whitespace stripped, output bounded.
   */
  render(source: string, variables: Record<string, unknown> | undefined, options: RenderOptions = {}): RenderOutcome {
    const text = source.trim();
    const info = new RenderInfo();
    if (!isTemplateString(text)) return { ok: true, text, info, isStatic: true };
    const program = this.compile(text);
    if (program instanceof TemplateError) return { ok: false, error: program, info };
    const timeout = options.timeout;
    const bound = timeout ? Math.min(timeout.ms, this.limits.timeMs) : this.limits.timeMs;
    const limits = bound === this.limits.timeMs ? this.limits : { ...this.limits, timeMs: bound };
    const render = new Render(text, this.world(options.canRead), this.library, options.strict === true, limits, options.log ?? (() => {}), timeout && (() => timeout.error(bound)));
    const vars = new Map<string, unknown>();
    if (variables && isDict(variables)) for (const [k, v] of Object.entries(variables)) vars.set(k, v instanceof TemplateState ? v : fromJson(v));
    try {
      return { ok: true, text: render.run(program, vars).trim(), info: render.info };
    } catch (err) {
      if (err instanceof TemplateError) return { ok: false, error: err, info: render.info };
      // a fault of a function is that render's error, as any exception is in the original
      const e = err instanceof Error ? err : new Error(String(err));
      return { ok: false, error: new RenderFault(e.name, e.message), info: render.info };
    }
  }

  /**
   * Subscribes to a template: rendered now, and again whenever what it read changes. `trial`
   * is a render the caller just made of it with the same options (bar a timeout): when its
   * bounds cut it off, it is not run again.
   */
  track(source: string, variables: Record<string, unknown> | undefined, options: TrackOptions, trial?: RenderOutcome): TrackedTemplate {
    const cutOff = trial && !trial.ok && trial.error instanceof RenderLimitError ? trial : undefined;
    return this.tracker.track(source, variables, options, cutOff);
  }

  /** A committed state change (new or old state null for an entity added or removed). */
  stateChanged(entityId: string, oldState: unknown, newState: unknown): void {
    this.tracker.stateChanged(entityId, oldState !== null && oldState !== undefined, newState !== null && newState !== undefined);
  }

  private world(canRead?: (entityId: string) => boolean): World {
    const { entities, coreConfig, clock } = this.options;
    const config = coreConfig.templateBasics ? coreConfig.templateBasics() : coreConfig.asDict('RUNNING');
    const states: StateSource = canRead
      ? {
          get: (id) => (canRead(id) ? entities.get(id) : undefined),
          *all() {
            for (const s of entities.states()) if (canRead(s.entity_id)) yield s;
          },
        }
      : { get: (id) => entities.get(id), all: () => entities.states() };
    const units = config.unit_system as { length?: string } | undefined;
    return {
      states,
      home: this.home,
      now: () => clock.now(),
      zone: zoneNamed(typeof config.time_zone === 'string' ? config.time_zone : undefined),
      location: { latitude: Number(config.latitude), longitude: Number(config.longitude), metric: units?.length !== 'mi' },
    };
  }
}
