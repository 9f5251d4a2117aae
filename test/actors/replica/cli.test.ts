// `hearth replica` as a user starts it: bad options refused by name, a replica that serves and
// stops cleanly on SIGINT.
import t from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToExit, spawnHearth } from '../../helpers/process.ts';
import { api, onboard, startTestHearth } from '../../helpers/hearth.ts';
import { natsFor } from '../../helpers/nats.ts';
import { eventually } from '../../helpers/wait.ts';

t.test('bad options are refused, naming the problem', async (t) => {
  const none = await runToExit(['replica', '--port', '0'], { HEARTH_REPLICA_NATS: '' });
  t.equal(none.code, 1);
  t.match(none.out, /give the NATS server to follow: --nats nats:\/\/host:4222/);
  const stream = await runToExit(['replica', '--nats', 'nats://127.0.0.1:1', '--stream', 'a.b']);
  t.equal(stream.code, 1);
  t.match(stream.out, /invalid stream name "a\.b": letters, digits, _ and - only/);
  const port = await runToExit(['replica', '--nats', 'nats://127.0.0.1:1', '--port', 'abc']);
  t.equal(port.code, 1);
  t.match(port.out, /invalid port "abc"/);
  const help = await runToExit(['replica', '--help']);
  t.equal(help.code, 0);
  t.match(help.out, /usage: hearth replica --nats URL/);
});

t.test('hearth replica serves the primary\'s states and exits 0 on SIGINT', async (t) => {
  const nats = await natsFor(t);
  const primary = await startTestHearth(t, { config: `recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:${nats.port}]\n` });
  const tokens = await onboard(primary.base);
  await api(primary.base, tokens.access_token)('POST', '/api/states/sensor.cli', { state: 'here' });
  const dataDir = await mkdtemp(join(tmpdir(), 'hearth-replica-cli-'));
  const p = await spawnHearth(['replica', '--nats', `nats://127.0.0.1:${nats.port}`, '--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  t.teardown(() => p.child.kill('SIGKILL'));
  t.match(p.output(), /Replica listening on http:\/\/127\.0\.0\.1:\d+ \(stream hearth at nats:\/\/127\.0\.0\.1:\d+; data in /);
  const rest = api(p.base, tokens.access_token);
  await eventually('the replica to serve sensor.cli', async () => (await rest('GET', '/api/states/sensor.cli')).json?.state === 'here');
  p.child.kill('SIGINT');
  t.equal(await p.exited, 0);
});
