// Repositories added to the store (supervisor-wire §4.16): a git repository cloned, its apps in
// the store, kept across a restart; a duplicate is a 409, a URL that is no repository a 400 with
// nothing kept; /store/reload pulls, repair resets the clone; one in use by an installed app is
// not removed; the built-in ones are neither removed nor reset.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix, docker } from '../../../helpers/apps.ts';
import { download, upload, jobDone, supervisorWithCore, populate, newBackup } from '../../../helpers/backups.ts';
import { repositorySlug } from '../../../../actors/supervisor/apps/repository.ts';

const BUILTIN = fileURLToPath(new URL('../../../../actors/supervisor/apps/builtin/', import.meta.url));
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', '-c', 'init.defaultBranch=main', '-C', dir, ...args], { stdio: 'pipe' });
const exists = (path: string) => stat(path).then(() => true, () => false);

/** A git repository holding a repository.yaml and apps copied from the stdin logger, under slugs of this test. */
async function upstream(apps: string[]): Promise<{ dir: string; url: string; addApp(slug: string): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-upstream-'));
  git(dir, 'init');
  await writeFile(join(dir, 'repository.yaml'), 'name: Test repository\nurl: https://example.com/apps\nmaintainer: Tester <t@example.com>\n');
  const addApp = async (slug: string) => {
    await cp(join(BUILTIN, 'hearth_stdin_logger'), join(dir, slug), { recursive: true });
    const config = await readFile(join(dir, slug, 'config.yaml'), 'utf8');
    await writeFile(join(dir, slug, 'config.yaml'), config.replace('slug: hearth_stdin_logger', `slug: ${slug}`).replace('name: Stdin logger', `name: App ${slug}`));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `add ${slug}`);
  };
  for (const slug of apps) await addApp(slug);
  return { dir, url: `file://${dir}`, addApp };
}

t.test('add, list, pull, repair, restart, remove', async (t) => {
  const up = await upstream([`first_${process.pid}`]);
  t.teardown(() => rm(up.dir, { recursive: true, force: true }));
  const slug = repositorySlug(up.url);
  const s = await startTestSupervisor(t, { appContainerPrefix: appPrefix(t, 'repo') });

  t.same((await s.json('POST', '/store/repositories', { body: { repository: up.url } })).body, { result: 'ok', data: {} }, 'added');
  const listed = (await s.json('GET', '/store/repositories')).body.data;
  t.match(listed.find((r: any) => r.slug === slug), { slug, name: 'Test repository', source: up.url, url: 'https://example.com/apps', maintainer: 'Tester <t@example.com>' });
  const key = `${slug}_first_${process.pid}`;
  t.match((await s.json('GET', `/store/addons/${key}`)).body.data, { name: `App first_${process.pid}`, repository: slug }, 'its app is in the store');
  t.same((await s.json('POST', '/store/repositories', { body: { repository: up.url } })).body, {
    result: 'error', message: `Can't add ${up.url}, already in the store`, error_key: 'store_repository_already_added_error', extra_fields: { url: up.url },
  }, 'a second time: the original\'s 409');
  t.equal((await s.call('POST', '/store/repositories', { body: { repository: up.url } })).status, 409);

  // what is refused keeps nothing
  const missing = await s.json('POST', '/store/repositories', { body: { repository: 'file:///no/such/repository' } });
  t.equal(missing.status, 400);
  t.match(missing.body.message, /^Can't add file:\/\/\/no\/such\/repository: .*(does not exist|not appear to be a git repository)/);
  const plain = await mkdtemp(join(tmpdir(), 'hearth-plain-'));
  t.teardown(() => rm(plain, { recursive: true, force: true }));
  git(plain, 'init');
  await writeFile(join(plain, 'README.md'), 'not apps');
  git(plain, 'add', '-A');
  git(plain, 'commit', '-q', '-m', 'readme');
  t.same((await s.json('POST', '/store/repositories', { body: { repository: `file://${plain}` } })).body.message, `Can't add file://${plain}: it is no app repository (no repository.yaml, .yml or .json at its top)`);
  t.same((await s.json('POST', '/store/repositories', { body: {} })).body.message, "required key not provided @ data['repository']. Got None");
  t.equal((await s.json('GET', '/store/repositories')).body.data.length, listed.length, 'nothing more kept');

  // upstream grows: a reload pulls it
  await up.addApp(`second_${process.pid}`);
  t.equal((await s.json('POST', '/store/reload')).status, 200);
  t.equal((await s.json('GET', `/store/addons/${slug}_second_${process.pid}`)).status, 200, 'the reload pulled the new app');
  // a damaged clone: repair resets it
  const clone = join(s.dataDir, 'apps', 'git', slug);
  await rm(join(clone, `second_${process.pid}`), { recursive: true });
  t.same((await s.json('POST', `/store/repositories/${slug}/repair`)).body, { result: 'ok', data: {} });
  t.ok(await exists(join(clone, `second_${process.pid}`, 'config.yaml')), 'repair put the clone back');
  t.same((await s.json('POST', '/store/repositories/local/repair')).body, {
    result: 'error', message: "Can't reset repository local as it is not git based!", error_key: 'store_repository_local_cannot_reset', extra_fields: { local_repo: 'local' },
  });
  t.same((await s.json('DELETE', '/store/repositories/core')).body.message, "Can't remove built-in repositories!");
  t.same((await s.json('DELETE', '/store/repositories/bad')), { status: 404, body: { result: 'error', message: 'Repository bad does not exist in the store' } });

  // kept across a restart
  await s.supervisor.stop();
  const s2 = await startTestSupervisor(t, { dataDir: s.dataDir, appContainerPrefix: appPrefix(t, 'repo2') });
  t.ok((await s2.json('GET', '/store/repositories')).body.data.some((r: any) => r.slug === slug), 'still there after a restart');
  t.equal((await s2.json('GET', `/store/addons/${key}`)).status, 200);

  // in use: not removed until its app is gone
  t.same((await s2.json('POST', `/store/addons/${key}/install`)).body, { result: 'ok', data: {} });
  const ref = `${s2.supervisor.deps.apps!.get(key)!.user.image}:1.0.0`;
  t.teardown(() => docker('rmi', '-f', ref).catch(() => ''));
  t.same((await s2.json('DELETE', `/store/repositories/${slug}`)).body.message, `Can't remove '${up.url}'. It's used by installed apps`);
  t.equal((await s2.json('POST', `/addons/${key}/uninstall`)).status, 200);
  t.same((await s2.json('DELETE', `/store/repositories/${slug}`)).body, { result: 'ok', data: {} }, 'removed once unused');
  t.notOk((await s2.json('GET', '/store/repositories')).body.data.some((r: any) => r.slug === slug));
  t.equal((await s2.json('GET', `/store/addons/${key}`)).status, 404, 'its apps are gone from the store');
  t.notOk(await exists(clone), 'and its clone');
});

t.test("a restore of an app adds the backup's repository to a store that lacks it, keeping the others", async (t) => {
  const up = await upstream([`kept_${process.pid}`]);
  const other = await upstream([`other_${process.pid}`]);
  t.teardown(() => Promise.all([rm(up.dir, { recursive: true, force: true }), rm(other.dir, { recursive: true, force: true })]));
  const slug = repositorySlug(up.url);
  const key = `${slug}_kept_${process.pid}`;
  const a = await startTestSupervisor(t, { appContainerPrefix: appPrefix(t, 'rra') });
  t.equal((await a.json('POST', '/store/repositories', { body: { repository: up.url } })).status, 200);
  t.same((await a.json('POST', `/store/addons/${key}/install`)).body, { result: 'ok', data: {} });
  const ref = `${a.supervisor.deps.apps!.get(key)!.user.image}:1.0.0`;
  t.teardown(() => docker('rmi', '-f', ref).catch(() => ''));
  const made = await a.json('POST', '/backups/new/partial', { body: { name: 'repo app', addons: [key] } });
  t.equal(made.status, 200, JSON.stringify(made.body).slice(0, 300));
  const bytes = await download(a, made.body.data.slug);

  // a store with another added repository and without the backup's
  const b = await startTestSupervisor(t, { appContainerPrefix: appPrefix(t, 'rrb') });
  t.equal((await b.json('POST', '/store/repositories', { body: { repository: other.url } })).status, 200);
  await upload(b, bytes, 'repo.tar');
  const partial = await b.json('POST', `/backups/${made.body.data.slug}/restore/partial`, { body: { addons: [key] } });
  t.equal(partial.status, 200, JSON.stringify(partial.body).slice(0, 300));
  t.same((await jobDone(b, partial.body.data.job_id)).errors, []);
  const sources = (await b.json('GET', '/store/repositories')).body.data.map((r: any) => r.source);
  t.ok(sources.includes(up.url) && sources.includes(other.url), 'a partial restore adds the backup\'s repository and keeps the others');
  t.match((await b.json('GET', `/addons/${key}/info`)).body.data, { version: '1.0.0', repository: slug, update_available: false }, 'the app is back, from its repository');
  t.equal((await b.json('POST', `/store/addons/${key}/update`)).body.message, `No update available for app App kept_${process.pid}`, 'and the store knows it again');
});

t.test('v1 addons_repositories replaces the added repositories; one that fails is not kept, and the rest of the options are', async (t) => {
  const up = await upstream([`opt_${process.pid}`]);
  t.teardown(() => rm(up.dir, { recursive: true, force: true }));
  const slug = repositorySlug(up.url);
  const s = await startTestSupervisor(t);
  const slugs = async () => (await s.json('GET', '/supervisor/info')).body.data.addons_repositories.map((r: any) => r.slug);
  t.same((await s.json('POST', '/supervisor/options', { body: { addons_repositories: ['core', 'local', up.url, up.url] } })).body, { result: 'ok', data: {} });
  t.same(await slugs(), ['core', 'local', slug], 'added, once, beside the built-in ones');
  t.equal((await s.json('GET', `/store/addons/${slug}_opt_${process.pid}`)).status, 200, 'its apps are in the store');

  const bad = await s.json('POST', '/supervisor/options', { body: { addons_repositories: [up.url, 'file:///no/such/repository'], country: 'FR' } });
  t.equal(bad.status, 400);
  t.match(bad.body.message, /^Can't add file:\/\/\/no\/such\/repository: /);
  t.same(await slugs(), ['core', 'local', slug], 'the failing one is not kept, the others stay');
  t.equal((await s.json('GET', '/supervisor/info')).body.data.country, 'FR', 'the other options were saved');

  t.same((await s.json('POST', '/supervisor/options', { body: { addons_repositories: [] } })).body, { result: 'ok', data: {} });
  t.same(await slugs(), ['core', 'local'], 'an empty list removes the added ones');
  t.notOk(await exists(join(s.dataDir, 'apps', 'git', slug)), 'with their clones');
});

t.test("a full restore of apps makes the added repositories the backup's", async (t) => {
  const up = await upstream([`full_${process.pid}`]);
  const other = await upstream([`stale_${process.pid}`]);
  t.teardown(() => Promise.all([rm(up.dir, { recursive: true, force: true }), rm(other.dir, { recursive: true, force: true })]));
  const a = await supervisorWithCore(t, { startCore: true, appContainerPrefix: appPrefix(t, 'rfa') });
  await populate(a.core().base);
  t.equal((await a.sup.json('POST', '/store/repositories', { body: { repository: up.url } })).status, 200);
  // as the original, repositories are restored with the apps (a backup without apps leaves them)
  const key = `${repositorySlug(up.url)}_full_${process.pid}`;
  t.same((await a.sup.json('POST', `/store/addons/${key}/install`)).body, { result: 'ok', data: {} });
  const ref = `${a.sup.supervisor.deps.apps!.get(key)!.user.image}:1.0.0`;
  t.teardown(() => docker('rmi', '-f', ref).catch(() => ''));
  const slug = await newBackup(t, a.sup, { name: 'full with repository' });
  const bytes = await download(a.sup, slug);
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: false, appContainerPrefix: appPrefix(t, 'rfb') });
  t.equal((await b.sup.json('POST', '/store/repositories', { body: { repository: other.url } })).status, 200);
  await upload(b.sup, bytes, 'full.tar');
  const restored = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: {} });
  t.equal(restored.status, 200, JSON.stringify(restored.body).slice(0, 300));
  t.same((await jobDone(b.sup, restored.body.data.job_id)).errors, []);
  const sources = (await b.sup.json('GET', '/store/repositories')).body.data.map((r: any) => r.source);
  t.ok(sources.includes(up.url), "the backup's repository is added");
  t.notOk(sources.includes(other.url), 'the one it does not name is dropped');
  t.equal((await b.sup.json('GET', `/store/addons/${repositorySlug(other.url)}_stale_${process.pid}`)).status, 404);
  t.match((await b.sup.json('GET', `/addons/${key}/info`)).body.data, { version: '1.0.0' }, 'and the app from it is back');
});
