import type { Context } from '../../../store/types.ts';
import type { AppsView } from '../../../actors/supervisor/apps/types.ts';
import type { Discovery, DiscoveryMessage } from '../../../actors/supervisor/discovery/discovery.ts';
import { requireCore, type SupervisorApi, type SupervisorCall } from '../api.ts';
import { validate, required, schema, str, dict } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { callingApp } from './services.ts';

/**
 * Discovery (supervisor-wire §4.12): apps send messages, the core reads them. Reading is the
 * core's alone (the original's require_home_assistant: anyone else gets the text 401); an app
 * sends only for services its config lists under `discovery`, and removes only its own.
 */

/** A message as a tree shows it: `addon` on v1, `app` on v2. */
function wire(tree: 'v1' | 'v2', m: DiscoveryMessage): Record<string, unknown> {
  return { [tree === 'v1' ? 'addon' : 'app']: m.app, service: m.service, uuid: m.uuid, config: m.config };
}

/** What the discovery routes use. */
export interface DiscoveryRouteDeps {
  discovery: Discovery;
  /** the installed apps: who sends, and what their configs declare */
  apps: AppsView;
  context(): Context;
}

const MESSAGE = schema({ service: required(str), config: required(dict) });

/** Registers the discovery routes. */
export function registerDiscoveryRoutes(api: SupervisorApi, deps: DiscoveryRouteDeps): void {
  const { discovery } = deps;

  api.get('/discovery', (call) => {
    requireCore(call);
    const { discovery: messages, services } = discovery.overview();
    return { discovery: messages.map((m) => wire(call.tree, m)), services };
  });

  api.get('/discovery/:uuid', (call) => {
    requireCore(call);
    return wire(call.tree, discovery.get(call.params.uuid));
  });

  api.post('/discovery', async (call) => {
    const body = validate(call.body(), MESSAGE);
    const app = callingApp(call, deps.apps);
    const sent = await discovery.send({ slug: app?.slug ?? '', discovery: app?.config.discovery ?? [] }, body.service!, body.config!, deps.context());
    return { uuid: sent.uuid };
  });

  api.delete('/discovery/:uuid', async (call) => {
    const app = callingApp(call, deps.apps);
    await discovery.remove(call.params.uuid, app?.slug, deps.context());
  });
}
