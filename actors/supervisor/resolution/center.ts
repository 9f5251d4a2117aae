import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Context, EventLog, EventRecord, NewEvent } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { Engine } from '../docker/engine.ts';
import type { InterfaceView } from '../network/interfaces.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import { CHECKS, FREE_SPACE_MIN_BYTES, LEGACY_CHECK_SLUGS, systemdUnitFixups, type Check, type CheckDeps, type CheckTools } from './checks.ts';
import { LocalHost, type HostSystem } from '../host/system.ts';
import { evaluate as judge, gatherFacts } from './evaluations.ts';
import type { CheckView, FixupSpec, IssueSpec, IssueView, Resolution, SuggestionSpec, SuggestionView } from './types.ts';

/**
 * The resolution center: issues, the suggestions that fix them, the checks that find them and
 * the evaluations that say whether the system is supported and healthy.
 *
 * Records (all on `resolution/...`, the last record of a stream holds its state):
 * - `resolution/issue/<uuid>`: `issue_created` (the issue), then `issue_dismissed` (a caller
 *   dismissed it) or `issue_resolved` (its check no longer finds it, or its fix was applied);
 * - `resolution/suggestion/<uuid>`: `suggestion_created`, then `suggestion_dismissed`,
 *   `suggestion_applied` or `suggestion_resolved` (no issue needs it any more);
 * - `resolution/check/<slug>`: `check_options_changed` `{enabled}`;
 * - `resolution/evaluation`: `evaluation_changed` `{unsupported, unhealthy}` when a reason
 *   comes or goes.
 */

export const RESOLUTION_PREFIX = 'resolution/';
const ISSUE = 'resolution/issue/';
const SUGGESTION = 'resolution/suggestion/';
const CHECK = 'resolution/check/';
const EVALUATION = 'resolution/evaluation';
const SNAPSHOT_VERSION = 1;

/** The supported and healthy reasons an evaluation found. */
type Reasons = { unsupported: string[]; unhealthy: string[] };

/** The resolution center's records (streams above). */
export type ResolutionRecord =
  | { type: 'issue_created'; data: IssueView }
  | { type: 'issue_dismissed' | 'issue_resolved'; data: Record<string, never> }
  | { type: 'suggestion_created'; data: IssueView }
  | { type: 'suggestion_dismissed' | 'suggestion_applied' | 'suggestion_resolved'; data: Record<string, never> }
  | { type: 'check_options_changed'; data: { enabled: boolean } }
  | { type: 'evaluation_changed'; data: Reasons };
const resolutionRecords = typedRecords<ResolutionRecord>(RESOLUTION_PREFIX, {
  issue_created: true,
  issue_dismissed: true,
  issue_resolved: true,
  suggestion_created: true,
  suggestion_dismissed: true,
  suggestion_applied: true,
  suggestion_resolved: true,
  check_options_changed: true,
  evaluation_changed: true,
});
/** how often every check runs on its own */
export const HEALTHCHECK_INTERVAL_MS = 30 * 60 * 1000;

/** A fix the center can apply: the suggestion it answers and the issue types it fixes. */
interface Fixup {
  type: string;
  context: string;
  issues: string[];
  auto: boolean;
  apply(suggestion: IssueView): Promise<void>;
}

export interface ResolutionDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  engine: Engine;
  dataDir: string;
  coreDataDir: string;
  coreContainer: string;
  /** free space at or below this is an issue (default 2 GiB) */
  freeSpaceMinBytes?: number;
  /** the host's network interfaces (the IPv4 check); without it the check finds nothing */
  interfaces?(): Promise<InterfaceView[]>;
  /** whether the connectivity check runs (off: the `connectivity_check` unsupported reason) */
  connectivityEnabled?(): boolean;
  /** the job conditions the operator ignores (they make the system unsupported) */
  ignoredConditions(): string[];
  context(): Context;
  warn(line: string): void;
  /** the host's services and tools (systemd's failed units and their fixes); default: this machine */
  host?: HostSystem;
}

/** JSON with sorted keys, so two equal reference_extra objects compare equal. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

const sameTarget = (a: IssueSpec, b: IssueSpec) =>
  a.context === b.context && (a.reference ?? null) === (b.reference ?? null) && canonical(a.reference_extra ?? null) === canonical(b.reference_extra ?? null);
const sameIdentity = (a: IssueSpec, b: IssueSpec) => a.type === b.type && sameTarget(a, b);

export class ResolutionCenter implements Resolution, Area<RecordOf<ResolutionRecord>> {
  readonly name = 'supervisor-resolution';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = RESOLUTION_PREFIX;
  readonly latestSuffices = true;
  private readonly issueMap = new Map<string, IssueView>();
  private readonly suggestionMap = new Map<string, IssueView>();
  private readonly enabled = new Map<string, boolean>();
  private reasons: Reasons = { unsupported: [], unhealthy: [] };
  private readonly fixups: Fixup[];
  /** the built-in checks and those other parts add (backups) */
  private readonly checkList: Check[] = [...CHECKS];
  private readonly checkDeps: CheckDeps;
  private readonly tools: CheckTools;
  /** changes of the issues and suggestions, one after another (de-duplication needs it) */
  private changes: Promise<unknown> = Promise.resolve();
  /** check runs, one after another */
  private runs: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: ResolutionDeps) {
    evolveOnCommit(deps.log, this);
    this.checkDeps = {
      engine: deps.engine,
      dataDir: deps.dataDir,
      coreDataDir: deps.coreDataDir,
      coreContainer: deps.coreContainer,
      freeSpaceMinBytes: deps.freeSpaceMinBytes ?? FREE_SPACE_MIN_BYTES,
      interfaces: deps.interfaces,
      host: deps.host,
    };
    this.tools = {
      addIssue: (issue, suggestions) => this.addIssue(issue, suggestions),
      clearIssues: (match, keep) => this.clearIssues(match, keep),
      warn: deps.warn,
    };
    this.fixups = [
      {
        type: 'execute_reboot',
        context: 'system',
        issues: ['reboot_required'],
        auto: false,
        apply: async () => {
          // a host booted with systemd reboots through it; elsewhere nothing here may reboot the machine
          const host = deps.host ?? new LocalHost();
          if ((await host.services()).systemd) {
            await host.run('systemctl', ['reboot']).catch((err) => {
              throw new SupervisorError(`Cannot reboot the host: ${(err as Error).message}`);
            });
            return;
          }
          throw new SupervisorError(
            'Cannot reboot the host: this supervisor runs on a plain Linux host it does not control (no OS agent, no systemd over D-Bus). Reboot the machine yourself, then dismiss the issue',
          );
        },
      },
      {
        type: 'execute_restart',
        context: 'core',
        issues: ['boot_fail'],
        auto: false,
        apply: async (s) => {
          const name = s.reference ?? deps.coreContainer;
          try {
            await deps.engine.docker.getContainer(name).restart();
          } catch (err: any) {
            throw new SupervisorError(`Cannot restart container ${name}: ${err?.json?.message ?? err?.message ?? err}`);
          }
        },
      },
      ...systemdUnitFixups(deps.host ?? new LocalHost()),
    ];
  }

  // ---- Area ----

  owns(record: EventRecord): record is RecordOf<ResolutionRecord> {
    return resolutionRecords.owns(record);
  }

  evolve(record: RecordOf<ResolutionRecord>): void {
    const { stream } = record;
    switch (record.type) {
      case 'issue_created':
        this.issueMap.set(stream.slice(ISSUE.length), record.data);
        break;
      case 'issue_dismissed':
      case 'issue_resolved':
        this.issueMap.delete(stream.slice(ISSUE.length));
        break;
      case 'suggestion_created':
        this.suggestionMap.set(stream.slice(SUGGESTION.length), record.data);
        break;
      case 'suggestion_dismissed':
      case 'suggestion_applied':
      case 'suggestion_resolved':
        this.suggestionMap.delete(stream.slice(SUGGESTION.length));
        break;
      case 'check_options_changed':
        this.enabled.set(stream.slice(CHECK.length), record.data.enabled);
        break;
      case 'evaluation_changed':
        this.reasons = { unsupported: [...record.data.unsupported], unhealthy: [...record.data.unhealthy] };
    }
  }

  snapshot(): unknown {
    return { issues: [...this.issueMap.values()], suggestions: [...this.suggestionMap.values()], enabled: Object.fromEntries(this.enabled), reasons: this.reasons };
  }

  restore(data: unknown): void {
    const d = data as { issues: IssueView[]; suggestions: IssueView[]; enabled: Record<string, boolean>; reasons: Reasons };
    for (const i of d.issues) this.issueMap.set(i.uuid, i);
    for (const s of d.suggestions) this.suggestionMap.set(s.uuid, s);
    for (const [k, v] of Object.entries(d.enabled)) this.enabled.set(k, v);
    this.reasons = d.reasons;
  }

  // ---- reading ----

  issues(): IssueView[] {
    return [...this.issueMap.values()].map((i) => ({ ...i }));
  }

  suggestions(): SuggestionView[] {
    return [...this.suggestionMap.values()].map((s) => this.suggestionView(s));
  }

  unsupported(): string[] {
    return [...this.reasons.unsupported];
  }

  unhealthy(): string[] {
    return [...this.reasons.unhealthy];
  }

  checks(): CheckView[] {
    return [...this.checkList].sort((a, b) => (a.slug < b.slug ? -1 : 1)).map((c) => ({ enabled: this.isEnabled(c), slug: c.slug }));
  }

  suggestionsFor(uuid: string): SuggestionView[] {
    const issue = this.issueMap.get(uuid);
    if (!issue) throw issueNotFound(uuid);
    return [...this.suggestionMap.values()].filter((s) => this.fixes(s, issue)).map((s) => this.suggestionView(s));
  }

  checkSlug(slug: string, legacy: boolean): string {
    if (this.checkList.some((c) => c.slug === slug)) return slug;
    if (legacy) {
      const current = Object.entries(LEGACY_CHECK_SLUGS).find(([, old]) => old === slug)?.[0];
      if (current && this.checkList.some((c) => c.slug === current)) return current;
    }
    throw keyedError(404, 'resolution_check_not_found_error', "Check '{check}' does not exist", { check: slug });
  }

  // ---- changing ----

  addCheck(check: Check): void {
    if (!this.checkList.some((c) => c.slug === check.slug)) this.checkList.push(check);
  }

  addFixup(fixup: FixupSpec): void {
    if (!this.fixupOf(fixup)) this.fixups.push(fixup);
  }

  addIssue(issue: IssueSpec, suggestions: SuggestionSpec[] = []): Promise<IssueView> {
    return this.change(async () => {
      const events: NewEvent[] = [];
      const context = this.deps.context();
      let view = [...this.issueMap.values()].find((i) => sameIdentity(i, issue));
      if (!view) {
        view = { type: issue.type, context: issue.context, reference: issue.reference ?? null, reference_extra: issue.reference_extra ?? null, uuid: this.deps.ids.uuidHex() };
        events.push(this.event(ISSUE + view.uuid, { type: 'issue_created', data: view }, context));
      }
      for (const s of suggestions) {
        if (!this.fixupOf(s)) {
          this.deps.warn(`suggestion ${s.type}/${s.context} has no fix here: not offered`);
          continue;
        }
        const known = [...this.suggestionMap.values()].some((x) => sameIdentity(x, s)) || events.some((e) => e.type === 'suggestion_created' && sameIdentity(e.data, s));
        if (known) continue;
        const sv: IssueView = { type: s.type, context: s.context, reference: s.reference ?? null, reference_extra: s.reference_extra ?? null, uuid: this.deps.ids.uuidHex() };
        events.push(this.event(SUGGESTION + sv.uuid, { type: 'suggestion_created', data: sv }, context));
      }
      if (events.length) await this.deps.log.append(events);
      return { ...view };
    });
  }

  /** Resolves the issues matching `match` (all of its given fields), except those `keep` keeps. */
  clearIssues(match: Partial<IssueSpec>, keep: (issue: IssueView) => boolean = () => false): Promise<void> {
    return this.change(async () => {
      const gone = [...this.issueMap.values()].filter(
        (i) =>
          (match.type === undefined || i.type === match.type) &&
          (match.context === undefined || i.context === match.context) &&
          (match.reference === undefined || i.reference === (match.reference ?? null)) &&
          (match.reference_extra === undefined || canonical(i.reference_extra) === canonical(match.reference_extra ?? null)) &&
          !keep(i),
      );
      await this.removeIssues(gone, 'issue_resolved', this.deps.context());
    });
  }

  dismissIssue(uuid: string, context: Context): Promise<void> {
    return this.change(async () => {
      const issue = this.issueMap.get(uuid);
      if (!issue) throw issueNotFound(uuid);
      await this.removeIssues([issue], 'issue_dismissed', context);
    });
  }

  dismissSuggestion(uuid: string, context: Context): Promise<void> {
    return this.change(async () => {
      if (!this.suggestionMap.has(uuid)) throw suggestionNotFound(uuid);
      await this.deps.log.append([this.event(SUGGESTION + uuid, { type: 'suggestion_dismissed', data: {} }, context)]);
    });
  }

  async applySuggestion(uuid: string, context: Context): Promise<void> {
    await this.fix(uuid, context);
    await this.healthcheck();
  }

  /** Runs a suggestion's fix and resolves what it fixed (no healthcheck: a healthcheck calls this). */
  private async fix(uuid: string, context: Context): Promise<void> {
    const suggestion = this.suggestionMap.get(uuid);
    if (!suggestion) throw suggestionNotFound(uuid);
    const fixup = this.fixupOf(suggestion);
    if (!fixup) throw new SupervisorError(`Suggestion ${uuid} has no fix on this system`);
    await fixup.apply(suggestion);
    await this.change(async () => {
      if (!this.suggestionMap.has(uuid)) return;
      const fixed = [...this.issueMap.values()].filter((i) => this.fixes(suggestion, i));
      await this.deps.log.append([this.event(SUGGESTION + uuid, { type: 'suggestion_applied', data: {} }, context)]);
      await this.removeIssues(fixed, 'issue_resolved', context);
    });
  }

  async setCheckEnabled(slug: string, enabled: boolean, context: Context): Promise<void> {
    const current = this.checkSlug(slug, true);
    await this.deps.log.append([this.event(CHECK + current, { type: 'check_options_changed', data: { enabled } }, context)]);
  }

  runCheck(slug: string): Promise<void> {
    const check = this.checkList.find((c) => c.slug === this.checkSlug(slug, true))!;
    return this.run(() => this.runOne(check));
  }

  healthcheck(): Promise<void> {
    return this.run(async () => {
      for (const check of this.checkList) if (this.isEnabled(check)) await this.runOne(check);
      await this.evaluateNow();
      for (const s of this.suggestions()) {
        if (!s.auto) continue;
        await this.fix(s.uuid, this.deps.context()).catch((err) => this.deps.warn(`automatic fix ${s.type}/${s.context} failed: ${(err as Error)?.message ?? err}`));
      }
    });
  }

  evaluate(): Promise<void> {
    return this.evaluateNow();
  }

  /** Runs every check now and then every HEALTHCHECK_INTERVAL_MS (the timer keeps nothing alive). */
  start(): void {
    void this.healthcheck().catch((err) => this.deps.warn(`healthcheck failed: ${(err as Error)?.message ?? err}`));
    this.timer = setInterval(() => {
      void this.healthcheck().catch((err) => this.deps.warn(`healthcheck failed: ${(err as Error)?.message ?? err}`));
    }, HEALTHCHECK_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress (before the log closes). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.runs.catch(() => {});
    await this.changes.catch(() => {});
  }

  // ---- internals ----

  private isEnabled(check: Check): boolean {
    return this.enabled.get(check.slug) ?? true;
  }

  private fixupOf(s: IssueSpec): Fixup | undefined {
    return this.fixups.find((f) => f.type === s.type && f.context === s.context);
  }

  /** Whether the suggestion's fix answers the issue (same target, an issue type it fixes). */
  private fixes(suggestion: IssueSpec, issue: IssueSpec): boolean {
    const fixup = this.fixupOf(suggestion);
    return fixup !== undefined && fixup.issues.includes(issue.type) && sameTarget(suggestion, issue);
  }

  private suggestionView(s: IssueView): SuggestionView {
    return { type: s.type, context: s.context, reference: s.reference, reference_extra: s.reference_extra, uuid: s.uuid, auto: this.fixupOf(s)?.auto ?? false };
  }

  /** Removes issues, then the suggestions no remaining issue needs; one append. */
  private async removeIssues(gone: IssueView[], type: 'issue_resolved' | 'issue_dismissed', context: Context): Promise<void> {
    if (!gone.length) return;
    const goneIds = new Set(gone.map((i) => i.uuid));
    const remaining = [...this.issueMap.values()].filter((i) => !goneIds.has(i.uuid));
    const events = gone.map((i) => this.event(ISSUE + i.uuid, { type, data: {} }, context));
    for (const s of this.suggestionMap.values()) {
      if (!remaining.some((i) => this.fixes(s, i))) events.push(this.event(SUGGESTION + s.uuid, { type: 'suggestion_resolved', data: {} }, context));
    }
    await this.deps.log.append(events);
  }

  private async runOne(check: Check): Promise<void> {
    try {
      await check.run(this.checkDeps, this.tools);
    } catch (err) {
      this.deps.warn(`check ${check.slug} failed: ${(err as Error)?.message ?? err}`);
    }
  }

  private evaluateNow(): Promise<void> {
    return this.change(async () => {
      const next = judge(await gatherFacts(this.deps.engine, this.deps.ignoredConditions(), this.deps.connectivityEnabled?.() ?? true));
      if (canonical(next) === canonical(this.reasons)) return;
      await this.deps.log.append([this.event(EVALUATION, { type: 'evaluation_changed', data: next }, this.deps.context())]);
    });
  }

  private event(stream: string, kind: ResolutionRecord, context: Context): NewEvent {
    return resolutionRecords.make(stream, kind, context, this.deps.clock.now());
  }

  private change<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.changes.then(fn, fn);
    this.changes = next.catch(() => {});
    return next;
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.runs.then(fn, fn);
    this.runs = next.catch(() => {});
    return next;
  }
}

function issueNotFound(uuid: string) {
  return keyedError(404, 'resolution_issue_not_found_error', 'Issue {uuid} does not exist', { uuid });
}

function suggestionNotFound(uuid: string) {
  return keyedError(404, 'resolution_suggestion_not_found_error', 'Suggestion {uuid} does not exist', { uuid });
}
