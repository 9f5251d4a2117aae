// The echo app through its whole life on the real engine: installed from the built-in
// repository, its options refused and set, started (its options in /data/options.json, its
// token and SUPERVISOR in the environment), its logs and stats, stopped, uninstalled with and
// without its public config folder. Both trees answer.
import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, startTestSupervisorWithV2 } from '../../../helpers/supervisor.ts';
import { appPrefix, appRecords, docker } from '../../../helpers/apps.ts';
import { eventually } from '../../../helpers/wait.ts';

const ECHO = 'core_hearth_echo';

t.test('install, options, start, logs, stats, stop and uninstall of the echo app on both trees', async (t) => {
  const prefix = appPrefix(t, 'life');
  const s = await startTestSupervisorWithV2(t, { appContainerPrefix: prefix, host: '0.0.0.0' });
  const container = `${prefix}${ECHO}`;

  // not installed yet: v1 shows the store's record, v2 refuses
  const before = await s.json('GET', `/addons/${ECHO}/info`);
  t.equal(before.status, 200);
  t.match(before.body.data, { slug: ECHO, state: 'unknown', version: null, installed: false, options: { greeting: 'Hello from Hearth' } });
  t.same((await s.json('GET', `/v2/apps/${ECHO}/info`)).body, { result: 'error', message: 'App is not installed' });
  t.same((await s.json('POST', `/addons/${ECHO}/start`)).body, { result: 'error', message: 'App is not installed' });
  t.equal((await s.json('GET', '/addons/core_nope/info')).status, 404);
  t.same((await s.json('GET', '/addons/core_nope/info')).body, { result: 'error', message: 'App core_nope does not exist' });

  const installed = await s.json('POST', `/store/addons/${ECHO}/install`);
  t.same(installed.body, { result: 'ok', data: {} }, 'installed');
  const again = await s.json('POST', `/addons/${ECHO}/install`);
  t.equal(again.status, 400);
  t.same(again.body, { result: 'error', message: 'App Echo is already installed', error_key: 'app_already_installed_error', extra_fields: { app: 'Echo', slug: ECHO } });
  t.match((await appRecords(s.supervisor.log, ECHO)).map((r) => r.type), ['app_installed']);
  t.ok(existsSync(join(s.dataDir, 'apps', 'data', ECHO)), 'its data folder');

  const info = (await s.json('GET', `/addons/${ECHO}/info`)).body.data;
  // supervisor-wire §8.8, in order; v1 adds `advanced`
  const v2Keys = 'name slug hostname dns description long_description stage repository version_latest protected rating boot_config boot options schema arch machine homeassistant core url detached available build network network_description host_network host_pid host_ipc host_uts host_dbus privileged full_access apparmor icon logo changelog documentation stdin hassio_api supervisor_api hassio_role supervisor_role auth_api homeassistant_api core_api gpio usb uart kernel_modules devicetree udev docker_api video audio startup services discovery translations ingress signed state webui ingress_entry ingress_url ingress_port ingress_panel audio_input audio_output auto_update ip_address version update_available watchdog devices system_managed system_managed_config_entry'.split(' ');
  t.same(Object.keys(info), [...v2Keys.slice(0, 6), 'advanced', ...v2Keys.slice(6)]);
  t.match(info, { name: 'Echo', slug: ECHO, hostname: 'core-hearth-echo', dns: ['core-hearth-echo.local.hass.io'], state: 'stopped', version: '1.0.0', version_latest: '1.0.0', update_available: false, boot: 'auto', boot_config: 'auto', protected: true, watchdog: false, ingress: true, ingress_port: 8099, build: true, detached: false, options: { greeting: 'Hello from Hearth' }, schema: [{ name: 'greeting', required: true, type: 'string' }] });
  t.match(info.ingress_entry, /^\/api\/hassio_ingress\/[A-Za-z0-9_-]{43}$/);
  const v2info = (await s.json('GET', `/v2/apps/${ECHO}/info`)).body.data;
  t.same(Object.keys(v2info), v2Keys, 'v2 has no advanced');
  t.equal(v2info.ingress_entry, info.ingress_entry);
  t.equal(Object.keys(info).length, Object.keys(v2info).length + 1);

  const v1list = (await s.json('GET', '/addons')).body.data;
  t.same(Object.keys(v1list), ['addons']);
  t.same(v1list.addons.map((a: any) => a.slug), [ECHO]);
  t.same(Object.keys(v1list.addons[0]), ['name', 'slug', 'description', 'advanced', 'stage', 'version', 'version_latest', 'update_available', 'available', 'detached', 'homeassistant', 'core', 'state', 'repository', 'build', 'url', 'icon', 'logo', 'system_managed']);
  const v2list = (await s.json('GET', '/v2/apps')).body.data;
  t.same(Object.keys(v2list), ['apps']);
  t.notOk('advanced' in v2list.apps[0]);
  t.equal(v2list.apps[0].state, 'stopped');

  // a bad option is refused with the original's message, nothing is kept
  const bad = await s.json('POST', `/addons/${ECHO}/options`, { body: { options: { greeting: true } } });
  t.equal(bad.status, 400);
  t.same(bad.body, {
    result: 'error',
    message: `App ${ECHO} has invalid options: expected str. Got {'greeting': True}`,
    error_key: 'app_configuration_invalid_error',
    extra_fields: { app: ECHO, validation_error: "expected str. Got {'greeting': True}" },
  });
  const badBody = await s.json('POST', `/addons/${ECHO}/options`, { body: { watchdog: 'sometimes' } });
  t.same(badBody.body, { result: 'error', message: "expected boolean @ data['watchdog']. Got 'sometimes'" });
  t.same((await s.json('POST', `/addons/${ECHO}/options`, { body: { colour: 'red' } })).body, { result: 'error', message: "extra keys not allowed @ data['colour']. Got 'red'" });
  t.same((await s.json('POST', `/addons/${ECHO}/options`, { body: { boot: 'sometimes' } })).body.message, "value must be one of ['auto', 'manual'] @ data['boot']. Got 'sometimes'");
  t.same((await s.json('POST', `/addons/${ECHO}/options`, { body: { network: { '8099/tcp': 70000 } } })).status, 400);
  t.equal((await s.json('GET', `/addons/${ECHO}/info`)).body.data.options.greeting, 'Hello from Hearth', 'nothing kept');

  const validate = await s.json('POST', `/addons/${ECHO}/options/validate`, { body: { greeting: 3 } });
  t.same(validate.body.data, { message: "expected str. Got {'greeting': 3}", valid: false, pwned: false });
  t.same((await s.json('POST', `/v2/apps/${ECHO}/options/validate`)).body.data, { message: '', valid: true, pwned: false }, 'the stored options are valid');

  t.same((await s.json('POST', `/addons/${ECHO}/options`, { body: { options: { greeting: 'Hi there' }, boot: 'manual' } })).body, { result: 'ok', data: {} });
  const set = (await s.json('GET', `/addons/${ECHO}/info`)).body.data;
  t.match(set, { boot: 'manual', options: { greeting: 'Hi there' } });
  t.match((await appRecords(s.supervisor.log, ECHO)).at(-1), { type: 'app_options_set' });

  // start: the options are in /data/options.json, the container is the app's
  t.same((await s.json('POST', `/addons/${ECHO}/start`)).body, { result: 'ok', data: {} });
  t.same(JSON.parse(await readFile(join(s.dataDir, 'apps', 'data', ECHO, 'options.json'), 'utf8')), { greeting: 'Hi there' });
  const inspect = JSON.parse(await docker('inspect', container))[0];
  t.equal(inspect.State.Running, true);
  t.equal(inspect.Config.Hostname, 'core-hearth-echo');
  t.equal(inspect.Config.Labels.supervisor_managed, '');
  t.equal(inspect.HostConfig.RestartPolicy.Name, 'no');
  t.ok(inspect.HostConfig.ExtraHosts.includes('supervisor:host-gateway'));
  const env = new Map<string, string>(inspect.Config.Env.map((e: string) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  t.equal(env.get('SUPERVISOR'), `http://supervisor:${s.supervisor.port}`);
  t.match(env.get('SUPERVISOR_TOKEN'), /^[0-9a-f]{112}$/);
  t.equal(env.get('HASSIO_TOKEN'), env.get('SUPERVISOR_TOKEN'));
  t.equal(env.get('TZ'), 'Etc/UTC');
  t.ok(inspect.HostConfig.Binds.includes(`${join(s.dataDir, 'apps', 'data', ECHO)}:/data:rw`));
  t.equal((await s.json('GET', `/addons/${ECHO}/info`)).body.data.state, 'started');
  t.match((await s.json('GET', `/addons/${ECHO}/info`)).body.data.ip_address, /^\d+\.\d+\.\d+\.\d+$/);
  const target = await s.supervisor.deps.apps!.ingressTarget(ECHO);
  t.match(target, { port: 8099 });
  t.equal(s.supervisor.deps.apps!.byIngressToken(info.ingress_entry.split('/').pop())?.slug, ECHO);

  // the app's own token: self routes
  const appToken = env.get('SUPERVISOR_TOKEN')!;
  t.same((await s.json('GET', '/addons/self/options/config', { token: appToken })).body, { result: 'ok', data: { greeting: 'Hi there' } });
  t.same((await s.json('GET', '/v2/apps/self/options/config', { token: appToken })).body.data, { greeting: 'Hi there' });
  t.match((await s.json('GET', '/addons/self/info', { token: appToken })).body.data, { slug: ECHO, options: { greeting: 'Hi there' } });
  t.same((await s.json('GET', `/addons/${ECHO}/options/config`)).body, { result: 'error', message: 'This can be only read by the app itself!' });
  t.equal((await s.json('GET', `/addons/${ECHO}/options/config`)).status, 403);
  t.same((await s.json('GET', '/addons/self/options/config')).body, { result: 'error', message: 'Self is not an App' });

  // logs and stats
  const logs = await eventually('the echo app serving', async () => {
    const text = await (await s.call('GET', `/addons/${ECHO}/logs`)).text();
    return text.includes('echo: serving on 8099') && text;
  }, 60_000);
  t.ok(logs, 'the app logs');
  t.match(await (await s.call('GET', `/v2/apps/${ECHO}/logs/latest`)).text(), /echo: serving on 8099/);
  const stats = await s.json('GET', `/addons/${ECHO}/stats`);
  t.equal(stats.status, 200);
  t.same(Object.keys(stats.body.data), ['cpu_percent', 'memory_usage', 'memory_limit', 'memory_percent', 'network_rx', 'network_tx', 'blk_read', 'blk_write']);
  t.ok(stats.body.data.memory_usage > 0, 'memory used');

  // restart makes the container anew; stop removes it
  const firstId = inspect.Id;
  t.same((await s.json('POST', `/v2/apps/${ECHO}/restart`)).body, { result: 'ok', data: {} });
  t.not(JSON.parse(await docker('inspect', container))[0].Id, firstId, 'a fresh container');
  t.same((await s.json('POST', `/addons/${ECHO}/stop`)).body, { result: 'ok', data: {} });
  t.equal(await docker('ps', '-a', '--filter', `name=^${container}$`, '--format', '{{.Names}}'), '', 'no container after stop');
  t.equal((await s.json('GET', `/addons/${ECHO}/info`)).body.data.state, 'stopped');
  const stopped = await s.json('GET', `/addons/${ECHO}/stats`);
  t.same(stopped.body, { result: 'error', message: `App ${ECHO} is not running`, error_key: 'app_not_running_error', extra_fields: { app: ECHO } });
  const types = (await appRecords(s.supervisor.log, ECHO)).map((r) => r.type);
  t.same(types, ['app_installed', 'app_options_set', 'app_started', 'app_stopped', 'app_started', 'app_stopped'], 'each change recorded');

  // uninstall keeps the public config folder unless asked
  const configDir = join(s.dataDir, 'app_configs', ECHO);
  await mkdir(configDir, { recursive: true });
  await writeFile(join(configDir, 'kept.txt'), 'x');
  t.same((await s.json('POST', `/addons/${ECHO}/uninstall`, { body: { remove_config: 'maybe' } })).body.message, "expected boolean @ data['remove_config']. Got 'maybe'");
  t.same((await s.json('POST', `/addons/${ECHO}/uninstall`)).body, { result: 'ok', data: {} });
  t.notOk(existsSync(join(s.dataDir, 'apps', 'data', ECHO)), 'its data folder is gone');
  t.ok(existsSync(join(configDir, 'kept.txt')), 'its config folder is kept');
  t.same((await s.json('GET', '/addons')).body.data, { addons: [] });
  t.equal((await s.json('GET', '/addons/self/options/config', { token: appToken })).status, 403, 'its token is revoked');
  t.match((await appRecords(s.supervisor.log, ECHO)).at(-1), { type: 'app_uninstalled', data: { remove_config: false } });

  // again, with remove_config
  t.equal((await s.json('POST', `/v2/store/apps/${ECHO}/install`)).status, 200);
  t.same((await s.json('POST', `/v2/apps/${ECHO}/uninstall`, { body: { remove_config: true } })).body, { result: 'ok', data: {} });
  t.notOk(existsSync(configDir), 'its config folder is gone too');
});

t.test('install in the background answers a job; unknown apps and bad bodies are refused', async (t) => {
  const prefix = appPrefix(t, 'bg');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix });
  t.same((await s.json('POST', '/store/addons/core_nope/install')).body, { result: 'error', message: 'App core_nope does not exist in the store', error_key: 'store_app_not_found_error', extra_fields: { app: 'core_nope' } });
  t.same((await s.json('POST', '/store/addons/core_hearth_echo/install', { body: { background: 'later' } })).body.message, "expected boolean @ data['background']. Got 'later'");
  t.equal((await s.json('POST', '/addons/core_nope/start')).status, 404);
  t.same((await s.json('POST', '/addons/core_nope/stdin', { body: 'x' })).body, { result: 'error', message: 'App core_nope does not exist' });
  t.equal((await s.call('GET', '/addons/core_hearth_echo/logs')).status, 400);
  t.equal(await (await s.call('GET', '/addons/core_hearth_echo/logs')).text(), 'App is not installed');
  t.equal(await (await s.call('GET', '/addons/core_nope/logs')).text(), 'App core_nope does not exist');
  t.same((await s.json('POST', '/store/addons/core_hearth_echo/update')).body, { result: 'error', message: 'App core_hearth_echo is not installed', error_key: 'app_not_installed_error', extra_fields: { slug: 'core_hearth_echo' } });

  const answer = await s.json('POST', '/store/addons/core_hearth_echo/install', { body: { background: true } });
  t.equal(answer.status, 200);
  t.match(answer.body.data, { job_id: /^[0-9a-f]{32}$/ });
  await eventually('the installed app', async () => s.supervisor.deps.apps!.get('core_hearth_echo'), 60_000);
  const jobRecords: any[] = [];
  for await (const r of s.supervisor.log.readStreams(`job/${answer.body.data.job_id}`)) jobRecords.push(r);
  t.match(jobRecords[0], { type: 'job_created', data: { name: 'app_manager_install', reference: 'core_hearth_echo' } }, 'the original\'s job name');
  t.same((await s.json('POST', '/store/addons/core_hearth_echo/update')).body.error_key, 'app_no_update_available_error');
  t.same((await s.json('POST', '/addons/core_hearth_echo/sys_options', { body: { system_managed: true } })).status, 403, 'core only');
  t.same((await s.json('POST', '/addons/core_hearth_echo/security', { body: { protected: false } })).body, { result: 'ok', data: {} });
  t.equal((await s.json('GET', '/addons/core_hearth_echo/info')).body.data.protected, false);
  t.same((await s.json('POST', '/addons/core_hearth_echo/rebuild', { body: { force: 1 } })).body, { result: 'ok', data: {} }, 'rebuilt (not running)');
  t.match((await appRecords(s.supervisor.log, 'core_hearth_echo')).map((r) => r.type), ['app_installed', 'app_security_set', 'app_rebuilt']);
  t.same((await s.json('POST', '/addons/core_hearth_echo/uninstall')).body, { result: 'ok', data: {} });
});
