// An app of the local repository updated to a new version of its folder, rebuilt, and the
// caller rules of the app routes: sys_options for the core's token only, another app's options
// hidden from an app below manager, an app may not update itself.
import t from 'tap';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix, appRecords, docker } from '../../../helpers/apps.ts';
import { BUILTIN_REPOSITORY_DIR } from '../../../../actors/supervisor/apps/store.ts';

const LOCAL = 'local_hearth_stdin_logger';

t.test('update and rebuild of a local app', async (t) => {
  const prefix = appPrefix(t, 'update');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, bootApps: false });
  const dir = join(s.dataDir, 'apps', 'local', 'hearth_stdin_logger');
  await cp(join(BUILTIN_REPOSITORY_DIR, 'hearth_stdin_logger'), dir, { recursive: true });
  t.equal((await s.json('POST', '/store/reload')).status, 200);
  t.equal((await s.json('POST', `/store/addons/${LOCAL}/install`)).status, 200);
  t.equal((await s.json('POST', `/addons/${LOCAL}/start`)).status, 200);
  const image = JSON.parse(await docker('inspect', `${prefix}${LOCAL}`))[0].Config.Image;
  t.match(image, /^local\/[a-z0-9]+-addon-hearth_stdin_logger:1\.0\.0$/);
  t.same((await s.json('POST', `/addons/${LOCAL}/update`)).body.error_key, 'app_no_update_available_error');

  // a new version in the folder
  const config = join(dir, 'config.yaml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('version: "1.0.0"', 'version: "1.0.1"'));
  t.equal((await s.json('POST', '/addons/reload')).status, 200);
  t.match((await s.json('GET', `/addons/${LOCAL}/info`)).body.data, { version: '1.0.0', version_latest: '1.0.1', update_available: true });
  t.same((await s.json('GET', '/available_updates')).body.data.available_updates, [{ update_type: 'addon', name: 'Stdin logger', icon: null, panel_path: `/update-available/${LOCAL}`, version_latest: '1.0.1' }]);
  const supervisorInfo = (await s.json('GET', '/supervisor/info')).body.data;
  t.same(supervisorInfo.addons, [{ name: 'Stdin logger', slug: LOCAL, version: '1.0.0', version_latest: '1.0.1', update_available: true, state: 'started', repository: 'local', icon: false }]);
  t.same(supervisorInfo.addons_repositories.map((r: any) => r.slug), ['core', 'local']);
  const rebuild = await s.json('POST', `/addons/${LOCAL}/rebuild`);
  t.same(rebuild.body, { result: 'error', message: 'Local and store versions of app Stdin logger differ, use Update instead of Rebuild', error_key: 'app_rebuild_version_changed_error', extra_fields: { app: 'Stdin logger', slug: LOCAL } });

  t.same((await s.json('POST', `/store/addons/${LOCAL}/update`, { body: { backup: false } })).body, { result: 'ok', data: {} });
  t.match((await s.json('GET', `/addons/${LOCAL}/info`)).body.data, { version: '1.0.1', update_available: false, state: 'started' });
  t.match(JSON.parse(await docker('inspect', `${prefix}${LOCAL}`))[0].Config.Image, /:1\.0\.1$/, 'runs the new version');
  t.match((await appRecords(s.supervisor.log, LOCAL)).find((r) => r.type === 'app_updated')?.data, { from: '1.0.0', to: '1.0.1' });

  // a rebuild makes the image and the container anew, and it runs again
  const before = JSON.parse(await docker('inspect', `${prefix}${LOCAL}`))[0].Id;
  t.same((await s.json('POST', `/addons/${LOCAL}/rebuild`)).body, { result: 'ok', data: {} });
  const after = JSON.parse(await docker('inspect', `${prefix}${LOCAL}`))[0];
  t.not(after.Id, before);
  t.equal(after.State.Running, true);
  t.match((await appRecords(s.supervisor.log, LOCAL)).map((r) => r.type).slice(-2), ['app_rebuilt', 'app_started']);
  t.equal((await s.json('POST', `/addons/${LOCAL}/uninstall`)).status, 200);
});

t.test('caller rules: sys_options, options seen by other apps, self update', async (t) => {
  const prefix = appPrefix(t, 'callers');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, bootApps: false });
  t.equal((await s.json('POST', '/store/addons/core_hearth_mqtt/install')).status, 200);
  t.equal((await s.json('POST', '/store/addons/core_hearth_stdin_logger/install')).status, 200);
  const ctx = { id: 'x', parent_id: null, user_id: null };
  const core = (await s.supervisor.tokens.rotateCore(ctx)).token;
  const mqttToken = s.supervisor.deps.apps!.get('core_hearth_mqtt')!.user.access_token;
  const entry = s.supervisor.tokens.list().find((e) => e.token === mqttToken)!;
  t.match(entry, { kind: 'app', role: 'default', slug: 'core_hearth_mqtt' }, 'the app token carries its slug and role');

  t.equal((await s.json('POST', '/addons/core_hearth_mqtt/sys_options', { body: { system_managed: true } })).status, 403, 'not the operator');
  t.same((await s.json('POST', '/addons/core_hearth_mqtt/sys_options', { token: core, body: { system_managed: 'x' } })).body.message, "expected boolean @ data['system_managed']. Got 'x'");
  t.same((await s.json('POST', '/addons/core_hearth_mqtt/sys_options', { token: core, body: { system_managed: true, system_managed_config_entry: 'abc' } })).body, { result: 'ok', data: {} });
  t.match((await s.json('GET', '/addons/core_hearth_mqtt/info')).body.data, { system_managed: true, system_managed_config_entry: 'abc' });

  // an app of role default sees its own options, not another app's
  t.same((await s.json('GET', '/addons/self/info', { token: mqttToken })).body.data.options, { logins: [] });
  t.same((await s.json('GET', '/addons/core_hearth_stdin_logger/info', { token: mqttToken })).body.data.options, {});
  t.equal((await s.json('POST', '/addons/self/update', { token: mqttToken })).status, 403, 'an app below manager may not update');
  const manager = (await s.supervisor.tokens.issue({ name: 'm', kind: 'app', role: 'manager', slug: 'core_hearth_stdin_logger' }, ctx)).token;
  t.same((await s.json('POST', '/store/addons/core_hearth_stdin_logger/update', { token: manager })).body, { result: 'error', message: "App core_hearth_stdin_logger can't update itself!" });
  t.equal((await s.json('POST', '/addons/self/security', { token: mqttToken, body: { protected: false } })).status, 403, 'its own security is no self route');

  // manual_only apps keep their boot
  t.same((await s.json('POST', '/addons/core_hearth_mqtt/options', { body: { boot: 'manual' } })).body, { result: 'ok', data: {} });
  t.equal((await s.json('GET', '/addons/core_hearth_mqtt/info')).body.data.boot, 'manual');
  t.equal((await s.json('POST', '/addons/core_hearth_mqtt/uninstall')).status, 200);
  t.equal((await s.json('POST', '/addons/core_hearth_stdin_logger/uninstall')).status, 200);
});

t.test('an app whose config pins manual_only refuses a boot change', async (t) => {
  const prefix = appPrefix(t, 'manualonly');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, bootApps: false });
  const dir = join(s.dataDir, 'apps', 'local', 'pinned');
  await cp(join(BUILTIN_REPOSITORY_DIR, 'hearth_stdin_logger'), dir, { recursive: true });
  const config = join(dir, 'config.yaml');
  await writeFile(config, (await readFile(config, 'utf8')).replace('slug: hearth_stdin_logger', 'slug: pinned').replace('boot: manual', 'boot: manual_only'));
  t.equal((await s.json('POST', '/store/reload')).status, 200);
  t.equal((await s.json('POST', '/store/addons/local_pinned/install')).status, 200);
  const refused = await s.json('POST', '/addons/local_pinned/options', { body: { boot: 'auto', watchdog: true } });
  t.same(refused.body, { result: 'error', message: 'App local_pinned boot option is set to manual_only so it cannot be changed', error_key: 'app_boot_config_cannot_change_error', extra_fields: { app: 'local_pinned', boot_config: 'manual_only' } });
  t.match((await s.json('GET', '/addons/local_pinned/info')).body.data, { boot: 'manual', boot_config: 'manual_only', watchdog: false }, 'nothing applied');
  t.equal((await s.json('POST', '/addons/local_pinned/uninstall')).status, 200);
});
