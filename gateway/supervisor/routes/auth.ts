import type { SupervisorApi, SupervisorCall } from '../api.ts';
import { raw, envelopeError } from '../api.ts';
import type { AuthHelper } from '../../../actors/supervisor/auth/auth-helper.ts';
import type { AppsView } from '../../../actors/supervisor/apps/types.ts';
import { plainError } from '../../replies.ts';
import { parseFormBody } from '../../multipart.ts';
import { validate, required, schema, str } from '../../../actors/supervisor/validate.ts';
import { SupervisorError, keyedError } from '../../../actors/supervisor/errors.ts';
import { callingApp } from './services.ts';

/**
 * The auth helper (supervisor-wire §4.13): an app with `auth_api` checks a user's credentials,
 * given as HTTP Basic, a JSON body or a form; `/auth/reset`, `/auth/cache` and `/auth/list`
 * administer the core's users and the helper's cache.
 */

const REALM = { 'WWW-Authenticate': 'Basic realm="Home Assistant Authentication"' };

/** The media type without parameters, lower-cased. */
const mediaType = (value: string | undefined) => (value ?? '').split(';')[0].trim().toLowerCase();

function basicCredentials(header: string): { username: string; password: string } | undefined {
  const [scheme, encoded] = header.trim().split(/\s+/, 2);
  if (scheme?.toLowerCase() !== 'basic' || !encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('latin1');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const CREDENTIALS = schema({ username: required(str), password: required(str) });

/** What the auth helper's routes use. */
export interface AuthRouteDeps {
  helper: AuthHelper;
  /** the installed apps: who calls, and whether its config has `auth_api` */
  apps: AppsView;
}

/** Registers the auth helper's routes. */
export function registerAuthRoutes(api: SupervisorApi, deps: AuthRouteDeps): void {
  const check = async (call: SupervisorCall) => {
    const app = callingApp(call, deps.apps);
    if (!app || !app.config.auth_api) throw new SupervisorError("Can't use Home Assistant auth!", { status: 403 });
    const headers = call.req.headers;
    if (headers.authorization !== undefined) {
      const given = basicCredentials(headers.authorization);
      if (!given || !(await deps.helper.check(app.slug, given.username, given.password))) return raw(plainError(401, REALM));
      return {};
    }
    const type = mediaType(headers['content-type']);
    let fields: Record<string, unknown>;
    if (type === 'application/json') fields = call.body();
    else if (type === 'application/x-www-form-urlencoded') fields = Object.fromEntries(await parseFormBody(call.req));
    else return raw(plainError(401, REALM));
    const username = fields.username || fields.user;
    const password = fields.password;
    if (typeof username !== 'string' || typeof password !== 'string') {
      const reply = envelopeError(keyedError(401, 'auth_invalid_non_string_value_error', 'Username and password must be strings'), call.tree);
      return raw({ ...reply, headers: { ...reply.headers, ...REALM } });
    }
    if (!(await deps.helper.check(app.slug, username, password))) return raw(plainError(401));
    return {};
  };

  api.get('/auth', check);
  api.post('/auth', check);

  api.post('/auth/reset', async (call) => {
    const body = validate(call.body(), CREDENTIALS);
    await deps.helper.changePassword(body.username!, body.password!);
  });

  api.delete('/auth/cache', async () => {
    await deps.helper.reset();
  });

  api.get('/auth/list', async () => ({ users: await deps.helper.list() }));
}
