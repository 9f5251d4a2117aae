// core.restart brings Hearth back on the same port with its state; core.stop ends the process.
import t from 'tap';
import { freePort } from '../helpers/ports.ts';
import { dataDirWith, onboard, api } from '../helpers/hearth.ts';
import { spawnHearth } from '../helpers/process.ts';

t.test('core.restart and core.stop', async (t) => {
  const port = await freePort();
  const p = await spawnHearth(['--port', String(port), '--host', '127.0.0.1', '--data', await dataDirWith()]);
  t.teardown(() => p.child.kill('SIGKILL'));
  const tokens = await onboard(p.base);
  const rest = api(p.base, tokens.access_token);
  await rest('POST', '/api/states/sensor.kept', { state: 'before' });

  t.equal((await rest('POST', '/api/services/core/restart', {})).status, 200);
  let back = false;
  for (let i = 0; i < 100 && !back; i++) {
    await new Promise((r) => setTimeout(r, 100));
    back = (p.output().match(/listening on/g) ?? []).length >= 2;
  }
  t.ok(back, 'Hearth listens again after the restart');
  t.match(p.output(), /Hearth restarting/);
  const after = await rest('GET', '/api/states/sensor.kept');
  t.equal(after.json.state, 'before', 'the same access token and state work after the restart');

  t.equal((await rest('POST', '/api/services/core/stop', {})).status, 200);
  t.equal(await p.exited, 0, 'core.stop ends the process cleanly');
  t.match(p.output(), /Hearth stopped; the log is flushed/);
});
