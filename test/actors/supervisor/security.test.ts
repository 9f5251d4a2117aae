import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../helpers/supervisor.ts';

t.test('security options: defaults, toggles kept across a restart, bad values refused', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  t.same(await s1.json('GET', '/security/info'), { status: 200, body: { result: 'ok', data: { pwned: true, force_security: false } } });
  t.same(await s1.json('POST', '/security/options', { body: { force_security: true } }), { status: 200, body: { result: 'ok', data: {} } });
  t.same((await s1.json('GET', '/security/info')).body.data, { pwned: true, force_security: true });
  t.equal((await s1.json('POST', '/security/options', { body: { pwned: false } })).status, 200);
  await s1.supervisor.stop();
  const s2 = await startTestSupervisor(t, { dataDir });
  t.same((await s2.json('GET', '/security/info')).body.data, { pwned: false, force_security: true });
  t.same(await s2.json('POST', '/security/options', { body: { pwned: 'sometimes' } }), { status: 400, body: { result: 'error', message: "expected boolean @ data['pwned']. Got 'sometimes'" } });
  t.same(await s2.json('POST', '/security/options', { body: { content_trust: true } }), { status: 400, body: { result: 'error', message: "extra keys not allowed @ data['content_trust']. Got True" } });
  const reader = await s2.supervisor.tokens.issue({ name: 'd', kind: 'app', role: 'default' }, { id: 'x', parent_id: null, user_id: null });
  t.equal((await s2.call('GET', '/security/info', { token: reader.token })).status, 200);
  t.equal((await s2.call('POST', '/security/options', { token: reader.token, body: { pwned: true } })).status, 403);
});

t.test('integrity check is gone: 410 without an error_key', async (t) => {
  const s = await startTestSupervisor(t);
  const res = await s.call('POST', '/security/integrity');
  t.equal(res.status, 410);
  t.equal(await res.text(), '{"result":"error","message":"Integrity check feature has been removed."}');
});
