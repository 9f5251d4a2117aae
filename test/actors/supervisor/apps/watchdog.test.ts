// The stdin logger on the real engine: lines written to its stdin land in its log; killed
// behind the supervisor's back it is restarted by the watchdog (when on) and keeps reading.
import t from 'tap';
import { createActor } from 'xstate';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix, appRecords, docker } from '../../../helpers/apps.ts';
import { appMachine } from '../../../../machines/app.machine.ts';
import { eventually } from '../../../helpers/wait.ts';

const LOGGER = 'core_hearth_stdin_logger';

t.test('the app machine: the original\'s states and what moves between them', async (t) => {
  const m = createActor(appMachine).start();
  t.equal(m.getSnapshot().value, 'unknown');
  m.send({ type: 'installed' });
  t.equal(m.getSnapshot().value, 'stopped');
  m.send({ type: 'start' });
  t.equal(m.getSnapshot().value, 'starting');
  m.send({ type: 'running', healthy: false });
  t.equal(m.getSnapshot().value, 'startup', 'a healthcheck not passed yet');
  m.send({ type: 'healthy' });
  t.equal(m.getSnapshot().value, 'started');
  m.send({ type: 'died', exitCode: 137 });
  t.equal(m.getSnapshot().value, 'error', 'a non-zero exit is an error');
  m.send({ type: 'start' });
  m.send({ type: 'running', healthy: true });
  m.send({ type: 'died', exitCode: 0 });
  t.equal(m.getSnapshot().value, 'stopped', 'exit code 0 is a stop');
  m.send({ type: 'uninstalled' });
  t.equal(m.getSnapshot().value, 'unknown');
});

t.test('stdin reaches the app; a killed app is restarted by its watchdog', async (t) => {
  const prefix = appPrefix(t, 'stdin');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix });
  const container = `${prefix}${LOGGER}`;
  t.equal((await s.json('POST', `/store/addons/${LOGGER}/install`)).status, 200);

  const notRunning = await s.json('POST', `/addons/${LOGGER}/stdin`, { body: 'hello' });
  t.equal(notRunning.status, 400);
  t.same(notRunning.body, { result: 'error', message: `App ${LOGGER} is not running`, error_key: 'app_not_running_error', extra_fields: { app: LOGGER } });

  t.same((await s.json('POST', `/addons/${LOGGER}/options`, { body: { watchdog: true } })).body, { result: 'ok', data: {} });
  t.equal((await s.json('GET', `/addons/${LOGGER}/info`)).body.data.watchdog, true);
  t.same((await s.json('POST', `/addons/${LOGGER}/start`)).body, { result: 'ok', data: {} });
  t.equal((await s.json('GET', `/addons/${LOGGER}/info`)).body.data.stdin, true);

  t.same((await s.json('POST', `/addons/${LOGGER}/stdin`, { body: 'first line', headers: { 'Content-Type': 'text/plain' } })).body, { result: 'ok', data: {} });
  await eventually('the first line in the logs', async () => (await (await s.call('GET', `/addons/${LOGGER}/logs`)).text()).includes('stdin: first line'), 60_000);
  t.pass('the line is in the log');

  await docker('kill', container);
  const restart = await eventually('watchdog_restart recorded', async () => (await appRecords(s.supervisor.log, LOGGER)).find((r) => r.type === 'watchdog_restart'), 60_000);
  t.ok(restart, 'restarted by the watchdog');
  const types = (await appRecords(s.supervisor.log, LOGGER)).map((r) => r.type);
  t.ok(types.indexOf('app_crashed') >= 0 && types.indexOf('app_crashed') < types.indexOf('watchdog_restart'), 'crashed, then restarted');
  t.match((await appRecords(s.supervisor.log, LOGGER)).find((r) => r.type === 'app_crashed')?.data, { exit_code: 137, container });
  t.equal(JSON.parse(await docker('inspect', container))[0].State.Running, true);
  await eventually('the app started again', async () => (await s.json('GET', `/addons/${LOGGER}/info`)).body.data.state === 'started', 60_000);
  t.ok(s.lines.some((l) => l.includes(`app ${LOGGER}: its container died with exit code 137`)), 'a log line tells the crash');

  t.same((await s.json('POST', `/addons/${LOGGER}/stdin`, { body: 'after the restart' })).body, { result: 'ok', data: {} });
  await eventually('the line after the restart', async () => (await (await s.call('GET', `/addons/${LOGGER}/logs`)).text()).includes('stdin: after the restart'), 60_000);
  t.pass('the restarted app reads its stdin');

  // stopped on purpose: no crash; then killed with the watchdog off: a crash, no restart
  t.equal((await s.json('POST', `/addons/${LOGGER}/stop`)).status, 200);
  t.equal((await s.json('POST', `/addons/${LOGGER}/options`, { body: { watchdog: false } })).status, 200);
  t.equal((await s.json('POST', `/addons/${LOGGER}/start`)).status, 200);
  await docker('kill', container);
  await eventually('a second app_crashed', async () => (await appRecords(s.supervisor.log, LOGGER)).filter((r) => r.type === 'app_crashed').length === 2, 60_000);
  await eventually('the app in error', async () => (await s.json('GET', `/addons/${LOGGER}/info`)).body.data.state === 'error', 60_000);
  t.equal((await appRecords(s.supervisor.log, LOGGER)).filter((r) => r.type === 'watchdog_restart').length, 1, 'no second restart');
  t.equal(JSON.parse(await docker('inspect', container))[0].State.Running, false);
  const jobs = (await s.json('GET', '/jobs/info')).body.data.jobs;
  t.notOk(jobs.some((j: any) => j.name === 'app_restart_after_problem'), 'the watchdog job is internal');

  t.same((await s.json('POST', `/addons/${LOGGER}/uninstall`)).body, { result: 'ok', data: {} });
});

t.test('an app without stdin refuses a write', async (t) => {
  const prefix = appPrefix(t, 'nostdin');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix });
  t.equal((await s.json('POST', '/store/addons/core_hearth_echo/install')).status, 200);
  const refused = await s.json('POST', '/addons/core_hearth_echo/stdin', { body: 'x' });
  t.equal(refused.status, 400);
  t.same(refused.body, { result: 'error', message: 'App core_hearth_echo does not support writing to stdin', error_key: 'app_not_supported_write_stdin_error', extra_fields: { app: 'core_hearth_echo' } });
  t.equal((await s.json('POST', '/addons/core_hearth_echo/uninstall')).status, 200);
});
