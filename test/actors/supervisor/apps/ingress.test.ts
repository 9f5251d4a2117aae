// The real echo app behind the supervisor's ingress proxy: installed and started on the engine,
// its page and its WebSocket echo reached at /ingress/<its ingress token>/ with a session.
import t from 'tap';
import WebSocket from 'ws';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix } from '../../../helpers/apps.ts';

const ECHO = 'core_hearth_echo';
const USER = { id: 'u1', username: 'ada', name: 'Ada Lovelace' };

t.test('the echo app through ingress: its page and its WebSocket echo', async (t) => {
  const prefix = appPrefix(t, 'ingress');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, bootApps: false, lookupIngressUser: async (id) => (id === USER.id ? USER : undefined) });
  t.equal((await s.json('POST', `/store/addons/${ECHO}/install`)).status, 200);
  const token = s.supervisor.deps.apps!.get(ECHO)!.user.ingress_token;
  t.match(token, /^[A-Za-z0-9_-]{43}$/);
  const core = (await s.supervisor.tokens.rotateCore(s.supervisor.deps.context())).token;
  const session = (await s.json('POST', '/ingress/session', { token: core, body: { user_id: USER.id } })).body.data.session as string;
  const cookie = { Cookie: `ingress_session=${session}` };

  t.equal((await fetch(`${s.base}/ingress/${token}/`, { headers: cookie })).status, 502, 'not running: the proxy has nowhere to go');
  t.equal((await s.json('POST', `/addons/${ECHO}/start`)).status, 200);
  t.match(await s.supervisor.deps.apps!.ingressTarget(ECHO), { host: /^\d+\.\d+\.\d+\.\d+$/, port: 8099 });

  const page = await fetch(`${s.base}/ingress/${token}/`, { headers: cookie });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(await page.text(), /<html/i, 'the app\'s page');
  t.equal((await fetch(`${s.base}/ingress/${token}/`)).status, 401, 'no session');

  const ws = new WebSocket(`ws://127.0.0.1:${s.supervisor.port}/ingress/${token}/ws`, { headers: cookie });
  const echoed = await new Promise<string>((ok, fail) => {
    ws.once('open', () => ws.send('hello through ingress'));
    ws.once('message', (data) => ok(data.toString()));
    ws.once('error', fail);
    setTimeout(() => fail(new Error('no echo in time')), 20_000).unref();
  });
  ws.close();
  t.equal(echoed, 'hello through ingress', 'echoed by the app');
  t.equal((await s.json('POST', `/addons/${ECHO}/uninstall`)).status, 200);
});
