import t from 'tap';
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { CHANNELS, DEFAULT_UPDATER_SOURCE, parseChannelDocument } from '../../../../actors/supervisor/updater/updater.ts';
import { CORE_VERSION, SUPERVISOR_VERSION } from '../../../../actors/version.ts';
import { manualClock } from '../../../../actors/clock.ts';
import { spawnHearth } from '../../../helpers/process.ts';
import { startSupervisor } from '../../../../bin/supervisor-instance.ts';

const ctx = { id: 'test', parent_id: null, user_id: null };
/** The core as installed, and (for the CLI's supervisors) not started at boot: no container runs in these tests. */
async function installCore(dataDir: string): Promise<void> {
  const s = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, bootCore: false });
  await s.settings.section('core', { version: null as string | null, boot: true }).set({ version: CORE_VERSION, boot: false }, ctx);
  await s.stop();
}

t.test('the shipped channel documents hold this Hearth\'s versions', async (t) => {
  for (const channel of CHANNELS) {
    const text = await readFile(DEFAULT_UPDATER_SOURCE.replace('{channel}', channel), 'utf8');
    t.match(parseChannelDocument(text, channel, 'generic-x86-64'), { core: CORE_VERSION, supervisor: SUPERVISOR_VERSION, os: null }, channel);
  }
});

t.test('channel documents: what is read and what is refused', async (t) => {
  const doc = (overrides: Record<string, unknown>) => JSON.stringify({ channel: 'beta', supervisor: '2026.12.0', core: { default: '2026.12.1' }, ...overrides });
  t.match(parseChannelDocument(doc({}), 'beta', 'generic-aarch64'), { core: '2026.12.1', supervisor: '2026.12.0', os: null, cli: null });
  t.match(parseChannelDocument(doc({ core: { default: '1.0', 'generic-aarch64': '2.0' } }), 'beta', 'generic-aarch64'), { core: '2.0' }, 'the machine\'s own entry wins');
  t.match(parseChannelDocument(doc({ os: { 'generic-aarch64': '17.1' }, dns: '2026.01.0' }), 'beta', 'generic-aarch64'), { os: '17.1', dns: '2026.01.0' });
  const refused: [string, RegExp][] = [
    ['[]', /not a JSON object/],
    ['null', /not a JSON object/],
    [doc({ channel: 'stable' }), /channel is "stable", expected "beta"/],
    [doc({ supervisor: 7 }), /`supervisor` must be a version string/],
    [doc({ core: { 'generic-x86-64': '1.0' } }), /no version for machine "generic-aarch64" nor a `default`/],
    [doc({ core: ['1.0'] }), /`core` must be a map/],
    [doc({ os: '17.0' }), /`os` must be a map/],
    [doc({ cli: {} }), /`cli` must be a version string/],
    ['{"channel":', /^Can't parse versions: /],
  ];
  for (const [text, why] of refused) t.throws(() => parseChannelDocument(text, 'beta', 'generic-aarch64'), why, text);
});

t.test('an http(s) source with {channel}; a channel change reads that channel\'s document; each channel keeps its versions', async (t) => {
  const docs: Record<string, string> = {
    stable: JSON.stringify({ channel: 'stable', supervisor: SUPERVISOR_VERSION, core: { default: '2099.5.0' } }),
    beta: JSON.stringify({ channel: 'beta', supervisor: SUPERVISOR_VERSION, core: { default: '2099.6.0b1' } }),
  };
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url!);
    const channel = /^\/v\/(\w+)\.json$/.exec(req.url!)?.[1] ?? '';
    if (!docs[channel]) return void res.writeHead(404).end('no');
    res.writeHead(200, { 'content-type': 'application/json' }).end(docs[channel]);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v/{channel}.json`;
  const clock = manualClock(Date.now(), 1);
  const s = await startTestSupervisor(t, { updaterUrl: url, clock });
  await s.supervisor.settings.section('core', { version: null as string | null }).set({ version: CORE_VERSION }, ctx);
  // a remote document is read in the background at start; reading again now is throttled, so wait for it through a forced read
  await s.supervisor.updater.reload({ force: true });
  const latest = async () => (await s.json('GET', '/available_updates')).body.data.available_updates.map((u: any) => `${u.update_type} ${u.version_latest}`);
  t.same(await latest(), ['core 2099.5.0']);

  t.equal((await s.json('POST', '/supervisor/options', { body: { channel: 'beta' } })).status, 200);
  t.same(await latest(), ['core 2099.6.0b1']);
  t.same(asked.slice(-1), ['/v/beta.json']);
  t.equal((await s.json('GET', '/info')).body.data.channel, 'beta');

  // dev has no document on this server: the channel changes, its versions stay unknown
  t.equal((await s.json('POST', '/supervisor/options', { body: { channel: 'dev' } })).status, 200);
  t.same(await latest(), []);
  t.equal((await s.json('GET', '/supervisor/info')).body.data.version_latest, null);
  clock.advance(31_000);
  const failed = await s.json('POST', '/reload_updates');
  t.equal(failed.status, 400);
  t.match(failed.body.message, /^Can't fetch versions from http:.*\/v\/dev\.json: HTTP 404$/);

  t.equal((await s.json('POST', '/supervisor/options', { body: { channel: 'stable' } })).status, 200);
  t.same(await latest(), ['core 2099.5.0']);
  const streams = [];
  for await (const r of s.supervisor.log.readStreams('supervisor/updater/')) streams.push(`${r.stream} ${r.data.versions.core}`);
  t.same(streams, ['supervisor/updater/stable 2099.5.0', 'supervisor/updater/beta 2099.6.0b1'], 'a document read again with the same versions is not recorded again');
});

t.test('each read of the channel document runs as job updater_fetch_data', async (t) => {
  const dir = await supervisorDataDir();
  const file = join(dir, '{channel}.json');
  await writeFile(join(dir, 'stable.json'), JSON.stringify({ channel: 'stable', supervisor: SUPERVISOR_VERSION, core: { default: CORE_VERSION } }));
  const s = await startTestSupervisor(t, { updaterUrl: file });
  const fetches = async () => {
    await s.supervisor.jobs.flush();
    const found: string[] = [];
    for await (const r of s.supervisor.log.readStreams('job/')) if (r.type === 'job_created' && JSON.stringify(r.data).includes('updater_fetch_data')) found.push(r.stream);
    return found;
  };
  const atStart = (await fetches()).length;
  t.equal(atStart, 1, 'the read at start ran as a job');
  t.same((await s.json('POST', '/supervisor/reload')).status, 200, 'the read at start happened less than 30 s ago: no read');
  t.equal((await fetches()).length, atStart);
  await s.supervisor.updater.reload({ force: true });
  t.equal((await fetches()).length, atStart + 1);
});

t.test('hearth supervisor --updater: a relative path is kept absolute; `default` goes back to the shipped documents', async (t) => {
  const dataDir = await supervisorDataDir();
  await writeFile(join(dataDir, 'mine-stable.json'), JSON.stringify({ channel: 'stable', supervisor: SUPERVISOR_VERSION, core: { default: '2099.7.0' } }));
  await installCore(dataDir);
  const first = await spawnHearth(['supervisor', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--updater', 'mine-{channel}.json'], {}, dataDir);
  const token = (await readFile(join(dataDir, 'admin.token'), 'utf8')).trim();
  const updates = async (base: string) => (await (await fetch(`${base}/available_updates`, { headers: { Authorization: `Bearer ${token}` } })).json()).data.available_updates;
  t.same(await updates(first.base), [{ update_type: 'core', panel_path: '/update-available/core', version_latest: '2099.7.0' }]);
  first.child.kill('SIGTERM');
  await first.exited;
  const second = await spawnHearth(['supervisor', '--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  t.same(await updates(second.base), [{ update_type: 'core', panel_path: '/update-available/core', version_latest: '2099.7.0' }], 'kept, from another directory');
  second.child.kill('SIGTERM');
  await second.exited;
  const third = await spawnHearth(['supervisor', '--port', '0', '--host', '127.0.0.1', '--data', dataDir], { HEARTH_SUPERVISOR_UPDATER: 'default' });
  t.teardown(() => third.child.kill('SIGTERM'));
  t.same(await updates(third.base), []);
});
