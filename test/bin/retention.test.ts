// Retention prunes old history but never the current state; restarts restore from snapshot + tail.
import t from 'tap';
import { manualClock } from '../../actors/clock.ts';
import { startHearth } from '../../bin/instance.ts';
import { dataDirWith, onboard, api } from '../helpers/hearth.ts';

const DAY = 86_400_000;

t.test('purge_keep_days prunes history, keeps states and users', async (t) => {
  const dataDir = await dataDirWith('recorder:\n  purge_keep_days: 10\n');
  const t0 = Date.UTC(2026, 0, 1);
  const quiet = () => {};
  const first = await startHearth({ dataDir, port: 0, host: '127.0.0.1', clock: manualClock(t0, 1), log: quiet });
  const base1 = `http://127.0.0.1:${first.port}`;
  const tokens = await onboard(base1);
  const rest1 = api(base1, tokens.access_token);
  for (let i = 0; i < 5; i++) await rest1('POST', '/api/states/sensor.old', { state: String(i) });
  await first.stop();

  // eleven days later: the old writes are history past the retention
  const later = manualClock(t0 + 11 * DAY, 1);
  const second = await startHearth({ dataDir, port: 0, host: '127.0.0.1', clock: later, log: quiet });
  const removed = await second.purge();
  t.ok(removed >= 5, `old records were purged (${removed})`);
  let oldEntityRecords = 0;
  let authRecords = 0;
  for await (const r of second.log.read()) {
    if (r.stream === 'entity/sensor.old') oldEntityRecords++;
    if (r.stream.startsWith('auth/')) authRecords++;
  }
  t.equal(oldEntityRecords, 0, 'the entity history is gone from the log');
  t.ok(authRecords > 0, 'users and tokens are never pruned');
  await second.stop();

  const third = await startHearth({ dataDir, port: 0, host: '127.0.0.1', clock: manualClock(t0 + 12 * DAY, 1), log: quiet });
  t.teardown(() => third.stop());
  const base3 = `http://127.0.0.1:${third.port}`;
  const refreshed = await fetch(`${base3}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'http://127.0.0.1/' }).toString(),
  }).then((r) => r.json() as any);
  const state = await api(base3, refreshed.access_token)('GET', '/api/states/sensor.old');
  t.equal(state.json.state, '4', 'the current state survived the purge and the restart');
  t.ok(third.restore.records < 50, `the restart read a short tail after the snapshot (${third.restore.records} records)`);
});
