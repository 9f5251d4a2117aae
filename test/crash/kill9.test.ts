// kill -9 in the middle of a burst of writes: every acknowledged write survives the restart.
import t from 'tap';
import { dataDirWith, onboard, api } from '../helpers/hearth.ts';
import { spawnHearth } from '../helpers/process.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/hearth.js', import.meta.url));

t.test('acknowledged writes survive kill -9', async (t) => {
  const dataDir = await dataDirWith();
  const first = await spawnHearth(['--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  const tokens = await onboard(first.base);
  const rest = api(first.base, tokens.access_token);

  const acked = new Map<string, string>();
  let stop = false;
  const writer = async (w: number) => {
    for (let n = 0; !stop; n++) {
      const id = `sensor.burst_${w}`;
      try {
        const res = await rest('POST', `/api/states/${id}`, { state: String(n), attributes: { writer: w } });
        if (res.status === 200 || res.status === 201) acked.set(id, String(n));
      } catch {
        return; // the server died under us
      }
    }
  };
  const writers = Array.from({ length: 16 }, (_, w) => writer(w));
  await new Promise((r) => setTimeout(r, 700));
  first.child.kill('SIGKILL');
  stop = true;
  await Promise.all(writers);
  await first.exited;
  t.ok(acked.size > 0, `writes were acknowledged before the kill (${acked.size} entities)`);

  const second = await spawnHearth(['--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  t.teardown(() => second.child.kill('SIGKILL'));
  const tokens2 = await fetch(`${second.base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'http://127.0.0.1/' }).toString(),
  }).then((r) => r.json() as any);
  t.ok(tokens2.access_token, 'the refresh token survived too');
  const rest2 = api(second.base, tokens2.access_token);
  const states = (await rest2('GET', '/api/states')).json as any[];
  const byId = new Map(states.map((s) => [s.entity_id, s]));
  let missing = 0;
  for (const [id, n] of acked) {
    const s = byId.get(id);
    // a later write may have committed without its answer reaching us; never an earlier one
    if (!s || Number(s.state) < Number(n)) missing++;
  }
  t.equal(missing, 0, 'no acknowledged write is lost');

  // the history of one entity, read through the running instance's log socket
  const [someId, someValue] = [...acked][0];
  const { stdout } = await run(process.execPath, [BIN, 'replay', '--data', dataDir, '--entity', someId, '--type', 'state_changed', '--format', 'json']);
  const history = stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.ok(history.length >= Number(someValue) + 1, `hearth replay shows every change of ${someId} (${history.length})`);
  t.same(history.slice(0, Number(someValue) + 1).map((r) => r.data.new_state.state), Array.from({ length: Number(someValue) + 1 }, (_, i) => String(i)));
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'SIGTERM ends Hearth cleanly');
  t.match(second.output(), /Hearth stopped/);
});
