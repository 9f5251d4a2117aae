// `hearth supervisor tokens` as an operator runs it: the real command on a stopped supervisor's data.
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startTestSupervisor, supervisorDataDir } from '../helpers/supervisor.ts';

const BIN = fileURLToPath(new URL('../../bin/hearth.js', import.meta.url));

function tokensCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'supervisor', 'tokens', ...args]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

t.test('add, list and revoke tokens with a role; each token reaches what its role may', async (t) => {
  const dataDir = await supervisorDataDir();
  const running = await startTestSupervisor(t, { dataDir, dockerSocket: '/nonexistent/docker.sock' });
  const locked = await tokensCli(['list', '--data', dataDir]);
  t.equal(locked.code, 1, 'refused while the supervisor runs');
  t.match(locked.err, /the supervisor is running on .* Stop it first/);
  await running.supervisor.stop();

  const manager = await tokensCli(['add', 'ci', '--role', 'manager', '--data', dataDir]);
  t.equal(manager.code, 0, manager.err);
  t.match(manager.out, /^[0-9a-f]{112}\n$/);
  const reader = await tokensCli(['add', 'dashboard', '--role', 'default', '--data', dataDir]);
  const bad = await tokensCli(['add', 'x', '--role', 'root', '--data', dataDir]);
  t.equal(bad.code, 2);
  t.match(bad.err, /give --role, one of default, core, backup, manager, admin/);
  const list = await tokensCli(['list', '--data', dataDir]);
  t.match(list.out, /operator +admin +operator\n/);
  t.match(list.out, /app +manager +ci\n/);
  t.notMatch(list.out, manager.out.trim(), 'list never prints a token');

  const s = await startTestSupervisor(t, { dataDir, dockerSocket: '/nonexistent/docker.sock' });
  const m = manager.out.trim();
  const d = reader.out.trim();
  t.equal((await s.call('POST', '/jobs/reset', { token: m })).status, 200, 'manager may reset jobs');
  t.equal((await s.call('GET', '/jobs/info', { token: d })).status, 200, 'default reads info paths');
  const refused = await s.call('POST', '/jobs/reset', { token: d });
  t.equal(refused.status, 403);
  t.equal(await refused.text(), '403: Forbidden');
  const variants: Record<string, string>[] = [{ 'X-Supervisor-Token': m }, { 'X-Hassio-Key': m }, { Authorization: `Bearer ${m}` }];
  for (const headers of variants) {
    t.equal((await s.call('POST', '/jobs/reset', { token: null, headers })).status, 200, Object.keys(headers)[0]);
  }
  await s.supervisor.stop();

  const id = /^(\w+) +app +manager +ci$/m.exec(list.out)![1];
  const revoked = await tokensCli(['revoke', id, '--data', dataDir]);
  t.equal(revoked.code, 0, revoked.err);
  const operatorId = /^(\w+) +operator/m.exec(list.out)![1];
  t.equal((await tokensCli(['revoke', operatorId, '--data', dataDir])).code, 1, 'the operator token is not revoked here');
  const after = await startTestSupervisor(t, { dataDir, dockerSocket: '/nonexistent/docker.sock' });
  t.equal((await after.call('POST', '/jobs/reset', { token: m })).status, 403, 'a revoked token is refused');
});
