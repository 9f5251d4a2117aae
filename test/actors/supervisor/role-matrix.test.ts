// Every route of the supervisor's API on both trees, called with every role's token, the core's
// token, the operator's, and none: allowed calls get past the middleware (the handler answers,
// whatever it answers), refused ones get the original's text 403 (401 without a token). The
// expectation is written from the contract's role column, not from the code that decides.
import t from 'tap';
import { startSupervisor, type Supervisor } from '../../../bin/supervisor-instance.ts';
import { supervisorDataDir } from '../../helpers/supervisor.ts';
import { ROLES, type Role } from '../../../actors/supervisor/access.ts';
import { inertHost } from '../../helpers/host.ts';

type Who = Role | 'core-container' | 'operator';

/** Paths the middleware lets through without a token (supervisor-wire §2.3 no_security_check). */
function openToAnyone(tree: 'v1' | 'v2', fullPath: string): boolean {
  const path = tree === 'v2' ? fullPath.slice(3) : fullPath;
  if (tree === 'v1') return path === '/supervisor/ping' || /^\/(?:store\/)?addons\/[^/]+\/(?:icon|logo)$/.test(path);
  return /^\/store\/apps\/[^/]+\/(?:icon|logo)$/.test(path);
}

/** Who may call `method path` on `tree`, per supervisor-api.md §4 and §5 (and §9.4). */
function allowed(tree: 'v1' | 'v2', method: string, fullPath: string): Set<Who> {
  const path = tree === 'v2' ? fullPath.slice(3) : fullPath;
  const all = new Set<Who>([...ROLES, 'core-container', 'operator']);
  const atLeast = (...roles: Who[]) => new Set<Who>([...roles, 'admin', 'core-container', 'operator']);
  if (path === '/info') return all; // any caller (token-bypass path)
  if (openToAnyone(tree, fullPath)) return all; // the store's icons and logos need no token
  if (/^\/[^/]+(?:\/.+)?\/info$/.test(path) && method === 'GET') return all; // the info-path rule
  if (path === '/supervisor/ping') return tree === 'v1' ? all : atLeast('manager');
  const apps = tree === 'v1' ? 'addons' : 'apps';
  if (new RegExp(`^/${apps}/[^/]+/sys_options$`).test(path)) return new Set<Who>(['core-container']); // core only
  // the calling app's own routes are token-bypass paths (not its security, not its update)
  if (new RegExp(`^/${apps}/self/(?:(?!security|update)[^/]+|options/config)$`).test(path)) return all;
  if (new RegExp(`^/${apps}/[^/]+/security$`).test(path)) return atLeast();
  if (path.startsWith('/core/') || path.startsWith('/homeassistant/')) return atLeast('core', 'manager');
  if (path.startsWith('/backups')) return atLeast('backup', 'manager');
  if (path.startsWith('/mounts')) return atLeast('manager'); // §4.6, every mount route
  if (path === '/reload_updates') return tree === 'v1' ? atLeast() : atLeast('manager');
  if (path.startsWith('/os/datadisk/wipe') || path === '/auth/reset' || path === '/auth/list') return atLeast();
  // no role pattern names the ingress session routes (the seed gives /ingress/panels to manager)
  if (path === '/ingress/session' || path === '/ingress/validate_session') return atLeast();
  return atLeast('manager');
}

/**
 * Token-bypass paths whose handler then judges the caller (supervisor-api.md §5.3, supervisor-wire
 * §2.4): the middleware lets every token through, the handler answers. For each caller, what the
 * handler answers when it refuses (here: discovery reads are the core's alone, text 401; /auth
 * only for an app with auth_api, which no matrix token is, JSON 403); callers not named pass
 * (their answer is neither 401 nor 403: the list, an unknown service's or message's 404, a
 * body's 400). Undefined for paths the role column alone decides.
 */
function handlerRule(tree: 'v1' | 'v2', method: string, fullPath: string): ((who: Who) => { status: number; body: string } | 'pass' | undefined) | undefined {
  const path = tree === 'v2' ? fullPath.slice(3) : fullPath;
  // an app's options as the app reads them: only through `self` (callers the role column refuses get its 403 first)
  if (new RegExp(`^/${tree === 'v1' ? 'addons' : 'apps'}/(?!self/)[^/]+/options/config$`).test(path)) {
    return (who) => (allowed(tree, method, fullPath).has(who) ? { status: 403, body: JSON.stringify({ result: 'error', message: 'This can be only read by the app itself!' }) } : undefined);
  }
  if (/^\/services(?:\/[^/]+)?$/.test(path)) return () => 'pass';
  if (/^\/discovery(?:\/[^/]+)?$/.test(path)) {
    if (method !== 'GET') return () => 'pass';
    return (who) => (who === 'core-container' ? 'pass' : { status: 401, body: '401: Unauthorized' });
  }
  // the core's alone (require_home_assistant), after the middleware's role check
  if (path === '/ingress/session' || path === '/ingress/validate_session') {
    const past = allowed(tree, method, fullPath);
    return (who) => (who === 'core-container' ? 'pass' : past.has(who) ? { status: 401, body: '401: Unauthorized' } : { status: 403, body: '403: Forbidden' });
  }
  if (path === '/auth') return () => ({ status: 403, body: JSON.stringify({ result: 'error', message: "Can't use Home Assistant auth!" }) });
  return undefined;
}

/** A concrete path for a pattern: parameters filled with names no route knows. */
function concrete(pattern: string): string {
  return pattern.replace(/:bootid/g, '0').replace(/:(\w+)/g, 'matrix_x');
}

t.test('role matrix over every route on both trees', async (t) => {
  const dataDir = await supervisorDataDir();
  // turn the /v2 tree on, then start again: the original serves it only when the flag was on at start
  const first = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, dockerSocket: '/nonexistent/docker.sock', coreContainer: 'matrix_core_absent' });
  await first.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true, supervisor_websocket_v2_api: false } }, { id: 'x', parent_id: null, user_id: null });
  await first.stop();
  // POST /host/reboot is called with every token: the commands that would change this machine never run
  let s: Supervisor = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, dockerSocket: '/nonexistent/docker.sock', coreContainer: 'matrix_core_absent', hostSystem: inertHost() });
  const port = s.port;
  t.teardown(() => s.stop());
  const ctx = { id: 'x', parent_id: null, user_id: null };
  const tokens = new Map<Who, string>();
  for (const role of ROLES) tokens.set(role, (await s.tokens.issue({ name: `matrix ${role}`, kind: 'app', role }, ctx)).token);
  tokens.set('core-container', (await s.tokens.rotateCore(ctx)).token);
  tokens.set('operator', s.adminToken);

  const table = s.api.table();
  t.ok(table.some((e) => e.tree === 'v2'), 'the /v2 tree is served');
  // §4.7: every plugin route is in the table on both trees (the info-path and manager rules cover them)
  const pluginRoutes = ['GET /dns/info', 'GET /dns/stats', 'POST /dns/update', 'POST /dns/options', 'POST /dns/restart', 'POST /dns/reset', 'GET /dns/logs', 'GET /audio/info', 'GET /audio/stats', 'POST /audio/update', 'POST /audio/restart', 'POST /audio/reload', 'POST /audio/profile', 'POST /audio/volume/:source', 'POST /audio/volume/:source/application', 'POST /audio/mute/:source', 'POST /audio/mute/:source/application', 'POST /audio/default/:source', 'GET /audio/logs', 'GET /cli/info', 'GET /cli/stats', 'POST /cli/update', 'GET /observer/info', 'GET /observer/stats', 'POST /observer/update', 'GET /multicast/info', 'GET /multicast/stats', 'POST /multicast/update', 'POST /multicast/restart', 'GET /multicast/logs'];
  for (const tree of ['v1', 'v2'] as const) {
    const served = new Set(table.filter((e) => e.tree === tree).map((e) => `${e.method} ${tree === 'v2' ? e.path.slice(3) : e.path}`));
    t.same(pluginRoutes.filter((r) => !served.has(r)), [], `every plugin route on ${tree}`);
  }
  const base = `http://127.0.0.1:${port}`;
  const call = async (method: string, path: string, token?: string) => {
    const ctrl = new AbortController();
    const res = await fetch(base + path, { method, headers: token ? { Authorization: `Bearer ${token}` } : {}, body: method === 'GET' || method === 'DELETE' ? undefined : '{}', signal: ctrl.signal });
    // a log that follows would stream forever: the status and headers are what is checked
    const body = res.headers.get('x-accel-buffering') ? '' : await res.text();
    ctrl.abort();
    return { status: res.status, body };
  };
  const waitForApi = async () => {
    for (let i = 0; i < 200; i++) {
      try {
        if ((await fetch(`${base}/supervisor/ping`)).status === 200) return;
      } catch {}
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  let checked = 0;
  // routes of one app are also called as `self` (the calling app's own paths have rules of their own)
  const calls = table.flatMap((entry) => [{ entry, path: concrete(entry.path) }, ...(entry.path.includes('/:app') ? [{ entry, path: concrete(entry.path.replace('/:app', '/self')) }] : [])]);
  for (const { entry, path } of calls) {
    const expected = allowed(entry.tree, entry.method, path);
    const rule = handlerRule(entry.tree, entry.method, path);
    for (const who of [...ROLES, 'core-container', 'operator'] as Who[]) {
      const { status, body } = await call(entry.method, path, tokens.get(who));
      const byHandler = rule?.(who);
      if (byHandler === 'pass') {
        if (status === 401 || status === 403) t.fail(`${who} ${entry.method} ${path}: expected past the middleware and the handler's rule, got ${status} ${body.slice(0, 80)}`);
      } else if (byHandler) {
        if (status !== byHandler.status || body !== byHandler.body) t.fail(`${who} ${entry.method} ${path}: expected the handler's ${byHandler.status} ${byHandler.body}, got ${status} ${body.slice(0, 80)}`);
      } else if (expected.has(who)) {
        if (status === 401 || status === 403) t.fail(`${who} ${entry.method} ${path}: expected allowed, got ${status} ${body.slice(0, 80)}`);
      } else if (status !== 403 || body !== '403: Forbidden') t.fail(`${who} ${entry.method} ${path}: expected text 403, got ${status} ${body.slice(0, 80)}`);
      checked++;
      // the soft restart takes the API down for a moment
      if (path.endsWith('/supervisor/restart') && expected.has(who)) await waitForApi();
    }
    const anonymous = await call(entry.method, path);
    const open = openToAnyone(entry.tree, path);
    // an icon or logo of an app no store knows: the handler's 404
    if (open) t.equal(anonymous.status, path.endsWith('/supervisor/ping') ? 200 : 404, `${path} needs no token`);
    else if (anonymous.status !== 401 || anonymous.body !== '401: Unauthorized') t.fail(`no token ${entry.method} ${path}: expected text 401, got ${anonymous.status}`);
  }
  t.ok(checked >= table.length * 7, `${table.length} routes × 7 callers checked`);
});

// The ingress proxy is no API route (the table above does not hold it): no token opens it, only
// the `ingress_session` cookie, so every caller without a session gets the proxy's text 401.
t.test('the ingress proxy answers every caller without a session 401, on both trees', async (t) => {
  const dataDir = await supervisorDataDir();
  const first = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, dockerSocket: '/nonexistent/docker.sock', coreContainer: 'matrix_core_absent' });
  await first.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true } }, { id: 'x', parent_id: null, user_id: null });
  await first.stop();
  const s = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, dockerSocket: '/nonexistent/docker.sock', coreContainer: 'matrix_core_absent' });
  t.teardown(() => s.stop());
  const ctx = { id: 'x', parent_id: null, user_id: null };
  const tokens: (string | undefined)[] = [undefined, s.adminToken, (await s.tokens.rotateCore(ctx)).token];
  for (const role of ROLES) tokens.push((await s.tokens.issue({ name: `proxy ${role}`, kind: 'app', role }, ctx)).token);
  for (const prefix of ['', '/v2']) {
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      for (const token of tokens) {
        const res = await fetch(`http://127.0.0.1:${s.port}${prefix}/ingress/matrix_token/some/page`, { method, headers: token ? { Authorization: `Bearer ${token}` } : {} });
        const body = await res.text();
        if (res.status !== 401 || body !== '401: Unauthorized') t.fail(`${method} ${prefix}/ingress/... with ${token ? 'a token' : 'none'}: ${res.status} ${body.slice(0, 60)}`);
      }
    }
  }
  t.pass('every caller refused without a session');
});
