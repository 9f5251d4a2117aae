// The registries are records: a restart (from a snapshot, or from the log alone) brings back
// every entry, and retention never prunes them.
import t from 'tap';
import { join } from 'node:path';
import { manualClock } from '../../actors/clock.ts';
import { startHearth, type Hearth } from '../../bin/instance.ts';
import { openEventLog } from '../../store/log.ts';
import { dataDirWith, onboard } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { sorting } from '../helpers/ws-sorting.ts';

const DAY = 86_400_000;
const CONFIG = 'recorder:\n  purge_keep_days: 10\ninput_boolean:\n  porch:\n    name: Porch\n';

/** What every list command answers: the registries as a client sees them. */
async function everything(hearth: Hearth, token: string) {
  const c = await authedClient(`http://127.0.0.1:${hearth.port}`, token);
  const { ask } = sorting(c);
  const out: Record<string, unknown> = {};
  for (const kind of ['area', 'floor', 'label', 'device', 'entity']) out[kind] = (await ask({ type: `config/${kind}_registry/list` })).result;
  c.ws.close();
  return out;
}

async function refreshed(hearth: Hearth, refreshToken: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${hearth.port}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'http://127.0.0.1/' }).toString(),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

t.test('a restart keeps the registries, from a snapshot or from the log alone', async (t) => {
  const dataDir = await dataDirWith(CONFIG);
  const t0 = Date.UTC(2026, 0, 1);
  const lines: string[] = [];
  const start = (at: number) => startHearth({ dataDir, port: 0, host: '127.0.0.1', clock: manualClock(at, 1), log: (l) => lines.push(l) });

  const first = await start(t0);
  const tokens = await onboard(`http://127.0.0.1:${first.port}`);
  const c = await authedClient(`http://127.0.0.1:${first.port}`, tokens.access_token);
  const { ask } = sorting(c);
  await ask({ type: 'config/floor_registry/create', name: 'Ground', level: 0 });
  await ask({ type: 'config/label_registry/create', name: 'Outside', color: 'green' });
  await ask({ type: 'config/area_registry/create', name: 'Garden', floor_id: 'ground', labels: ['outside'], aliases: ['yard'] });
  await ask({ type: 'config/area_registry/create', name: 'Shed' });
  await ask({ type: 'config/area_registry/delete', area_id: 'shed' });
  const reg = first.registries;
  const hub = await reg.ensureDevice({ identifiers: [['virtual', 'hub']], name: 'Hub', config_entry_id: 'e1' });
  const gone = await reg.ensureDevice({ identifiers: [['virtual', 'gone']], name: 'Gone' });
  await ask({ type: 'config/device_registry/update', device_id: gone.id, name_by_user: 'Old one' });
  await reg.removeDevice(gone.id);
  await ask({ type: 'config/device_registry/update', device_id: hub.id, area_id: 'garden', labels: ['outside'] });
  const pump = await reg.ensureEntity({ entity_id: 'switch.relay', unique_id: 'r1', platform: 'virtual', device_id: hub.id });
  await ask({ type: 'config/entity_registry/update', entity_id: 'switch.relay', new_entity_id: 'switch.pump', name: 'Pump' });
  await ask({ type: 'config/entity_registry/update', entity_id: 'switch.pump', new_entity_id: 'switch.relay' });
  await ask({ type: 'config/entity_registry/update', entity_id: 'switch.relay', new_entity_id: 'switch.pump' });
  const dropped = await reg.ensureEntity({ entity_id: 'switch.dropped', unique_id: 'd1', platform: 'virtual' });
  await ask({ type: 'config/entity_registry/remove', entity_id: 'switch.dropped' });
  await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.porch', area_id: 'garden', aliases: ['stoop'] });
  c.ws.close();
  const before = await everything(first, tokens.access_token);
  t.same((before.entity as any[]).map((e) => e.entity_id), ['input_boolean.porch', 'switch.pump']);
  await first.stop();

  // from the snapshot taken at stop
  const second = await start(t0 + DAY);
  t.same(await everything(second, await refreshed(second, tokens.refresh_token)), before, 'every entry, as it was');
  await second.stop();

  // from the log alone: a snapshot of another format is not read
  const log = await openEventLog({ path: join(dataDir, 'log') });
  const snap = await log.loadSnapshot('registries');
  t.ok(snap, 'the registries have a snapshot');
  await log.saveSnapshot('registries', { ...snap!, version: 0 });
  await log.close();
  const third = await start(t0 + 2 * DAY);
  t.ok(lines.some((l) => l.includes('snapshot of registries has format 0, expected 1: replaying its log instead')));
  t.same(await everything(third, await refreshed(third, tokens.refresh_token)), before, 'the last record of each stream holds its entry');
  t.equal(third.registries.getEntity('switch.pump')!.id, pump.id);
  await third.stop();

  // eleven days on, retention prunes history but no registry record
  const fourth = await start(t0 + 11 * DAY);
  t.teardown(() => fourth.stop());
  let registryRecords = 0;
  for await (const r of fourth.log.read()) if (r.stream.startsWith('registry/')) registryRecords++;
  t.ok((await fourth.purge()) > 0, 'old history was purged');
  let after = 0;
  for await (const r of fourth.log.read()) if (r.stream.startsWith('registry/')) after++;
  t.equal(after, registryRecords, 'registry records are never pruned');
  t.same(await everything(fourth, await refreshed(fourth, tokens.refresh_token)), before);
  const back = await fourth.registries.ensureDevice({ identifiers: [['virtual', 'gone']] });
  t.same([back.id, back.name_by_user], [gone.id, 'Old one'], 'removed devices are remembered');
  const again = await fourth.registries.ensureEntity({ entity_id: 'switch.dropped', unique_id: 'd1', platform: 'virtual' });
  t.equal(again.id, dropped.id, 'and removed entities');
  t.equal(fourth.registries.getEntity('switch.pump')!.id, pump.id);
});
