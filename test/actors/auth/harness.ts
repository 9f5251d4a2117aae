// A real auth server for tests: LevelDB log in a temporary directory, the auth area restored
// from it, the auth and onboarding routes on a uWS app listening on 127.0.0.1:0.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import type { EventLog } from '../../../store/types.ts';
import { randomIds, systemClock, type Clock } from '../../../actors/clock.ts';
import { createAuth, type AuthConfig, type CoreAuthService } from '../../../actors/auth/index.ts';
import { Router } from '../../../gateway/router.ts';
import { json } from '../../../gateway/replies.ts';
import { registerAuthRoutes } from '../../../gateway/routes/auth.ts';
import { registerOnboardingRoutes } from '../../../gateway/routes/onboarding.ts';

export const CLIENT_ID = 'http://127.0.0.1/';
export const REDIRECT_URI = 'http://127.0.0.1/?auth_callback=1';
export const OWNER = { name: 'Test Owner', username: 'owner', password: 'Tr0ub4dor&3-plaintext-canary' };

/** Cheap scrypt so tests stay fast; the format and code path are the production ones. */
export const TEST_SCRYPT = { N: 1 << 12, r: 8, p: 1 };

export interface AuthServer {
  base: string;
  dataDir: string;
  log: EventLog;
  auth: CoreAuthService;
  /** records the restore replayed */
  replayed: number;
  /** stops listening and closes the log */
  close(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'hearth-auth-'));
}

/** Restores an area the way the composition root does: snapshot, then the log tail it owns. */
async function restoreAuth(log: EventLog, auth: CoreAuthService): Promise<number> {
  let from = 0;
  const snapshot = await log.loadSnapshot(auth.area.name);
  if (snapshot && snapshot.version === auth.area.snapshotVersion) {
    auth.area.restore(snapshot.data);
    from = snapshot.seq;
  }
  let n = 0;
  for await (const record of log.read({ gt: from })) {
    if (!auth.area.owns(record)) continue;
    auth.area.evolve(record);
    n++;
  }
  return n;
}

/** Starts a server on `dataDir` (a fresh one by default); closed at teardown unless closed before. */
export async function startAuthServer(
  t: Teardown,
  options: { dataDir?: string; clock?: Clock; config?: AuthConfig } = {},
): Promise<AuthServer> {
  const dataDir = options.dataDir ?? (await tempDir());
  const log = await openEventLog({ path: join(dataDir, 'log') });
  const auth = createAuth({ log, clock: options.clock ?? systemClock(), ids: randomIds(), config: { scrypt: TEST_SCRYPT, ...options.config } });
  const replayed = await restoreAuth(log, auth);

  const router = new Router({ authenticator: auth });
  registerAuthRoutes(router, { auth });
  registerOnboardingRoutes(router, { auth });
  // stand-ins for the protected REST routes of other areas
  router.get('/api/test/whoami', { access: 'user' }, (req) => json(200, req.principal));
  router.get('/api/test/admin', { access: 'admin' }, () => json(200, { admin: true }));

  const uWS = (await import('@trufflesuite/uws-js-unofficial')).default;
  const app = uWS.App();
  router.mount(app);
  const socket = await new Promise<any>((ok, fail) => app.listen('127.0.0.1', 0, (s) => (s ? ok(s) : fail(new Error('cannot listen')))));
  const port = uWS.us_socket_local_port(socket);

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      uWS.us_listen_socket_close(socket);
      (app as { close?: () => void }).close?.();
      await log.close();
    })());
  t.teardown(close);
  return { base: `http://127.0.0.1:${port}`, dataDir, log, auth, replayed, close };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: parsed };
}

/** A JSON request, with a bearer token when given. */
export async function call(base: string, method: string, path: string, body?: unknown, token?: string): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  return reply(await fetch(base + path, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) }));
}

/** A form-encoded POST (the token endpoint's only accepted format). */
export async function postForm(base: string, path: string, fields: Record<string, string>): Promise<Reply> {
  return reply(
    await fetch(base + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

/** A GET with an exact Authorization header value. */
export async function getWith(base: string, path: string, authorization?: string): Promise<Reply> {
  return reply(await fetch(base + path, { headers: authorization === undefined ? {} : { Authorization: authorization } }));
}

/** Onboards the owner and returns the auth code. */
export async function onboardOwner(base: string, user = OWNER): Promise<string> {
  const res = await call(base, 'POST', '/api/onboarding/users', { client_id: CLIENT_ID, language: 'en', ...user });
  if (res.status !== 200) throw new Error(`onboarding failed: ${res.status} ${res.text}`);
  return res.json.auth_code;
}

/** Exchanges a code for tokens (asserts nothing). */
export function exchange(base: string, code: string, clientId = CLIENT_ID): Promise<Reply> {
  return postForm(base, '/auth/token', { grant_type: 'authorization_code', code, client_id: clientId });
}

/** Runs the whole login flow with a username and password; the final step's reply. */
export async function login(base: string, username: string, password: string, clientId = CLIENT_ID): Promise<Reply> {
  const start = await call(base, 'POST', '/auth/login_flow', { client_id: clientId, handler: ['core', null], redirect_uri: REDIRECT_URI });
  if (start.status !== 200) throw new Error(`login flow start failed: ${start.status} ${start.text}`);
  return call(base, 'POST', `/auth/login_flow/${start.json.flow_id}`, { client_id: clientId, username, password });
}
