// Backups in tests: supervisors whose core is a host process started and stopped through the
// core runtime's hook, backups made, downloaded and uploaded through the API, and what a client
// sees of a core (states, history) and of a folder (every file's hash).
import type { Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { startTestSupervisor, type TestSupervisor } from './supervisor.ts';
import { startSupervisedCore, type SupervisedCore } from './supervised-core.ts';
import { onboard, api } from './hearth.ts';
import type { CoreHostProcess } from '../../actors/supervisor/core/types.ts';
import type { SupervisorOptions } from '../../bin/supervisor-instance.ts';
import { eventually } from './wait.ts';

export const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };

/** A supervisor whose core is a host process on `<data>/core`, started and stopped through the runtime's hook. */
export async function supervisorWithCore(t: Test, options: { startCore: boolean } & Partial<SupervisorOptions>) {
  const port = await freePort();
  let core: SupervisedCore | undefined;
  const calls: string[] = [];
  let sup!: TestSupervisor;
  const hostProcess: CoreHostProcess = {
    running: async () => core !== undefined && core.process.child.exitCode === null,
    stop: async () => {
      calls.push('stop');
      await core?.stop();
      core = undefined;
    },
    start: async () => {
      calls.push('start');
      core = await startSupervisedCore(t, sup, port, join(sup.dataDir, 'core'));
    },
  };
  const { startCore, ...rest } = options;
  sup = await startTestSupervisor(t, { coreUrl: `http://127.0.0.1:${port}`, coreHostProcess: hostProcess, backupsCheck: false, bootApps: false, ...rest });
  if (startCore) core = await startSupervisedCore(t, sup, port, join(sup.dataDir, 'core'));
  return { sup, calls, core: () => core!, port };
}

/** Waits for a job to be done; answers it. */
export async function jobDone(sup: TestSupervisor, uuid: string) {
  return eventually(`job ${uuid} done`, async () => {
    const { body } = await sup.json('GET', `/jobs/${uuid}`);
    return body.data?.done === true ? body.data : undefined;
  }, 120_000);
}

export async function newBackup(t: Test, sup: TestSupervisor, body: Record<string, unknown>, kind: 'full' | 'partial' = 'full'): Promise<string> {
  const res = await sup.json('POST', `/backups/new/${kind}`, { body });
  const why = res.body?.job_id ? JSON.stringify((await sup.json('GET', `/jobs/${res.body.job_id}`)).body.data?.errors ?? []) : '';
  t.equal(res.status, 200, `backup made: ${JSON.stringify(res.body).slice(0, 200)} ${why.slice(0, 400)}`);
  return res.body.data.slug;
}

export async function download(sup: TestSupervisor, slug: string): Promise<Buffer> {
  const res = await sup.call('GET', `/backups/${slug}/download`);
  if (res.status !== 200) throw new Error(`download: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

export async function upload(sup: TestSupervisor, bytes: Buffer, filename: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), filename);
  const res = await fetch(`${sup.base}/backups/new/upload`, { method: 'POST', headers: { Authorization: `Bearer ${sup.supervisor.adminToken}` }, body: form });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
  return body.data.slug;
}

/** Every file under `dir` with its SHA-256 (what "nothing changed" compares). */
export async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir, { recursive: true }).catch(() => [] as string[])).sort()) {
    const path = join(dir, name);
    const s = await stat(path).catch(() => undefined);
    if (s?.isFile()) out[name] = createHash('sha256').update(await readFile(path)).digest('hex');
    else if (s?.isDirectory()) out[name] = 'dir';
  }
  return out;
}

/** What a client sees of the core: states (sorted), and the history of some entities. */
export async function coreView(base: string, token: string, entities: string[]) {
  const get = api(base, token);
  const states = ((await get('GET', '/api/states')).json as any[]).sort((a, b) => (a.entity_id < b.entity_id ? -1 : 1));
  const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  const history = (await get('GET', `/api/history/period/${since}?filter_entity_id=${entities.join(',')}`)).json;
  return { states, history };
}

/** Fills a core with states and history; answers the owner's tokens. */
export async function populate(base: string) {
  const tokens = await onboard(base, OWNER);
  const post = api(base, tokens.access_token);
  for (let i = 0; i < 5; i++) await post('POST', '/api/states/sensor.kitchen', { state: String(20 + i), attributes: { unit_of_measurement: '°C' } });
  await post('POST', '/api/states/light.hall', { state: 'on', attributes: { brightness: 120 } });
  return tokens;
}

/**
 * A backup as an attacker would make it, without Hearth's writer (which refuses bad metadata):
 * an outer tar with the given backup.json and inner members, each a gzipped tar of `files`,
 * written by Python's tarfile.
 */
export function craftBackup(path: string, meta: Record<string, unknown>, members: Record<string, Record<string, string>>): void {
  const script = `
import io, json, sys, tarfile
path, meta, members = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
def add(tar, name, data):
    info = tarfile.TarInfo(name); info.size = len(data); info.mode = 0o644; info.mtime = 1700000000
    tar.addfile(info, io.BytesIO(data))
with tarfile.open(path, 'w') as outer:
    for member, files in members.items():
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w:gz') as inner:
            for name, text in files.items(): add(inner, name, text.encode())
        add(outer, member, buf.getvalue())
    add(outer, './backup.json', json.dumps(meta).encode())
`;
  execFileSync('python3', ['-c', script, path, JSON.stringify(meta), JSON.stringify(members)]);
}
