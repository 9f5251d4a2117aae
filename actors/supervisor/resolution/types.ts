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

export interface Resolution {
  /**
   * Records an issue (the same type, context and reference is one issue, not two) with the
   * suggestions that fix it; resolves to it.
   */
  addIssue(issue: IssueSpec, suggestions?: SuggestionSpec[]): Promise<IssueView>;
  /** Dismisses issues matching the spec (a check that no longer finds its problem). */
  clearIssues(match: Partial<IssueSpec>): Promise<void>;
  issues(): IssueView[];
  /** unsupported and unhealthy reasons as the evaluations last found them */
  unsupported(): string[];
  unhealthy(): string[];
  /** Runs the evaluations again (after a setting they read changed); resolves when recorded. */
  evaluate(): Promise<void>;
}
