import type { Router } from '../router.ts';
import { json, message } from '../replies.ts';
import { parseJson } from '../body.ts';
import { newContext, type CoreDeps } from '../core.ts';

/**
 * The config flow API for the flows a core shows without a user starting them (the supervisor's
 * discovery flows): `GET /api/config/config_entries/flow/<flow_id>` shows the step,
 * `POST` answers it (`{}` confirms: the integration makes its entry, or shows the form again with
 * its errors), `DELETE` dismisses it. Admin only, as the original's.
 */
export function registerConfigFlowRoutes(router: Router, deps: Pick<CoreDeps, 'clock' | 'ids' | 'discoveryFlows'>): void {
  const config = router.of('config');
  const path = '/api/config/config_entries/flow/:flow_id';
  const notFound = () => message(404, 'Invalid flow specified');

  config.get(path, { access: 'admin' }, (req) => {
    const shown = deps.discoveryFlows?.show(req.params.flow_id);
    return shown ? json(200, shown) : notFound();
  });

  config.post(path, { access: 'admin' }, async (req) => {
    const read = req.body.length ? parseJson(req) : { ok: true as const, value: {} };
    if (!read.ok) return message(400, 'Invalid JSON.');
    const context = newContext(deps, req.principal!.userId, req.principal!.refreshTokenId);
    const result = await deps.discoveryFlows?.configure(req.params.flow_id, read.value, context);
    return result ? json(200, result) : notFound();
  });

  config.delete(path, { access: 'admin' }, async (req) => {
    const context = newContext(deps, req.principal!.userId, req.principal!.refreshTokenId);
    return (await deps.discoveryFlows?.dismiss(req.params.flow_id, context)) ? json(200, null) : notFound();
  });
}
