import type { SupervisorApi } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Settings } from '../../../actors/supervisor/settings.ts';
import { validate, boolean, schema } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';

/**
 * Security settings (supervisor-wire §4.10): whether app options are checked against known leaked
 * passwords (`pwned`) and whether that check is enforced (`force_security`). Settings section
 * `security`.
 */

/** The security section as it is before anything is set. */
export const SECURITY_DEFAULTS = { pwned: true, force_security: false };

const OPTIONS = schema({ pwned: boolean, force_security: boolean });

/** What the security routes use. */
export interface SecurityRouteDeps {
  settings: Settings;
  context(): Context;
}

/** Registers the security routes. */
export function registerSecurityRoutes(api: SupervisorApi, deps: SecurityRouteDeps): void {
  const section = () => deps.settings.section('security', SECURITY_DEFAULTS);

  api.get('/security/info', () => {
    const s = section().get();
    return { pwned: s.pwned, force_security: s.force_security };
  });

  api.post('/security/options', async (call) => {
    const body = validate(call.body(), OPTIONS);
    await section().set(body, deps.context());
  });

  api.post('/security/integrity', () => {
    throw new SupervisorError('Integrity check feature has been removed.', { status: 410 });
  });
}
