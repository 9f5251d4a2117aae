import type { IssueSpec, IssueView, Resolution, SuggestionSpec } from '../../actors/supervisor/resolution/types.ts';

/** A resolution center standing in until the real one is built: it keeps what it is given. */
export function fakeResolution(unsupported: string[] = []): Resolution & { added: { issue: IssueSpec; suggestions: SuggestionSpec[] }[] } {
  const added: { issue: IssueSpec; suggestions: SuggestionSpec[] }[] = [];
  return {
    added,
    async addIssue(issue, suggestions = []) {
      added.push({ issue, suggestions });
      return { type: issue.type, context: issue.context, reference: issue.reference ?? null, reference_extra: issue.reference_extra ?? null, uuid: String(added.length) } as IssueView;
    },
    async clearIssues() {},
    issues: () => [],
    unsupported: () => unsupported,
    unhealthy: () => [],
  };
}
