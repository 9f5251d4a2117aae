import { readFile } from 'node:fs/promises';
import { raw, type SupervisorApi, type SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { GitRepositories } from '../../../actors/supervisor/apps/git-repositories.ts';
import { SupervisorError, keyedError } from '../../../actors/supervisor/errors.ts';
import { validate, required, schema, str } from '../../../actors/supervisor/validate.ts';
import { readText, type AppStoreView } from '../../../actors/supervisor/apps/store.ts';
import type { RepositoryApp } from '../../../actors/supervisor/apps/repository.ts';

/**
 * The store's read side (supervisor-wire §3, §4.16, §1.6): the listing, one app, its icon, logo,
 * changelog and documentation, the repositories, and a reload. v1 names apps `addons`
 * (`/store/addons/...`, key `addons`), v2 `apps`; v1 also answers the assets under `/addons/{app}/...`.
 */
const REPOSITORY = schema({ repository: required(str) });

/** What the store's routes use. */
export interface StoreRouteDeps {
  store: AppStoreView;
  /** the added git repositories */
  git: GitRepositories;
  context(): Context;
}

/** Registers the store's routes. */
export function registerStoreRoutes(api: SupervisorApi, deps: StoreRouteDeps): void {
  const { store, git } = deps;
  const appsKey = (call: SupervisorCall) => (call.tree === 'v1' ? 'addons' : 'apps');
  const listing = () => Promise.all(store.apps().map((a) => store.summary(a)));

  api.get('/store', async (call) => ({ [appsKey(call)]: await listing(), repositories: store.repositories() }));
  api.get('/store/addons', async (call) => ({ [appsKey(call)]: await listing() }), { v2Path: '/store/apps' });
  api.post('/store/reload', async () => {
    await git.pullAll();
    await store.reload();
    return {};
  }, { v1Aliases: ['/addons/reload'] });
  api.get('/store/repositories', () => store.repositories());
  api.get('/store/repositories/:repository', (call) => store.repository(call.params.repository!));

  api.post('/store/repositories', async (call) => {
    const body = validate(call.body(), REPOSITORY);
    await git.add(body.repository!, deps.context());
  });
  api.delete('/store/repositories/:repository', async (call) => {
    const info = store.repository(call.params.repository!);
    const repo = git.find(info.slug);
    if (!repo) throw new SupervisorError("Can't remove built-in repositories!");
    await git.remove(repo, deps.context());
  });
  api.post('/store/repositories/:repository/repair', async (call) => {
    const info = store.repository(call.params.repository!);
    const repo = git.find(info.slug);
    if (!repo) throw keyedError(400, 'store_repository_local_cannot_reset', "Can't reset repository {local_repo} as it is not git based!", { local_repo: info.slug });
    await git.repair(repo);
  });

  const image = (which: 'icon' | 'logo') => async (call: SupervisorCall) => {
    try {
      const app = store.app(call.params.app!);
      const path = app[which];
      if (!path) throw new SupervisorError(`No ${which} found for app ${app.key}!`);
      return raw({ status: 200, headers: { 'Content-Type': 'image/png' }, body: await readFile(path) });
    } catch (err) {
      if (!(err instanceof SupervisorError)) throw err;
      // the original's raw handlers answer a failure as the bare message
      return raw({ status: err.status, headers: { 'Content-Type': 'application/octet-stream' }, body: err.message });
    }
  };
  // changelog and documentation answer 200 whatever happens: the frontend shows the text
  const textFile = (which: 'changelog' | 'documentation') => async (call: SupervisorCall) => {
    let body: string;
    let app: RepositoryApp | undefined;
    try {
      app = store.app(call.params.app!);
    } catch (err) {
      if (!(err instanceof SupervisorError)) throw err;
      body = err.message;
    }
    if (app) {
      const path = app[which];
      body = path ? await readText(path) : `No ${which} found for app ${app.key}!`;
    }
    return raw({ status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: body! });
  };

  for (const which of ['icon', 'logo'] as const) {
    api.get(`/store/addons/:app/${which}`, image(which), { v2Path: `/store/apps/:app/${which}`, v1Aliases: [`/addons/:app/${which}`] });
  }
  for (const which of ['changelog', 'documentation'] as const) {
    api.get(`/store/addons/:app/${which}`, textFile(which), { v2Path: `/store/apps/:app/${which}`, v1Aliases: [`/addons/:app/${which}`] });
  }
  api.get('/store/addons/:app/availability', (call) => {
    store.checkAvailable(store.app(call.params.app!));
    return {};
  }, { v2Path: '/store/apps/:app/availability' });
  const info = (call: SupervisorCall) => store.summary(store.app(call.params.app!), true);
  api.get('/store/addons/:app', info, { v2Path: '/store/apps/:app' });
  // the version segment is accepted and ignored: the store has one version of an app (registered last)
  api.get('/store/addons/:app/:version', info, { v2Path: '/store/apps/:app/:version' });
}
