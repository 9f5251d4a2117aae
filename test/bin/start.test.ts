// Starting Hearth as a user does: the command, its options, its log line, its clean exit.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDirWith, onboard, api } from '../helpers/hearth.ts';
import { runToExit, spawnHearth } from '../helpers/process.ts';


t.test('starts, says where it listens, and SIGINT flushes and exits 0', async (t) => {
  const dataDir = await dataDirWith();
  const p = await spawnHearth(['--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  t.match(p.output(), /Hearth listening on http:\/\/127\.0\.0\.1:\d+ \(data in /);
  const tokens = await onboard(p.base);
  const rest = api(p.base, tokens.access_token);
  t.equal((await rest('POST', '/api/states/sensor.kept', { state: 'yes' })).status, 201);
  p.child.kill('SIGINT');
  t.equal(await p.exited, 0);
  t.match(p.output(), /Hearth stopped; the log is flushed/);

  // the same data directory, chosen through the environment this time
  const again = await spawnHearth(['--host', '127.0.0.1'], { HEARTH_PORT: '0', HEARTH_DATA: dataDir });
  t.teardown(() => again.child.kill('SIGKILL'));
  const login = await fetch(`${again.base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'http://127.0.0.1/' }).toString(),
  }).then((r) => r.json() as any);
  const state = await api(again.base, login.access_token)('GET', '/api/states/sensor.kept');
  t.equal(state.json.state, 'yes', 'the state is there after the restart');
  again.child.kill('SIGTERM');
  t.equal(await again.exited, 0);
});

t.test('bad input to the command is a clear error', async (t) => {
  const badPort = await runToExit(['--port', 'abc', '--data', await dataDirWith()]);
  t.equal(badPort.code, 1);
  t.match(badPort.out, /invalid port "abc"/);
  const dir = await dataDirWith();
  await writeFile(join(dir, 'configuration.yaml'), 'recorder:\n  purge_keep_days: zero\n');
  const badConfig = await runToExit(['--port', '0', '--data', dir]);
  t.equal(badConfig.code, 1);
  t.match(badConfig.out, /purge_keep_days must be an integer/);
  const secretDir = await dataDirWith('core:\n  name: !secret home_name\n');
  const missingSecret = await runToExit(['--port', '0', '--data', secretDir]);
  t.equal(missingSecret.code, 1);
  t.match(missingSecret.out, /secret 'home_name' is not defined in secrets.yaml/);
  const unknown = await runToExit(['frobnicate']);
  t.equal(unknown.code, 2);
  t.match(unknown.out, /unknown command "frobnicate"/);
});

t.test('configuration.yaml with secrets sets the core config and helpers', async (t) => {
  const dir = await dataDirWith('core:\n  name: !secret home_name\n  unit_system: us_customary\ninput_number:\n  volume:\n    min: 0\n    max: 10\n');
  await writeFile(join(dir, 'secrets.yaml'), 'home_name: Lighthouse\n');
  const p = await spawnHearth(['--port', '0', '--host', '127.0.0.1', '--data', dir]);
  t.teardown(() => p.child.kill('SIGKILL'));
  const tokens = await onboard(p.base);
  const config = (await api(p.base, tokens.access_token)('GET', '/api/config')).json;
  t.equal(config.location_name, 'Lighthouse');
  t.equal(config.unit_system.temperature, '°F');
  t.equal(config.config_source, 'yaml');
  t.ok(config.components.includes('input_number'));
  const volume = (await api(p.base, tokens.access_token)('GET', '/api/states/input_number.volume')).json;
  t.equal(volume.attributes.max, 10);
});
