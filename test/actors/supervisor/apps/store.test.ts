// The store's read side over a real supervisor: listings on both trees (`addons` on v1, `apps` on
// v2), one app, its icon/logo/changelog/documentation with the original's content types and
// failures, the repositories, and a reload that reads a changed directory.
import t from 'tap';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { startSupervisor } from '../../../../bin/supervisor-instance.ts';
import { repositorySlug } from '../../../../actors/supervisor/apps/repository.ts';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

async function extraRepository(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-store-repo-'));
  await writeFile(join(dir, 'repository.yaml'), 'name: Test apps\nurl: https://example.com/test\nmaintainer: Tester\n');
  await mkdir(join(dir, 'pics'));
  await writeFile(join(dir, 'pics', 'config.yaml'), 'name: Pictures\nversion: "2.0.0"\nslug: pics\ndescription: has an icon and a logo\narch: [amd64, aarch64, armv7]\nimage: ghcr.io/example/{arch}-pics\nhassio_api: true\nhassio_role: manager\n');
  await writeFile(join(dir, 'pics', 'icon.png'), PNG);
  await writeFile(join(dir, 'pics', 'logo.png'), PNG);
  await writeFile(join(dir, 'pics', 'README.md'), 'Long text');
  await writeFile(join(dir, 'pics', 'CHANGELOG.md'), Buffer.from([0x6f, 0x6b, 0xff, 0x21]));
  await mkdir(join(dir, 'broken'));
  await writeFile(join(dir, 'broken', 'config.yaml'), 'name: Broken\nversion: "1"\nslug: broken\ndescription: no arch\n');
  return dir;
}

t.test('the store on v1', async (t) => {
  const extra = await extraRepository();
  const s = await startTestSupervisor(t, { appRepositories: [extra], dockerSocket: '/nonexistent/docker.sock' });
  const hash = repositorySlug(extra);
  t.ok(s.lines.some((l) => l.includes(join(extra, 'broken', 'config.yaml')) && l.includes("required key not provided @ data['arch']")), 'the invalid app is logged, not fatal');

  const store = await s.json('GET', '/store');
  t.equal(store.status, 200);
  t.same(Object.keys(store.body.data), ['addons', 'repositories']);
  t.same(store.body.data.repositories, [
    { slug: 'core', name: 'Hearth apps', source: 'core', url: 'https://github.com/hearth/hearth', maintainer: 'Hearth' },
    { slug: 'local', name: 'Local apps', source: 'local', url: 'https://home-assistant.io/hassio', maintainer: 'you' },
    { slug: hash, name: 'Test apps', source: extra, url: 'https://example.com/test', maintainer: 'Tester' },
  ]);
  const slugs = store.body.data.addons.map((a: { slug: string }) => a.slug);
  t.same(slugs, ['core_hearth_echo', 'core_hearth_mqtt', 'core_hearth_stdin_logger', `${hash}_pics`]);
  const pics = store.body.data.addons[3];
  t.same(Object.keys(pics), ['advanced', 'arch', 'available', 'build', 'description', 'documentation', 'homeassistant', 'core', 'icon', 'installed', 'logo', 'name', 'repository', 'slug', 'stage', 'update_available', 'url', 'version_latest', 'version']);
  t.match(pics, { arch: ['amd64', 'aarch64', 'armv7'], build: false, documentation: false, icon: true, logo: true, installed: false, repository: hash, version_latest: '2.0.0', version: null, update_available: false, homeassistant: null, url: null });
  t.match(store.body.data.addons[0], { name: 'Echo', build: true, documentation: true, icon: false, logo: false, repository: 'core' });

  const list = await s.json('GET', '/store/addons');
  t.same(Object.keys(list.body.data), ['addons']);
  t.same(list.body.data.addons, store.body.data.addons);

  const one = await s.json('GET', `/store/addons/${hash}_pics`);
  t.equal(one.status, 200);
  t.same(Object.keys(one.body.data).slice(19), ['apparmor', 'auth_api', 'detached', 'docker_api', 'full_access', 'hassio_api', 'supervisor_api', 'hassio_role', 'supervisor_role', 'homeassistant_api', 'core_api', 'host_network', 'host_pid', 'ingress', 'long_description', 'rating', 'signed']);
  t.match(one.body.data, { apparmor: 'default', detached: false, hassio_api: true, supervisor_api: true, hassio_role: 'manager', supervisor_role: 'manager', long_description: 'Long text', rating: 4, signed: false });
  t.match((await s.json('GET', '/store/addons/core_hearth_echo')).body.data, { ingress: true, rating: 7, long_description: null });
  t.same(await s.json('GET', '/store/addons/bad'), { status: 404, body: { result: 'error', message: 'App bad does not exist in the store', error_key: 'store_app_not_found_error', extra_fields: { app: 'bad' } } });

  for (const prefix of ['/store/addons', '/addons']) {
    const icon = await s.call('GET', `${prefix}/${hash}_pics/icon`, { token: null });
    t.equal(icon.status, 200, `${prefix} icon needs no token`);
    t.equal(icon.headers.get('content-type'), 'image/png');
    t.same(Buffer.from(await icon.arrayBuffer()), PNG);
    const logo = await s.call('GET', `${prefix}/${hash}_pics/logo`);
    t.equal(logo.headers.get('content-type'), 'image/png');
    const none = await s.call('GET', `${prefix}/core_hearth_echo/icon`);
    t.equal(none.status, 400);
    t.equal(none.headers.get('content-type'), 'application/octet-stream');
    t.equal(await none.text(), 'No icon found for app core_hearth_echo!');
    t.equal(await (await s.call('GET', `${prefix}/core_hearth_echo/logo`)).text(), 'No logo found for app core_hearth_echo!');
    const bad = await s.call('GET', `${prefix}/bad/logo`);
    t.equal(bad.status, 404);
    t.equal(await bad.text(), 'App bad does not exist in the store');

    const changelog = await s.call('GET', `${prefix}/${hash}_pics/changelog`);
    t.equal(changelog.status, 200);
    t.match(changelog.headers.get('content-type'), /^text\/plain/);
    t.equal(await changelog.text(), 'ok\ufffd!', 'invalid UTF-8 replaced');
    const docs = await s.call('GET', `${prefix}/${hash}_pics/documentation`);
    t.equal(docs.status, 200);
    t.equal(await docs.text(), `No documentation found for app ${hash}_pics!`);
    t.match(await (await s.call('GET', `${prefix}/core_hearth_echo/documentation`)).text(), /^# Echo/);
    const unknown = await s.call('GET', `${prefix}/bad/changelog`);
    t.equal(unknown.status, 200, 'always 200');
    t.equal(await unknown.text(), 'App bad does not exist in the store');
  }

  // availability and the ignored version segment
  t.same(await s.json('GET', '/store/addons/core_hearth_echo/availability'), { status: 200, body: { result: 'ok', data: {} } });
  t.same((await s.json('GET', '/store/addons/core_hearth_echo/1.0.0')).body, (await s.json('GET', '/store/addons/core_hearth_echo')).body);
  t.equal((await s.json('GET', '/store/addons/bad/availability')).status, 404);

  const repos = await s.json('GET', '/store/repositories');
  t.same(repos.body.data, store.body.data.repositories, 'the repositories are a list');
  t.same((await s.json('GET', `/store/repositories/${hash}`)).body.data, store.body.data.repositories[2]);
  t.same((await s.json('GET', '/store/repositories/core')).body.data.name, 'Hearth apps');
  t.same(await s.json('GET', '/store/repositories/bad'), { status: 404, body: { result: 'error', message: 'Repository bad does not exist in the store' } });

  // an app added to the local repository shows after a reload
  await mkdir(join(s.dataDir, 'apps', 'local', 'mine'), { recursive: true });
  await writeFile(join(s.dataDir, 'apps', 'local', 'mine', 'config.json'), JSON.stringify({ name: 'Mine', version: '0.1', slug: 'mine', description: 'local', arch: ['amd64', 'aarch64'] }));
  t.equal((await s.json('GET', '/store/addons/local_mine')).status, 404);
  t.same(await s.json('POST', '/store/reload'), { status: 200, body: { result: 'ok', data: {} } });
  t.match((await s.json('GET', '/store/addons/local_mine')).body.data, { name: 'Mine', repository: 'local', slug: 'local_mine' });
  await writeFile(join(s.dataDir, 'apps', 'local', 'mine', 'config.json'), '{"name": "Mine"}');
  t.equal((await s.json('POST', '/addons/reload')).status, 200, 'the v1 alias reloads too');
  t.equal((await s.json('GET', '/store/addons/local_mine')).status, 404, 'an app that became invalid is gone');

  const forbidden = await s.call('GET', '/store', { token: (await s.supervisor.tokens.issue({ name: 'x', kind: 'app', role: 'default' }, { id: 'x', parent_id: null, user_id: null })).token });
  t.equal(forbidden.status, 403, 'the store is for manager and up');
});

t.test('the store on v2: apps', async (t) => {
  const dataDir = await supervisorDataDir();
  const first = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, bootCore: false, dockerSocket: '/nonexistent/docker.sock' });
  await first.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true } }, { id: 'x', parent_id: null, user_id: null });
  await first.stop();
  const s = await startTestSupervisor(t, { dataDir, dockerSocket: '/nonexistent/docker.sock' });
  const store = await s.json('GET', '/v2/store');
  t.same(Object.keys(store.body.data), ['apps', 'repositories']);
  t.equal(store.body.data.apps.length, 3);
  t.same(Object.keys((await s.json('GET', '/v2/store/apps')).body.data), ['apps']);
  t.match((await s.json('GET', '/v2/store/apps/core_hearth_mqtt')).body.data, { slug: 'core_hearth_mqtt', name: 'Mosquitto broker' });
  t.equal((await s.json('GET', '/v2/store/addons')).status, 404, 'no addons names on v2');
  const missing = await s.json('GET', '/v2/store/apps/bad');
  t.equal(missing.body.error_key, 'store_app_not_found_error');
  const icon = await s.call('GET', '/v2/store/apps/core_hearth_echo/icon', { token: null });
  t.equal(icon.status, 400, 'icons need no token on v2 either');
  t.equal(await icon.text(), 'No icon found for app core_hearth_echo!');
  t.match(await (await s.call('GET', '/v2/store/apps/core_hearth_stdin_logger/changelog')).text(), /^# Changelog/);
  t.equal((await s.json('POST', '/v2/store/reload')).status, 200);
  t.equal((await s.json('POST', '/v2/addons/reload')).status, 404);
  t.equal((await s.json('GET', '/v2/store/apps/core_hearth_echo/availability')).status, 200);
  t.equal((await s.json('GET', '/v2/store/apps/core_hearth_echo/9.9')).body.data.slug, 'core_hearth_echo');
});
