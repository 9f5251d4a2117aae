import { requireCore, type SupervisorApi, type SupervisorCall } from '../api.ts';
import type { SupervisorDeps } from '../deps.ts';
import { validate, required, schema, str, dict } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import type { DiscoveryMessage } from '../../../actors/supervisor/discovery/discovery.ts';
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


const MESSAGE = schema({ service: required(str), config: required(dict) });

export function registerDiscoveryRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  const discovery = () => {
    if (!deps.discovery) throw new SupervisorError('Discovery is not available');
    return deps.discovery;
  };

  api.get('/discovery', (call) => {
    requireCore(call);
    const { discovery: messages, services } = discovery().overview();
    return { discovery: messages.map((m) => wire(call.tree, m)), services };
  });

  api.get('/discovery/:uuid', (call) => {
    requireCore(call);
    return wire(call.tree, discovery().get(call.params.uuid));
  });

  api.post('/discovery', async (call) => {
    const body = validate(call.body(), MESSAGE);
    const app = callingApp(call, deps);
    const sent = await discovery().send({ slug: app?.slug ?? '', discovery: app?.config.discovery ?? [] }, body.service!, body.config!, deps.context());
    return { uuid: sent.uuid };
  });

  api.delete('/discovery/:uuid', async (call) => {
    const app = callingApp(call, deps);
    await discovery().remove(call.params.uuid, app?.slug, deps.context());
  });
}
