// A supervisor whose container engine does not answer (not installed, stopped, another socket):
// what needs the engine is refused with a message that says so, stats with the original's unknown
// error, and one line in the supervisor's log, not a stack trace.
import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';

t.test('the engine\'s socket is missing', async (t) => {
  const s = await startTestSupervisor(t, { dockerSocket: '/nonexistent/docker.sock', coreContainer: 'engine_down_core' });
  t.same(await s.json('GET', '/core/stats'), {
    status: 500,
    body: { result: 'error', message: 'An unknown error occurred with Supervisor. Check Supervisor logs for details', error_key: 'supervisor_unknown_error' },
  });
  const start = await s.json('POST', '/core/start');
  t.same(start, { status: 400, body: { result: 'error', message: 'The container engine does not answer (connect ENOENT /nonexistent/docker.sock)' } });
  t.ok(s.lines.some((l) => l.includes('POST /core/start: the container engine does not answer (connect ENOENT /nonexistent/docker.sock)')), 'one line says what happened');
  t.notOk(s.lines.some((l) => l.includes('error answering')), 'and it is not logged as a failure of the supervisor\'s own');
  t.equal((await s.json('GET', '/supervisor/ping')).status, 200);
});
