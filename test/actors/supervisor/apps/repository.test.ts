// The app repository reader: configs validated as the original validates them (an invalid app is
// left out with a line naming its file and the problem), the built-in repository, store keys.
import t from 'tap';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRepository, repositorySlug, validateAppConfig } from '../../../../actors/supervisor/apps/repository.ts';
import { AppStore, BUILTIN_REPOSITORY_DIR } from '../../../../actors/supervisor/apps/store.ts';

const minimal = { name: 'Example', version: '1.2.3', slug: 'example', description: 'An example', arch: ['amd64', 'aarch64'] };

t.test('repository slugs as the original derives them', async (t) => {
  t.equal(repositorySlug('core'), 'core');
  t.equal(repositorySlug('local'), 'local');
  t.equal(repositorySlug('https://github.com/hassio-addons/repository'), 'a0d7b954');
  t.equal(repositorySlug('https://github.com/esphome/home-assistant-addon'), '5c53de3b');
  t.equal(repositorySlug('https://github.com/music-assistant/home-assistant-addon'), 'd5369777');
  t.equal(repositorySlug('https://GitHub.com/Hassio-Addons/Repository'), 'a0d7b954', 'lower-cased first');
});

t.test('a minimal config gets the defaults', async (t) => {
  const r = validateAppConfig(minimal);
  if (!('config' in r)) return t.fail(r.problem);
  const c = r.config;
  t.match(c, { name: 'Example', version: '1.2.3', slug: 'example', startup: 'application', boot: 'auto', stage: 'stable', init: true, advanced: false, ingress: false, ingress_port: 8099, stdin: false, hassio_api: false, hassio_role: 'default', services: [], discovery: [], map: [], options: {}, schema: {}, image: null, panel_icon: 'mdi:puzzle', ports: null, url: null });
  t.notOk('unknown_key' in (validateAppConfig({ ...minimal, unknown_key: 1 }) as { config: object }).config, 'unknown keys are dropped');
  t.equal((validateAppConfig({ ...minimal, version: 2 }) as { config: { version: string } }).config.version, '2');
});

t.test('legacy and full values', async (t) => {
  const r = validateAppConfig({
    ...minimal,
    startup: 'before',
    boot: 'manual_only',
    ports: { '80/tcp': 8080, '53/udp': null, '1883': 1883 },
    ports_description: { '80/tcp': 'web' },
    ingress: true,
    ingress_port: 0,
    ingress_entry: '/x',
    ingress_stream: true,
    map: ['config:rw', 'ssl', { type: 'share', read_only: false }],
    services: ['mqtt:provide', 'mysql:want'],
    discovery: ['mqtt'],
    environment: { A: 'b', N: 3 },
    watchdog: 'tcp://[HOST]:[PORT:80]',
    webui: 'http://[HOST]:[PORT:80]/',
    image: 'ghcr.io/example/{arch}-example',
    schema: false,
  });
  if (!('config' in r)) return t.fail(r.problem);
  t.equal(r.config.startup, 'services', 'before is services');
  t.equal(r.config.ingress_port, 0);
  t.same(r.config.map, [{ type: 'config', read_only: false }, { type: 'ssl', read_only: true }, { type: 'share', read_only: false }]);
  t.same(r.config.environment, { A: 'b', N: '3' });
  t.equal(r.config.schema, false);
  t.equal((validateAppConfig({ ...minimal, startup: 'after' }) as { config: { startup: string } }).config.startup, 'application');
});

t.test('invalid configs: the problem is named', async (t) => {
  const problem = (raw: unknown) => {
    const r = validateAppConfig(raw);
    return 'problem' in r ? r.problem : undefined;
  };
  t.equal(problem(['a']), `expected a dictionary. Got ["a"]`);
  for (const key of ['name', 'version', 'slug', 'description', 'arch']) {
    const raw: Record<string, unknown> = { ...minimal };
    delete raw[key];
    t.equal(problem(raw), `required key not provided @ data['${key}']`, `${key} is required`);
  }
  t.match(problem({ ...minimal, slug: 'bad slug!' }), /@ data\['slug'\]\. Got 'bad slug!'/);
  t.match(problem({ ...minimal, arch: ['amd64', 'sparc'] }), /value must be one of .* @ data\['arch'\]\[1\]\. Got 'sparc'/);
  t.match(problem({ ...minimal, arch: 'amd64' }), /expected list @ data\['arch'\]/);
  t.match(problem({ ...minimal, startup: 'later' }), /@ data\['startup'\]\. Got 'later'/);
  t.match(problem({ ...minimal, boot: 'sometimes' }), /@ data\['boot'\]\. Got 'sometimes'/);
  t.match(problem({ ...minimal, stage: 'alpha' }), /@ data\['stage'\]/);
  t.match(problem({ ...minimal, ports: { '80/sctp': 80 } }), /data\['ports'\]\['80\/sctp'\]/);
  t.match(problem({ ...minimal, ports: { '80/tcp': 70000 } }), /data\['ports'\]\['80\/tcp'\]\. Got 70000/);
  t.match(problem({ ...minimal, ports: { '80/tcp': 'x' } }), /data\['ports'\]\['80\/tcp'\]/);
  t.match(problem({ ...minimal, ingress_port: 99999 }), /data\['ingress_port'\]/);
  t.match(problem({ ...minimal, services: ['redis:provide'] }), /data\['services'\]\[0\]/);
  t.match(problem({ ...minimal, hassio_role: 'root' }), /data\['hassio_role'\]/);
  t.match(problem({ ...minimal, stdin: 'yes' }), /expected boolean @ data\['stdin'\]/);
  t.match(problem({ ...minimal, map: ['everything'] }), /data\['map'\]\[0\]/);
  t.match(problem({ ...minimal, watchdog: 'http://localhost/' }), /data\['watchdog'\]/);
  t.match(problem({ ...minimal, options: [] }), /expected a dictionary @ data\['options'\]/);
});

t.test('a repository directory: valid apps read, invalid ones skipped with a line', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-repo-'));
  await writeFile(join(dir, 'repository.yaml'), 'name: My apps\nurl: https://example.com/apps\nmaintainer: Me <me@example.com>\n');
  const app = async (name: string, config: string, files: Record<string, string> = {}) => {
    await mkdir(join(dir, name), { recursive: true });
    await writeFile(join(dir, name, name.endsWith('json') ? 'config.json' : 'config.yaml'), config);
    for (const [f, text] of Object.entries(files)) await writeFile(join(dir, name, f), text);
  };
  await app('good', 'name: Good\nversion: "1.0"\nslug: good\ndescription: fine\narch: [amd64]\n', { 'icon.png': 'png', 'DOCS.md': '# docs', Dockerfile: 'FROM busybox' });
  await app('good_json', JSON.stringify({ ...minimal, slug: 'jsonapp' }));
  await app('noarch', 'name: No arch\nversion: "1.0"\nslug: noarch\ndescription: missing arch\n');
  await app('badslug', 'name: Bad\nversion: "1.0"\nslug: "bad slug"\ndescription: x\narch: [amd64]\n');
  await app('broken', 'name: [unclosed\n');
  await app('zdup', 'name: Dup\nversion: "1.0"\nslug: good\ndescription: same slug\narch: [amd64]\n');
  await mkdir(join(dir, 'not_an_app'));
  const lines: string[] = [];
  const read = await readRepository(dir, dir, (l) => lines.push(l));
  const slug = repositorySlug(dir);
  t.same(read.repository, { slug, name: 'My apps', source: dir, url: 'https://example.com/apps', maintainer: 'Me <me@example.com>' });
  t.same(read.apps.map((a) => a.key).sort(), [`${slug}_good`, `${slug}_jsonapp`]);
  const good = read.apps.find((a) => a.key === `${slug}_good`)!;
  t.equal(good.icon, join(dir, 'good', 'icon.png'));
  t.equal(good.logo, null);
  t.equal(good.documentation, join(dir, 'good', 'DOCS.md'));
  t.equal(good.buildContext, 'dockerfile');
  t.equal(lines.length, 4, lines.join('\n'));
  t.ok(lines.some((l) => l.includes(join(dir, 'noarch', 'config.yaml')) && l.includes("required key not provided @ data['arch']")), 'missing arch named');
  t.ok(lines.some((l) => l.includes(join(dir, 'badslug', 'config.yaml')) && l.includes("data['slug']")), 'bad slug named');
  t.ok(lines.some((l) => l.includes(join(dir, 'broken', 'config.yaml'))), 'unparseable file named');
  t.ok(lines.some((l) => l.includes(join(dir, 'zdup', 'config.yaml')) && l.includes('already used')), 'duplicate slug named');
});

t.test('a directory without repository.yaml, and one that does not exist', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-repo-'));
  const lines: string[] = [];
  const read = await readRepository(dir, dir, (l) => lines.push(l));
  t.equal(read.repository.name, 'unknown');
  t.equal(read.repository.url, dir);
  t.match(lines[0], /No repository information exists at/);
  const gone = await readRepository(join(dir, 'nope'), 'local', () => {});
  t.same(gone.repository, { slug: 'local', name: 'Local apps', source: 'local', url: 'https://home-assistant.io/hassio', maintainer: 'you' });
  t.same(gone.apps, []);
});

t.test('the built-in repository reads clean', async (t) => {
  const lines: string[] = [];
  const read = await readRepository(BUILTIN_REPOSITORY_DIR, 'core', (l) => lines.push(l));
  t.same(lines, [], 'no app is skipped');
  t.equal(read.repository.slug, 'core');
  t.equal(read.repository.name, 'Hearth apps');
  t.same(read.apps.map((a) => a.key), ['core_hearth_echo', 'core_hearth_mqtt', 'core_hearth_stdin_logger']);
  const [echo, mqtt, stdin] = read.apps;
  t.match(echo!.config, { ingress: true, ingress_port: 8099, image: null });
  t.same(mqtt!.config.services, ['mqtt:provide']);
  t.same(mqtt!.config.discovery, ['mqtt']);
  t.equal(stdin!.config.stdin, true);
  for (const app of read.apps) {
    t.equal(app.buildContext, 'dockerfile', `${app.key} builds from its Dockerfile`);
    t.ok(app.documentation && app.changelog, `${app.key} has docs and a changelog`);
  }
});

t.test('the store: built-in, local and more directories; reload picks up changes', async (t) => {
  const data = await mkdtemp(join(tmpdir(), 'hearth-store-'));
  const extra = await mkdtemp(join(tmpdir(), 'hearth-repo-'));
  await writeFile(join(extra, 'repository.yaml'), 'name: Extra\n');
  const lines: string[] = [];
  const store = new AppStore({ localDir: join(data, 'local'), directories: () => [extra], logger: { info: () => {}, warning: (l) => lines.push(l) }, arch: 'amd64', machine: 'qemux86-64' });
  await store.reload();
  t.same(store.repositories().map((r) => r.slug), ['core', 'local', repositorySlug(extra)]);
  t.equal(store.apps().length, 3);
  await mkdir(join(data, 'local', 'mine'), { recursive: true });
  await writeFile(join(data, 'local', 'mine', 'config.yaml'), 'name: Mine\nversion: "0.1"\nslug: mine\ndescription: local\narch: [aarch64]\n');
  await store.reload();
  const mine = store.app('local_mine');
  t.equal(mine.repository, 'local');
  t.equal(store.available(mine), false, 'an aarch64-only app is not available on amd64');
  t.equal(store.available(store.app('core_hearth_echo')), true);
  t.throws(() => store.checkAvailable(mine), { status: 400, errorKey: 'app_not_supported_architecture_error', message: 'App Mine not supported on this platform, supported architectures: aarch64', extraFields: { app: 'Mine', slug: 'local_mine', architectures: 'aarch64' } });
  await writeFile(join(data, 'local', 'mine', 'config.yaml'), 'name: Mine\nversion: "0.1"\nslug: mine\ndescription: local\narch: [amd64]\nmachine: ["!raspberrypi4"]\nhomeassistant: "2.0.0"\n');
  await store.reload();
  // as the original: a machine list that does not name this machine excludes it
  t.throws(() => store.checkAvailable(store.app('local_mine')), { errorKey: 'app_not_supported_machine_type_error', message: 'App Mine not supported on this machine, supported machine types: !raspberrypi4' });
  const versioned = new AppStore({ localDir: join(data, 'local'), logger: { info: () => {}, warning: () => {} }, arch: 'amd64', machine: 'raspberrypi4', coreVersion: () => '1.5.0' });
  await versioned.reload();
  t.throws(() => versioned.checkAvailable(versioned.app('local_mine')), { errorKey: 'app_not_supported_machine_type_error', message: /supported machine types: !raspberrypi4$/ }, 'a negated machine');
  await writeFile(join(data, 'local', 'mine', 'config.yaml'), 'name: Mine\nversion: "0.1"\nslug: mine\ndescription: local\narch: [amd64]\nhomeassistant: "2.0.0"\n');
  await versioned.reload();
  t.throws(() => versioned.checkAvailable(versioned.app('local_mine')), { errorKey: 'app_not_supported_home_assistant_version_error', message: 'App Mine not supported on this system, requires Home Assistant version 2.0.0 or greater', extraFields: { app: 'Mine', slug: 'local_mine', version: '2.0.0' } });
  t.throws(() => store.app('local_nope'), { status: 404, errorKey: 'store_app_not_found_error', message: 'App local_nope does not exist in the store' });
  t.throws(() => store.repository('nope'), { status: 404, message: 'Repository nope does not exist in the store' });
});

t.test('backup settings: defaults, values, the legacy snapshot names, and what is refused', async (t) => {
  t.match((validateAppConfig(minimal) as { config: object }).config, { backup: 'hot', backup_pre: null, backup_post: null, backup_exclude: [] });
  t.match((validateAppConfig({ ...minimal, backup: 'cold', backup_pre: 'a', backup_post: 'b', backup_exclude: ['*.log'] }) as { config: object }).config, { backup: 'cold', backup_pre: 'a', backup_post: 'b', backup_exclude: ['*.log'] });
  const legacy = (validateAppConfig({ ...minimal, snapshot: 'cold', snapshot_pre: 'x', snapshot_post: 'y', snapshot_exclude: ['tmp/*'], backup_pre: 'loses' }) as unknown as { config: Record<string, unknown> }).config;
  t.match(legacy, { backup: 'cold', backup_pre: 'x', backup_post: 'y', backup_exclude: ['tmp/*'] }, 'the legacy name wins, as in the original');
  t.notOk('snapshot' in legacy || 'snapshot_exclude' in legacy, 'the legacy names are gone');
  t.same(validateAppConfig({ ...minimal, backup: 'lukewarm' }), { problem: "value must be one of ['hot', 'cold'] @ data['backup']. Got 'lukewarm'" });
  t.same(validateAppConfig({ ...minimal, backup_exclude: [1] }), { problem: "expected str @ data['backup_exclude'][0]. Got 1" });
  t.same(validateAppConfig({ ...minimal, backup_pre: ['x'] }), { problem: 'expected str @ data[\'backup_pre\']. Got ["x"]' });
});
