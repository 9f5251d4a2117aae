import t from 'tap';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../helpers/supervisor.ts';
import { startSupervisor } from '../../../bin/supervisor-instance.ts';

t.test('first start writes the operator token to admin.token, mode 0600, one line; a restart keeps it', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  const file = join(dataDir, 'admin.token');
  const text = await readFile(file, 'utf8');
  t.match(text, /^[0-9a-f]{112}\n$/);
  t.equal((await stat(file)).mode & 0o777, 0o600);
  t.equal(text.trim(), s1.adminToken);
  await s1.stop();
  const s2 = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  t.teardown(() => s2.stop());
  t.equal(s2.adminToken, s1.adminToken, 'the same token after a restart');
});

t.test('/supervisor/ping needs no token on v1 and answers the envelope', async (t) => {
  const s = await startTestSupervisor(t);
  const res = await s.call('GET', '/supervisor/ping', { token: null });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  t.same(await res.json(), { result: 'ok', data: {} });
});

t.test('exploit filter answers a plain 400 before anything else', async (t) => {
  const s = await startTestSupervisor(t);
  for (const path of ['/supervisor/ping?x=/proc/self/environ', '/supervisor/ping?a=%252E%252E%252Fetc', '/supervisor/ping?q=UNION%20SELECT%20(1)']) {
    const res = await s.call('GET', path, { token: null });
    t.equal(res.status, 400, path);
    t.equal(await res.text(), '400: Bad Request');
  }
});
