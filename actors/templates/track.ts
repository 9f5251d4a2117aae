import type { Clock } from '../clock.ts';
import type { RenderInfo } from './render-env.ts';
import type { RenderOptions, RenderOutcome } from './index.ts';
import { resultJson } from './json.ts';
import { RenderLimitError } from './errors.ts';

/**
 * Subscribed templates (render_template), re-rendered as the original's
 * async_track_template_result decides: on a change of an entity the last render read, of a
 * domain it iterated (at most once a second), of any state when it iterated all of them or
 * failed (at most once a minute), on an entity added or removed where it counted, and at every
 * minute when it read the time. A result goes out only when it differs from the last one.
 */

/** What re-renders a template, as the original reports it. */
export interface Listeners {
  all: boolean;
  entities: string[];
  domains: string[];
  time: boolean;
}

export interface TrackOptions extends Omit<RenderOptions, 'timeout' | 'log'> {
  /** report warnings and errors as events (report_errors) */
  reportErrors: boolean;
  /** a new result: its JSON as the original parses results, and what re-renders it */
  onResult(resultJson: string, listeners: Listeners): void;
  /** with reportErrors: a warning or an error of a render */
  onError(message: string, level: 'WARNING' | 'ERROR'): void;
  /** without reportErrors: a line for the log about a failed render */
  log?(line: string): void;
}

/** The original's rate limits, in milliseconds. */
const ALL_STATES_RATE_LIMIT = 60_000;
const DOMAIN_STATES_RATE_LIMIT = 1_000;

/** The renderer the tracker drives (the Templates service). */
interface Renderer {
  render(source: string, variables: Record<string, unknown> | undefined, options: RenderOptions): RenderOutcome;
}

const domainOf = (entityId: string) => entityId.slice(0, entityId.indexOf('.'));

/** One subscribed template. */
export class TrackedTemplate {
  private info: RenderInfo | undefined;
  private failed = false;
  /** the JSON of the last result sent, or ERROR after a failed render */
  private last: string | undefined;
  private lastRender = -Infinity;
  private rateTimer: NodeJS.Timeout | undefined;
  private minuteTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly tracker: TemplateTracker,
    private readonly renderer: Renderer,
    private readonly clock: Clock,
    private readonly source: string,
    private readonly variables: Record<string, unknown> | undefined,
    private readonly options: TrackOptions,
  ) {}

  /**
   * The first render, before the subscription is confirmed: only its problems are reported.
   * `cutOff` is a render the caller just made of the same template that its bounds stopped: it
   * would stop again, so it is taken as this one rather than run for as long a second time.
   */
  setup(cutOff?: RenderOutcome): void {
    const outcome = cutOff ? this.adopt(cutOff) : this.renderOnce();
    if (!outcome.ok) this.problem(outcome.error.toString());
    // a render cut off by its bounds is not run a second time straight away
    if (!outcome.ok && outcome.error instanceof RenderLimitError) this.spent = outcome;
  }

  private spent: RenderOutcome | undefined;

  /** Renders now and sends the result if it changed. */
  refresh(): void {
    if (this.stopped) return;
    clearTimeout(this.rateTimer);
    this.rateTimer = undefined;
    const outcome = this.spent ?? this.renderOnce();
    this.spent = undefined;
    if (!outcome.ok) {
      if (this.last === ERROR) return;
      this.last = ERROR;
      this.problem(outcome.error.toString());
      return;
    }
    // the original parses rendered results, but hands a static text back as it is
    const json = outcome.isStatic ? JSON.stringify(outcome.text) : resultJson(outcome.text);
    if (json === this.last) return;
    this.last = json;
    this.options.onResult(json, this.listeners());
  }

  private renderOnce(): RenderOutcome {
    const { strict, canRead, reportErrors } = this.options;
    return this.adopt(this.renderer.render(this.source, this.variables, { strict, canRead, log: reportErrors ? (level, message) => this.options.onError(message, level) : undefined }));
  }

  /** Takes a render's outcome as the last one: what it read is listened to from now on. */
  private adopt(outcome: RenderOutcome): RenderOutcome {
    this.info = outcome.info;
    this.failed = !outcome.ok;
    this.lastRender = this.clock.now();
    this.tracker.register(this, this.watches());
    this.scheduleMinute();
    return outcome;
  }

  private problem(message: string): void {
    if (this.options.reportErrors) this.options.onError(message, 'ERROR');
    else this.options.log?.(`Error while processing template: ${message}`);
  }

  /** What the subscription listens to after the last render. */
  watches(): { all: boolean; entities: Set<string>; domains: Set<string> } {
    const info = this.info!;
    if (info.allStates || info.allStatesLifecycle) return { all: true, entities: new Set(), domains: new Set() };
    return { all: false, entities: info.entities, domains: new Set([...info.domains, ...info.domainsLifecycle]) };
  }

  listeners(): Listeners {
    const w = this.watches();
    return { all: w.all, entities: [...w.entities].sort(), domains: [...w.domains].sort(), time: this.info!.hasTime };
  }

  /** A change of an entity this template listens to (or of any, when it listens to all). */
  changed(entityId: string, hadOld: boolean, hasNew: boolean): void {
    const info = this.info;
    if (!info || this.stopped || !this.triggers(info, entityId, hadOld, hasNew)) return;
    const limit = info.entities.has(entityId) ? 0 : this.rateLimit(info);
    const due = this.lastRender + limit - this.clock.now();
    if (due <= 0) return this.refresh();
    this.rateTimer ??= setTimeout(() => this.refresh(), due).unref();
  }

  /** The original's _event_triggers_rerender. */
  private triggers(info: RenderInfo, entityId: string, hadOld: boolean, hasNew: boolean): boolean {
    const domain = domainOf(entityId);
    if (this.failed || info.allStates) return true;
    if (info.domains.size ? info.domains.has(domain) || info.entities.has(entityId) : info.entities.has(entityId)) return true;
    // only an entity added or removed counts for what was counted
    if (hadOld && hasNew) return false;
    return info.allStatesLifecycle || info.domainsLifecycle.has(domain);
  }

  private rateLimit(info: RenderInfo): number {
    if (info.allStates || this.failed) return ALL_STATES_RATE_LIMIT;
    if (info.domains.size || info.domainsLifecycle.size) return DOMAIN_STATES_RATE_LIMIT;
    return 0;
  }

  /** A template that read the time renders again at the start of each minute. */
  private scheduleMinute(): void {
    if (!this.info!.hasTime) {
      clearTimeout(this.minuteTimer);
      this.minuteTimer = undefined;
      return;
    }
    if (this.minuteTimer) return;
    const wait = 60_000 - (this.clock.now() % 60_000);
    this.minuteTimer = setTimeout(() => {
      this.minuteTimer = undefined;
      this.refresh();
    }, wait).unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.rateTimer);
    clearTimeout(this.minuteTimer);
    this.tracker.unregister(this);
  }
}

const ERROR = '\u0000error';

/** The subscribed templates, indexed by what they listen to, so a change reaches only its own. */
export class TemplateTracker {
  private readonly byEntity = new Map<string, Set<TrackedTemplate>>();
  private readonly byDomain = new Map<string, Set<TrackedTemplate>>();
  private readonly everything = new Set<TrackedTemplate>();
  private readonly current = new Map<TrackedTemplate, { entities: string[]; domains: string[] }>();

  constructor(
    private readonly renderer: Renderer,
    private readonly clock: Clock,
  ) {}

  /** Subscribes: renders once (its problems reported), then `refresh()` sends the first result. */
  track(source: string, variables: Record<string, unknown> | undefined, options: TrackOptions, cutOff?: RenderOutcome): TrackedTemplate {
    const t = new TrackedTemplate(this, this.renderer, this.clock, source, variables, options);
    t.setup(cutOff);
    return t;
  }

  /** How many templates are subscribed. */
  get size(): number {
    return this.current.size;
  }

  register(t: TrackedTemplate, w: { all: boolean; entities: Set<string>; domains: Set<string> }): void {
    this.unregister(t);
    const entities = [...w.entities];
    const domains = [...w.domains];
    for (const e of entities) add(this.byEntity, e, t);
    for (const d of domains) add(this.byDomain, d, t);
    if (w.all) this.everything.add(t);
    this.current.set(t, { entities, domains });
  }

  unregister(t: TrackedTemplate): void {
    const was = this.current.get(t);
    if (!was) return;
    for (const e of was.entities) remove(this.byEntity, e, t);
    for (const d of was.domains) remove(this.byDomain, d, t);
    this.everything.delete(t);
    this.current.delete(t);
  }

  stateChanged(entityId: string, hadOld: boolean, hasNew: boolean): void {
    if (this.current.size === 0) return;
    const hit = new Set<TrackedTemplate>(this.everything);
    for (const t of this.byEntity.get(entityId) ?? []) hit.add(t);
    for (const t of this.byDomain.get(domainOf(entityId)) ?? []) hit.add(t);
    for (const t of hit) t.changed(entityId, hadOld, hasNew);
  }
}

function add<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

function remove<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (!set.size) map.delete(key);
}
