import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { isIP } from 'node:net';
import { plainError, text, type HttpReply } from '../replies.ts';
import type { HttpRequest } from '../request.ts';
import type { Router } from '../router.ts';
import type { Hassio } from '../../actors/supervisor-client/hassio.ts';
import type { CorePasswords } from '../../actors/auth/admin.ts';
import { SupervisorApiError } from '../../actors/supervisor-client/client.ts';
import { readJsonBody } from './auth.ts';
import type { AppPanels } from '../../actors/supervisor-client/app-panels.ts';
import { PanelInUseError } from '../../actors/frontend/panels.ts';

/**
 * The endpoints only the supervisor calls (the original's hassio views): the auth helper's login
 * check and password reset, the discovery push and the apps' panel push. The login and panel
 * endpoints answer only the supervisor's system user (from the supervisor's address when it is
 * given as one), anyone else a 401, as the original's login check.
 */

export interface HassioRouteDeps {
  hassio: Hassio;
  appPanels?: AppPanels;
  /** the auth helper's login check and password reset */
  auth: CorePasswords;
  /** the supervisor's address when SUPERVISOR names it by IP; requests must come from it */
  supervisorIp?: string;
}

const Login = Type.Object({ username: Type.String(), password: Type.String(), addon: Type.String() });
const Reset = Type.Object({ username: Type.String(), password: Type.String() });
const checkLogin = TypeCompiler.Compile(Login);
const checkReset = TypeCompiler.Compile(Reset);

const empty = (status: number): HttpReply => ({ status, headers: { 'Content-Type': 'application/octet-stream' }, body: '' });
const bare = (ip: string) => (ip.startsWith('::ffff:') ? ip.slice(7) : ip);

/** The supervisor's address from its URL, when the URL names it by IP. */
export function supervisorIpOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    return isIP(host) ? host : undefined;
  } catch {
    return undefined;
  }
}

export function registerHassioRoutes(root: Router, deps: HassioRouteDeps): void {
  const router = root.of('hassio');
  const fromSupervisor = (req: HttpRequest) =>
    deps.hassio.isSupervisor(req.principal?.userId) && (deps.supervisorIp === undefined || bare(req.remoteIp) === bare(deps.supervisorIp));

  router.post('/api/hassio_auth', { access: 'user' }, async (req) => {
    const body = readJsonBody(req, checkLogin);
    if (!body.ok) return body.reply;
    if (!fromSupervisor(req)) return plainError(401);
    return (await deps.auth.checkCoreLogin(body.value.username, body.value.password)) ? empty(200) : plainError(404);
  });

  router.post('/api/hassio_auth/password_reset', { access: 'user' }, async (req) => {
    const body = readJsonBody(req, checkReset);
    if (!body.ok) return body.reply;
    if (!fromSupervisor(req)) return plainError(401);
    return (await deps.auth.resetCorePassword(req.principal!.userId, body.value.username, body.value.password)) ? empty(200) : plainError(404);
  });

  router.post('/api/hassio_push/discovery/:uuid', { access: 'admin' }, async (req) => {
    try {
      await deps.hassio.discoveryPushed(req.params.uuid);
    } catch (err) {
      if (err instanceof SupervisorApiError) return plainError(503);
      throw err;
    }
    return empty(200);
  });

  router.delete('/api/hassio_push/discovery/:uuid', { access: 'admin' }, async (req) => {
    await deps.hassio.discoveryRemoved(req.params.uuid);
    return empty(200);
  });

  const appPanels = deps.appPanels;
  if (!appPanels) return;

  router.post('/api/hassio_push/panel/:slug', { access: 'user' }, async (req) => {
    if (!fromSupervisor(req)) return plainError(401);
    try {
      return (await appPanels.pushed(req.params.slug)) ? empty(200) : empty(400);
    } catch (err) {
      if (err instanceof PanelInUseError) return text(400, err.message);
      throw err;
    }
  });

  router.delete('/api/hassio_push/panel/:slug', { access: 'user' }, async (req) => {
    if (!fromSupervisor(req)) return plainError(401);
    await appPanels.removed(req.params.slug);
    return empty(200);
  });
}
