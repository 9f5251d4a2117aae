// A supervisor killed (SIGKILL) while it writes a backup: the next start lists no backup, leaves
// no `.tar` and no `.tar.partial` behind, and says so with a resolution-center issue.
import t from 'tap';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { freePort } from '../../../helpers/ports.ts';
import { eventually } from '../../../helpers/wait.ts';

const BIN = fileURLToPath(new URL('../../../../bin/hearth.js', import.meta.url));

t.test('a backup cut short by a kill leaves no visible file and an issue', async (t) => {
  const dataDir = await supervisorDataDir();
  await mkdir(join(dataDir, 'share'), { recursive: true });
  // enough data that the kill lands while the file is being written
  for (let i = 0; i < 40; i++) await writeFile(join(dataDir, 'share', `blob-${i}.bin`), randomBytes(8 * 1024 * 1024));
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'supervisor', '--port', String(port), '--host', '127.0.0.1', '--data', dataDir, '--docker-socket', '/nonexistent/docker.sock'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.on('exit', r));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const base = `http://127.0.0.1:${port}`;
  await eventually('the supervisor answers', async () => (await fetch(`${base}/supervisor/ping`).catch(() => undefined))?.status === 200, 60_000);
  const token = (await readFile(join(dataDir, 'admin.token'), 'utf8')).trim();
  const res = await fetch(`${base}/backups/new/partial`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ folders: ['share'], background: true }) });
  const body = (await res.json()) as any;
  t.match(body, { result: 'ok', data: { job_id: /^[0-9a-f]{32}$/ } });
  const dir = join(dataDir, 'backup');
  await eventually('the partial file is being written', async () => (await readdir(dir).catch(() => [] as string[])).some((n) => n.endsWith('.tar.partial')));
  child.kill('SIGKILL');
  await exited;
  t.notOk((await readdir(dir)).some((n) => n.endsWith('.tar')), 'no finished-looking file');

  const s = await startTestSupervisor(t, { dataDir });
  t.same((await s.json('GET', '/backups')).body.data.backups, []);
  t.same(await readdir(dir), [], 'the partial file is gone');
  const issues = (await s.json('GET', '/resolution/info')).body.data.issues;
  t.ok(issues.some((i: any) => i.type === 'fatal_error' && i.context === 'system' && /\.tar\.partial$/.test(i.reference)), JSON.stringify(issues));
});
