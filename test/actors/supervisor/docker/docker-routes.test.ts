import t from 'tap';
import { execFileSync } from 'node:child_process';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';

const engine = () => execFileSync('docker', ['info', '--format', '{{.ServerVersion}}|{{.Driver}}|{{.LoggingDriver}}'], { encoding: 'utf8' }).trim().split('|');

t.test('GET /docker/info: the engine\'s version and drivers, defaults, registries without passwords', async (t) => {
  const s = await startTestSupervisor(t);
  const [version, storage, logging] = engine();
  t.same(await s.json('GET', '/docker/info'), {
    status: 200,
    body: { result: 'ok', data: { version, enable_ipv6: null, mtu: null, storage, logging, registries: {} } },
  });
});

t.test('POST /docker/options: a change is kept and asks for a reboot; the same values ask nothing', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  const reboots = async (s: typeof s1) =>
    ((await s.json('GET', '/resolution/info')).body.data.issues as { type: string; context: string; uuid: string }[]).filter((i) => i.type === 'reboot_required' && i.context === 'system');
  t.same(await s1.json('POST', '/docker/options', { body: { enable_ipv6: true, mtu: 1450 } }), { status: 200, body: { result: 'ok', data: {} } });
  const [issue] = await reboots(s1);
  t.ok(issue, 'a reboot-required issue in the resolution center');
  t.match((await s1.json('GET', `/resolution/issue/${issue.uuid}/suggestions`)).body.data.suggestions, [{ type: 'execute_reboot', context: 'system' }]);
  t.equal((await s1.json('DELETE', `/resolution/issue/${issue.uuid}`)).status, 200);
  t.equal((await s1.json('POST', '/docker/options', { body: { enable_ipv6: true, mtu: 1450 } })).status, 200);
  t.same(await reboots(s1), [], 'nothing changed: no new issue');
  await s1.supervisor.stop();

  const s2 = await startTestSupervisor(t, { dataDir });
  t.match((await s2.json('GET', '/docker/info')).body.data, { enable_ipv6: true, mtu: 1450 }, 'kept across a restart');
  t.equal((await s2.json('POST', '/docker/options', { body: { mtu: null } })).status, 200);
  t.match((await s2.json('GET', '/docker/info')).body.data, { enable_ipv6: true, mtu: null }, 'null resets the MTU only');
  t.equal((await reboots(s2)).length, 1);

  const cases: [unknown, string][] = [
    [{ mtu: 67 }, "value must be at least 68 @ data['mtu']. Got 67"],
    [{ mtu: 65536 }, "value must be at most 65535 @ data['mtu']. Got 65536"],
    [{ mtu: '1500' }, "expected int @ data['mtu']. Got '1500'"],
    [{ enable_ipv6: 'perhaps' }, "expected boolean @ data['enable_ipv6']. Got 'perhaps'"],
    [{ storage: 'zfs' }, "extra keys not allowed @ data['storage']. Got 'zfs'"],
  ];
  for (const [body, message] of cases) t.same(await s2.json('POST', '/docker/options', { body }), { status: 400, body: { result: 'error', message } }, JSON.stringify(body));
});

t.test('registries: added, listed without passwords, kept, removed; bad hostnames and missing fields refused', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  t.same((await s1.json('GET', '/docker/registries')).body, { result: 'ok', data: { registries: {} } });
  const add = await s1.json('POST', '/docker/registries', { body: { 'ghcr.io': { username: 'alice', password: 'hunter2' }, 'registry.example-one.com': { username: 'bob', password: 's3cret' } } });
  t.same(add, { status: 200, body: { result: 'ok', data: {} } });
  const listed = await s1.call('GET', '/docker/registries');
  const text = await listed.text();
  t.same(JSON.parse(text), { result: 'ok', data: { registries: { 'ghcr.io': { username: 'alice' }, 'registry.example-one.com': { username: 'bob' } } } });
  t.notMatch(text, /hunter2|s3cret/);
  t.notMatch(await (await s1.call('GET', '/docker/info')).text(), /hunter2|s3cret/);
  // a later POST merges
  await s1.json('POST', '/docker/registries', { body: { 'ghcr.io': { username: 'carol', password: 'x' } } });
  await s1.supervisor.stop();

  const s2 = await startTestSupervisor(t, { dataDir });
  t.same((await s2.json('GET', '/docker/info')).body.data.registries, { 'ghcr.io': { username: 'carol' }, 'registry.example-one.com': { username: 'bob' } });
  t.same(await s2.json('DELETE', '/docker/registries/ghcr.io'), { status: 200, body: { result: 'ok', data: {} } });
  t.same((await s2.json('GET', '/docker/registries')).body.data.registries, { 'registry.example-one.com': { username: 'bob' } });
  t.same(await s2.json('DELETE', '/docker/registries/bad'), { status: 404, body: { result: 'error', message: 'Hostname bad does not exist in registries' } });

  const bad = await s2.json('POST', '/docker/registries', { body: { 'Not A Host': { username: 'a', password: 'b' } } });
  t.equal(bad.status, 400);
  t.match(bad.body.message, /^does not match regular expression .* @ data\['Not A Host'\]/);
  t.same(await s2.json('POST', '/docker/registries', { body: { 'ghcr.io': { username: 'a' } } }), {
    status: 400,
    body: { result: 'error', message: "required key not provided @ data['ghcr.io']['password']. Got None" },
  });
  t.same(await s2.json('POST', '/docker/registries', { body: { 'ghcr.io': 'a:b' } }), { status: 400, body: { result: 'error', message: "expected dict @ data['ghcr.io']. Got 'a:b'" } });
  t.same((await s2.json('GET', '/docker/registries')).body.data.registries, { 'registry.example-one.com': { username: 'bob' } }, 'refused bodies add nothing');

  const manager = await s2.supervisor.tokens.issue({ name: 'd', kind: 'app', role: 'default' }, { id: 'x', parent_id: null, user_id: null });
  t.equal((await s2.call('GET', '/docker/registries', { token: manager.token })).status, 403, 'registries need manager');
  t.equal((await s2.call('GET', '/docker/info', { token: manager.token })).status, 200, 'info is for everyone');
});

t.test('storage-driver migration needs an OS Hearth does not have: 404 before the body is read', async (t) => {
  const s = await startTestSupervisor(t);
  const expected = { status: 404, body: { result: 'error', message: 'Home Assistant OS 17.0 or newer required for Docker storage driver migration' } };
  t.same(await s.json('POST', '/docker/migrate-storage-driver', { body: { storage_driver: 'overlayfs' } }), expected);
  t.same(await s.json('POST', '/docker/migrate-storage-driver', { body: { storage_driver: 'btrfs' } }), expected);
});
