import type { Context } from '../../../store/types.ts';
import { requireCore, type SupervisorApi, type SupervisorCall } from '../api.ts';
import { anything, refine, required, schema, str, validate } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import type { IngressSessions } from '../../../actors/supervisor/ingress/sessions.ts';
import type { AppsView } from '../../../actors/supervisor/apps/types.ts';

/**
 * Ingress sessions and panels (supervisor-wire §10.2, §4.14). Sessions are the core's to make
 * and check: the core hands one to the browser as the `ingress_session` cookie, and the proxy
 * (gateway/supervisor/ingress-proxy.ts) checks it on every request.
 */

/** The original coerces `user_id` to a string (vol.Coerce(str)). */
const userId = refine(anything, (v) => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new SupervisorError(`expected str @ data['user_id']. Got ${JSON.stringify(v)}`);
});
const SESSION = schema({ user_id: userId });
const VALIDATE_SESSION = schema({ session: required(str) });

/** What the ingress routes use. */
export interface IngressRouteDeps {
  sessions: IngressSessions;
  /** the installed apps, whose panels are listed */
  apps: AppsView;
  context(): Context;
}

/** Registers the ingress sessions' and panels' routes. */
export function registerIngressRoutes(api: SupervisorApi, deps: IngressRouteDeps): void {
  api.post('/ingress/session', async (call) => {
    requireCore(call);
    const body = validate(call.body(), SESSION);
    const session = await deps.sessions.create(body.user_id, deps.context());
    return { session };
  });

  api.post('/ingress/validate_session', async (call) => {
    requireCore(call);
    const body = validate(call.body(), VALIDATE_SESSION);
    const valid = await deps.sessions.validate(body.session!, deps.context());
    if (!valid) throw new SupervisorError('401: Unauthorized', { status: 401, plain: true });
    return {};
  });

  api.get('/ingress/panels', () => ({ panels: panelsOf(deps.apps) }));
}

/** Each installed app with ingress: its panel's title, icon, whether admins only, and whether shown. */
export function panelsOf(apps: AppsView): Record<string, { title: string; icon: string; admin: boolean; enable: boolean }> {
  const panels: Record<string, { title: string; icon: string; admin: boolean; enable: boolean }> = {};
  for (const app of apps.list()) {
    if (!app.config.ingress) continue;
    panels[app.slug] = {
      title: app.config.panel_title ?? app.config.name,
      icon: app.config.panel_icon,
      admin: app.config.panel_admin,
      enable: app.user.ingress_panel,
    };
  }
  return panels;
}
