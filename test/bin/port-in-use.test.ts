// A port already in use is an error: a second Hearth (core, supervisor or replica) started on the
// port of a running one refuses to start with a message naming the port, the command exits
// non-zero, and the first keeps every request (uWS would otherwise share the port between them).
// The first listens on a port given to it: uWS asks to share only a port it was given, not port 0.
import t, { type Test } from 'tap';
import { startHearth, type Hearth } from '../../bin/instance.ts';
import { startSupervisor } from '../../bin/supervisor-instance.ts';
import { startReplica } from '../../bin/replica-instance.ts';
import { dataDirWith, onboard, startTestHearth } from '../helpers/hearth.ts';
import { startTestSupervisor, supervisorDataDir } from '../helpers/supervisor.ts';
import { startTestReplica } from '../helpers/replica.ts';
import { natsFor } from '../helpers/nats.ts';
import { runToExit } from '../helpers/process.ts';
import { freePort } from '../helpers/ports.ts';

/** A start that should be refused; one that is not is stopped with the test. */
function refusedStart<T extends { stop(): Promise<void> }>(t: Test, start: Promise<T>): Promise<T> {
  return start.then((started) => {
    t.teardown(() => started.stop());
    return started;
  });
}

/**
 * Many requests on fresh connections, with a token only the first instance knows: the statuses
 * other than 200, which a second instance sharing the port would answer (401).
 */
async function notFromFirst(base: string, path: string, token: string): Promise<number[]> {
  const headers = { Connection: 'close', Authorization: `Bearer ${token}` };
  const statuses = await Promise.all(Array.from({ length: 40 }, () => fetch(`${base}${path}`, { headers }).then((r) => r.status)));
  return statuses.filter((s) => s !== 200);
}

t.test('the core', async (t) => {
  const port = await freePort();
  const first = await startTestHearth(t, { port });
  const token = (await onboard(first.base)).access_token;
  const dataDir = await dataDirWith();
  await t.rejects(refusedStart(t, startHearth({ port, host: '127.0.0.1', dataDir, log: () => {} })), { code: 'HEARTH_LISTEN', message: new RegExp(`^cannot listen on port ${port} \\(127\\.0\\.0\\.1\\): the port is already in use`) });
  t.same(await notFromFirst(first.base, '/api/', token), [], 'the first answers every request');

  // the refused one let go of its data: it starts on another port
  let again: Hearth | undefined;
  t.teardown(() => again?.stop());
  again = await startHearth({ port: 0, host: '127.0.0.1', dataDir, log: () => {} });
  t.not(again.port, port);

  const cli = await runToExit(['--port', String(port), '--host', '127.0.0.1', '--data', await dataDirWith()], {}, 30_000);
  t.equal(cli.code, 1, 'the command exits 1');
  t.match(cli.out, `hearth: cannot listen on port ${port} (127.0.0.1): the port is already in use`);
  t.notMatch(cli.out, /listening on/);
  t.same(await notFromFirst(first.base, '/api/', token), [], 'and the first still answers every request');
});

t.test('the supervisor', async (t) => {
  const port = await freePort();
  const first = await startTestSupervisor(t, { bootApps: false, port });
  const second = startSupervisor({ dataDir: await supervisorDataDir(), port, host: '127.0.0.1', log: () => {}, bootCore: false, bootApps: false, backupsCheck: false });
  await t.rejects(refusedStart(t, second), { code: 'HEARTH_LISTEN', message: new RegExp(`^cannot listen on port ${port} \\(127\\.0\\.0\\.1\\): the port is already in use`) });
  t.same(await notFromFirst(first.base, '/supervisor/info', first.supervisor.adminToken), [], 'the first answers every request');
});

t.test('a replica', async (t) => {
  const nats = await natsFor(t);
  const port = await freePort();
  const first = await startTestReplica(t, nats.port, { placeTimeoutMs: 100, port });
  const second = startReplica({ nats: { servers: [`nats://127.0.0.1:${nats.port}`], stream: 'hearth' }, port, host: '127.0.0.1', log: () => {}, logFile: false, placeTimeoutMs: 100, dataDir: await dataDirWith() });
  await t.rejects(refusedStart(t, second), { code: 'HEARTH_LISTEN', message: new RegExp(`^cannot listen on port ${port} \\(127\\.0\\.0\\.1\\): the port is already in use`) });
  t.equal((await fetch(`${first.base}/api/`)).status, 401, 'the first still answers');
});
