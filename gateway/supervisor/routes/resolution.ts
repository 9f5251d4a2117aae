import type { SupervisorApi } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import { bool, schema, validate } from '../../../actors/supervisor/validate.ts';
import { LEGACY_CHECK_SLUGS, LEGACY_ISSUE_TYPES } from '../../../actors/supervisor/resolution/checks.ts';
import type { Resolution } from '../../../actors/supervisor/resolution/types.ts';

/** The resolution center's routes (supervisor-wire §4.5, §7). */

const optionsShape = schema({ enabled: bool });

/** What the resolution center's routes use. */
export interface ResolutionRouteDeps {
  resolution: Resolution;
  context(): Context;
}

/** Registers the resolution center's routes. */
export function registerResolutionRoutes(api: SupervisorApi, deps: ResolutionRouteDeps): void {
  const center = deps.resolution;

  api.get('/resolution/info', (call) => {
    // v1 still shows the original's old `addon` names of issue types and check slugs (§7.6)
    const legacy = call.tree === 'v1';
    const type = (t: string) => (legacy ? (LEGACY_ISSUE_TYPES[t] ?? t) : t);
    return {
      unsupported: center.unsupported(),
      unhealthy: center.unhealthy(),
      suggestions: center.suggestions(),
      issues: center.issues().map((i) => ({ ...i, type: type(i.type) })),
      checks: center.checks().map((c) => ({ enabled: c.enabled, slug: legacy ? (LEGACY_CHECK_SLUGS[c.slug] ?? c.slug) : c.slug })),
    };
  });

  api.post('/resolution/check/:check/options', async (call) => {
    const slug = center.checkSlug(call.params.check, call.tree === 'v1');
    const body = validate(call.body(), optionsShape);
    if (body.enabled !== undefined) await center.setCheckEnabled(slug, body.enabled, deps.context());
    return {};
  });

  api.post('/resolution/check/:check/run', async (call) => {
    await center.runCheck(center.checkSlug(call.params.check, call.tree === 'v1'));
    return {};
  });

  api.post('/resolution/suggestion/:suggestion', async (call) => {
    await center.applySuggestion(call.params.suggestion, deps.context());
    return {};
  });

  api.delete('/resolution/suggestion/:suggestion', async (call) => {
    await center.dismissSuggestion(call.params.suggestion, deps.context());
    return {};
  });

  api.delete('/resolution/issue/:issue', async (call) => {
    await center.dismissIssue(call.params.issue, deps.context());
    return {};
  });

  api.get('/resolution/issue/:issue/suggestions', (call) => ({ suggestions: center.suggestionsFor(call.params.issue) }));

  api.post('/resolution/healthcheck', async () => {
    await center.healthcheck();
    return {};
  });
}
