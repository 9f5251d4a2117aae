import type { Context } from '../../../store/types.ts';
import type { Check } from './checks.ts';

/**
 * What the rest of the supervisor needs of the resolution center (actors/supervisor/resolution/).
 * Names are the original's enumerations (supervisor-wire §7.1).
 */

export interface IssueSpec {
  type: string;
  context: string;
  reference?: string | null;
  reference_extra?: Record<string, unknown> | null;
}

export interface SuggestionSpec extends IssueSpec {}

export interface IssueView {
  type: string;
  context: string;
  reference: string | null;
  reference_extra: Record<string, unknown> | null;
  uuid: string;
}

/** A suggestion: an issue's five fields plus whether its fix may run on its own. */
export interface SuggestionView extends IssueView {
  auto: boolean;
}

/** A fix another part offers for its own issues (the mounts' execute_reload and execute_remove). */
export interface FixupSpec {
  type: string;
  context: string;
  /** the issue types it fixes (same context, reference and reference_extra) */
  issues: string[];
  auto: boolean;
  apply(suggestion: IssueView): Promise<void>;
}

export interface CheckView {
  enabled: boolean;
  slug: string;
}

export interface Resolution {
  /**
   * Records an issue (the same type, context and reference is one issue, not two) with the
   * suggestions that fix it; resolves to it.
   */
  addIssue(issue: IssueSpec, suggestions?: SuggestionSpec[]): Promise<IssueView>;
  /** Offers a fix; suggestions of its type and context are only made once one is offered. */
  addFixup?(fixup: FixupSpec): void;
  /** A check another part brings (the backups' `backups`); it runs with the others from then on. */
  addCheck?(check: Check): void;
  /** Dismisses issues matching the spec (a check that no longer finds its problem). */
  clearIssues(match: Partial<IssueSpec>): Promise<void>;
  issues(): IssueView[];
  /** unsupported and unhealthy reasons as the evaluations last found them */
  unsupported(): string[];
  unhealthy(): string[];
  /** Runs the evaluations again (after a setting they read changed); resolves when recorded. */
  evaluate(): Promise<void>;
  suggestions(): SuggestionView[];
  checks(): CheckView[];
  /** The suggestions that fix an issue; throws the 404 `resolution_issue_not_found_error`. */
  suggestionsFor(issue: string): SuggestionView[];
  /** A check's current slug (legacy names accepted when `legacy`); throws the 404 `resolution_check_not_found_error`. */
  checkSlug(slug: string, legacy: boolean): string;
  setCheckEnabled(slug: string, enabled: boolean, context: Context): Promise<void>;
  runCheck(slug: string): Promise<void>;
  /** Runs the suggestion's fix, resolves the issues it fixes, then a healthcheck. */
  applySuggestion(uuid: string, context: Context): Promise<void>;
  dismissSuggestion(uuid: string, context: Context): Promise<void>;
  /** Dismisses an issue and the suggestions no other issue needs. */
  dismissIssue(uuid: string, context: Context): Promise<void>;
  /** Every enabled check, the evaluations and the automatic fixes. */
  healthcheck(): Promise<void>;
}
