import type { Router } from '../router.ts';
import type { HttpRequest } from '../request.ts';
import { json, message, type HttpReply } from '../replies.ts';
import { parseJson } from '../body.ts';
import { newContext, type CoreDeps } from '../core.ts';
import { registrationInputOf, type Mobile, type RegistrationEntry } from '../../actors/mobile/index.ts';
import { configEntryJson } from '../../actors/config-entry-json.ts';

/**
 * The companion apps' REST surface (core-wire §6.1, §6.2): registration, the webhook channel,
 * and the mobile_app config entries (list, delete) as the original's config-entries API has them.
 */
export function registerMobileAppRoutes(
  router: Router,
  deps: Pick<CoreDeps, 'clock' | 'ids'> & { mobile: Mobile; /** config entries of other integrations, listed beside the apps' */ otherEntries?: () => Array<Record<string, unknown>> },
): void {
  const { mobile } = deps;
  // the original serves these through three integrations, each of them then loaded
  const mobileApp = router.of('mobile_app');
  const webhook = router.of('webhook');
  const config = router.of('config');

  mobileApp.post('/api/mobile_app/registrations', { access: 'user' }, async (req) => {
    const read = parseJson(req);
    if (!read.ok) return message(400, read.problem === 'depth' ? `Invalid JSON: ${read.message}.` : 'Invalid JSON.');
    const checked = registrationInputOf(read.value ?? {});
    if (!checked.ok) return message(400, `Message format incorrect: ${checked.message}`);
    const user = req.principal!.userId;
    const entry = await mobile.registrations.create(checked.input, user, newContext(deps, user, req.principal!.refreshTokenId));
    const r = entry.registration;
    return json(201, { cloudhook_url: r.cloudhook_url, remote_ui_url: null, secret: r.secret, webhook_id: r.webhook_id });
  });

  const hook = async (req: HttpRequest): Promise<HttpReply> => {
    const answer = await mobile.actions.handle(req.params.webhook_id, req.body);
    if (answer.body === null) return { status: answer.status, body: '' };
    return json(answer.status, answer.body);
  };
  const open = { access: 'none' as const, corsAnyOrigin: true };
  webhook.post('/api/webhook/:webhook_id', open, hook);
  webhook.add('PUT', '/api/webhook/:webhook_id', open, hook);
  // the original allows only POST and PUT for these webhooks; HEAD tells a client the URL is served
  webhook.get('/api/webhook/:webhook_id', open, () => ({ status: 405, body: '' }));
  webhook.add('HEAD', '/api/webhook/:webhook_id', open, () => ({ status: 200, body: '' }));

  config.get('/api/config/config_entries/entry', { access: 'admin' }, (req) => {
    const domain = req.query.get('domain');
    const all = [...mobile.registrations.entries().map(entryJson), ...(deps.otherEntries?.() ?? [])];
    return json(200, domain === null ? all : all.filter((e) => e.domain === domain));
  });

  config.delete('/api/config/config_entries/entry/:entry_id', { access: 'admin' }, async (req) => {
    const entry = mobile.registrations.entryOf(req.params.entry_id);
    if (!entry) return message(404, 'Invalid entry specified');
    await mobile.delete(entry.registration.webhook_id, newContext(deps, req.principal!.userId, req.principal!.refreshTokenId));
    return json(200, { require_restart: false });
  });
}

/** The original's config entry JSON for a registration. */
function entryJson(e: RegistrationEntry): Record<string, unknown> {
  return configEntryJson({
    entry_id: e.entry_id,
    domain: 'mobile_app',
    title: e.registration.device_name,
    source: 'registration',
    created_at: e.created_at,
    modified_at: e.modified_at,
    state: 'loaded',
    supports_options: false,
    supports_remove_device: false,
    supports_reconfigure: false,
  });
}
