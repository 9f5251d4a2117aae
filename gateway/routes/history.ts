import type { HttpRequest } from '../request.ts';
import type { Router } from '../router.ts';
import { json, message } from '../replies.ts';
import type { ReadDeps } from '../core.ts';
import { periodRequest, type RequestContext } from '../../actors/history/request.ts';
import { readableEntities } from '../../streams/readable.ts';
import type { Principal } from '../../actors/auth/types.ts';

const everything = () => true;

/** What a history request of `principal` is checked against (REST and WebSocket alike). */
export function historyContext(deps: ReadDeps, principal: Principal): RequestContext {
  return {
    now: deps.clock.now(),
    timeZone: deps.coreConfig.timeZone(),
    exists: (id) => deps.entities.has(id),
    canRead: readableEntities(principal.permissions, everything),
  };
}

/** GET /api/history/period[/{timestamp}] (core-api §4.3 rule 6): any user; unreadable entities are left out. */
export function registerHistoryRoutes(root: Router, deps: ReadDeps): void {
  const router = root.of('history');
  const user = { access: 'user' as const };
  const period = async (timestamp: string | undefined, req: HttpRequest) => {
    const checked = periodRequest(timestamp, req.query, historyContext(deps, req.principal!));
    if (!checked.ok) return message(400, checked.message);
    if (!checked.query) return json(200, '[]');
    return json(200, await deps.history.periodJson(checked.query));
  };
  router.get('/api/history/period', user, (req) => period(undefined, req));
  router.get('/api/history/period/:timestamp', user, (req) => period(req.params.timestamp, req));
}
