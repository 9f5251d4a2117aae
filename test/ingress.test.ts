// Ingress through both hops, as a browser uses it: the frontend gets a session over the core's
// WebSocket (`supervisor/api` POST /ingress/session), sets the `ingress_session` cookie and opens
// `/api/hassio_ingress/<token>/` on the core, which passes it to the supervisor's proxy, which
// passes it to the app (a web server started here, with a WebSocket echo).
import t from 'tap';
import WebSocket from 'ws';
import { startTestSupervisor } from './helpers/supervisor.ts';
import { startTestHearth, onboard } from './helpers/hearth.ts';
import { authedClient } from './helpers/ws.ts';
import { sorting } from './helpers/ws-sorting.ts';
import { fakeApps, startUpstream } from './helpers/ingress-apps.ts';
import { newPage, noBrowser } from './helpers/browser.ts';
import { manualClock } from '../actors/clock.ts';
import { freePort } from './helpers/ports.ts';

const TOKEN = 'web_app_ingress_token';
const MINUTE = 60_000;

async function chain(t: { teardown(fn: () => unknown): void }) {
  const upstream = await startUpstream(t);
  const users = new Map<string, { id: string; username: string; name: string }>();
  const clock = manualClock(Date.now());
  const s = await startTestSupervisor(t, { clock, lookupIngressUser: async (id) => users.get(id) });
  s.supervisor.deps.apps = fakeApps([{ slug: 'local_web', ingressToken: TOKEN, target: { host: '127.0.0.1', port: upstream.port }, name: 'Web', panel: { enable: true } }]);
  const core = await s.supervisor.tokens.rotateCore(s.supervisor.deps.context());
  const { base } = await startTestHearth(t, { supervisor: { url: s.base, token: core.token } });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  t.teardown(() => c.ws.close());
  const ask = sorting(c).ask;
  const me = (await ask({ type: 'auth/current_user' })).result;
  // the integrator wires lookupIngressUser to the core's users; here it knows the owner
  users.set(me.id, { id: me.id, username: 'owner', name: me.name });
  const newSession = async () => {
    const answer = await ask({ type: 'supervisor/api', endpoint: '/ingress/session', method: 'post', data: { user_id: me.id } });
    if (!answer.success) throw new Error(`no session: ${JSON.stringify(answer)}`);
    return answer.result.session as string;
  };
  return { upstream, s, base, clock, me, ask, newSession };
}

t.test('without a supervisor the core has no ingress path; a supervisor that does not answer is a 502', async (t) => {
  const { base } = await startTestHearth(t, { supervisor: null });
  t.equal((await fetch(`${base}/api/hassio_ingress/${TOKEN}/`)).status, 404);
  const away = await startTestHearth(t, { supervisor: { url: `http://127.0.0.1:${await freePort()}`, token: 'x'.repeat(112) } });
  const res = await fetch(`${away.base}/api/hassio_ingress/${TOKEN}/page`, { headers: { Cookie: 'ingress_session=abc' } });
  t.equal(res.status, 502);
  t.equal(await res.text(), '502: Bad Gateway');
  t.equal((await fetch(`${away.base}/api/hassio_ingress/${TOKEN}`)).status, 404, 'no path after the token: not ingress');
});

t.test('HTTP and WebSocket through the core: the app sees the ingress path and the user', async (t) => {
  const { upstream, base, me, ask, newSession } = await chain(t);
  const panels = await ask({ type: 'supervisor/api', endpoint: '/ingress/panels', method: 'get' });
  t.same(panels.result, { panels: { local_web: { title: 'Web', icon: 'mdi:puzzle', admin: true, enable: true } } }, 'panels');
  const session = await newSession();
  t.match(session, /^[0-9a-f]{128}$/);

  t.equal((await fetch(`${base}/api/hassio_ingress/${TOKEN}/echo`)).status, 401, 'no cookie: the supervisor refuses');
  const wrong = await fetch(`${base}/api/hassio_ingress/${TOKEN}/echo`, { headers: { Cookie: `ingress_session=${'0'.repeat(128)}` } });
  t.equal(wrong.status, 401, 'a wrong session');
  t.equal(await wrong.text(), '401: Unauthorized');
  t.equal((await fetch(`${base}/api/hassio_ingress/not_a_token/echo`, { headers: { Cookie: `ingress_session=${session}` } })).status, 503);

  const res = await fetch(`${base}/api/hassio_ingress/${TOKEN}/echo/x?q=1`, {
    method: 'POST',
    body: 'payload',
    headers: { Cookie: `ingress_session=${session}`, 'X-Ingress-Path': '/elsewhere', 'X-Hass-Source': 'me', 'X-Remote-User-Id': 'spoofed' },
  });
  t.equal(res.status, 200);
  const seen = await res.json();
  t.equal(seen.url, '/echo/x?q=1');
  t.equal(seen.body, 'payload');
  t.equal(seen.headers['x-ingress-path'], `/api/hassio_ingress/${TOKEN}`, 'the core sets the ingress path (a client one is dropped)');
  t.equal(seen.headers['x-hass-source'], 'core.ingress');
  t.equal(seen.headers['x-forwarded-for'], '127.0.0.1, 127.0.0.1', 'the browser, then the core');
  t.equal(seen.headers['x-forwarded-host'], new URL(base).host);
  t.equal(seen.headers['x-forwarded-proto'], 'http');
  t.equal(seen.headers['x-remote-user-id'], me.id);
  t.equal(seen.headers['x-remote-user-name'], 'owner');
  t.equal(seen.headers['x-remote-user-display-name'], me.name);

  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/hassio_ingress/${TOKEN}/socket`, ['echo'], { headers: { Cookie: `ingress_session=${session}` } });
  t.teardown(() => ws.terminate());
  await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
  t.equal(ws.protocol, 'echo');
  const echoed = new Promise<string>((ok) => ws.once('message', (d) => ok(String(d))));
  ws.send('through two hops');
  t.equal(await echoed, 'through two hops');
  t.equal(upstream.wsSeen.at(-1)!['x-ingress-path'], `/api/hassio_ingress/${TOKEN}`);
  t.equal(upstream.wsSeen.at(-1)!['x-remote-user-name'], 'owner');
  const closed = new Promise<number>((ok) => ws.once('close', (code) => ok(code)));
  ws.send('close:4005');
  t.equal(await closed, 4005, 'the app closing reaches the browser');
});

t.test('a browser opens the app with the session cookie; its WebSocket echo works; an expired session is refused', { skip: noBrowser }, async (t) => {
  const { base, clock, me, newSession } = await chain(t);
  const session = await newSession();
  const page = await newPage(t);
  await page.context().addCookies([{ name: 'ingress_session', value: session, url: `${base}/api/hassio_ingress/` }]);
  const res = await page.goto(`${base}/api/hassio_ingress/${TOKEN}/`);
  t.equal(res?.status(), 200);
  await page.locator('#echo', { hasText: 'echo:' }).waitFor();
  t.equal(await page.locator('#echo').textContent(), 'echo: hello through ingress (echo)', 'the page WebSocket echo works through both hops');
  t.equal(await page.locator('[id="x-remote-user-id"]').textContent(), me.id, 'the app saw the user');
  t.equal(await page.locator('[id="x-remote-user-name"]').textContent(), 'owner');
  t.equal(await page.locator('[id="x-ingress-path"]').textContent(), `/api/hassio_ingress/${TOKEN}`);
  t.same(page.problems, []);

  // a browser with a wrong session gets the refusal, its page never served
  const stranger = await newPage(t);
  await stranger.context().addCookies([{ name: 'ingress_session', value: 'f'.repeat(128), url: `${base}/api/hassio_ingress/` }]);
  const refused = await stranger.goto(`${base}/api/hassio_ingress/${TOKEN}/`);
  t.equal(refused?.status(), 401, 'a wrong session is refused');
  t.equal(await stranger.locator('#echo').count(), 0);

  // each request moved the session's end 15 minutes on (the page and its socket: 30 minutes);
  // a day later it has long ended
  clock.advance(24 * 60 * MINUTE);
  const expired = await page.goto(`${base}/api/hassio_ingress/${TOKEN}/`);
  t.equal(expired?.status(), 401, 'an expired session is refused');
  t.equal(await expired?.text(), '401: Unauthorized');
});
