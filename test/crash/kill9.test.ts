// kill -9 in the middle of a burst of writes: every acknowledged write survives the restart.
import t from 'tap';
import { dataDirWith, onboard, api } from '../helpers/hearth.ts';
import { spawnHearth } from '../helpers/process.ts';

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
  second.child.kill('SIGTERM');
  t.equal(await second.exited, 0, 'SIGTERM ends Hearth cleanly');
  t.match(second.output(), /Hearth stopped/);
});
