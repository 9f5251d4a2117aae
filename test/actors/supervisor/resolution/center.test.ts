// The resolution center's logic on a fake engine: given its records (issues, suggestions,
// checks' flags), when a check runs, a fix is applied or an issue dismissed, then exactly the
// records appended and what it asked of the engine. The real-engine test of core_health
// (resolution-api.test.ts) stays, end to end.
import t from 'tap';
import { buildSupervisor, fact, type ScenarioSupervisor } from '../../../helpers/scenario.ts';
import type { EventRecord } from '../../../../store/types.ts';
import { recordsOn } from '../../../helpers/log-records.ts';

const CORE = 'hearth_core';

/** Each record as `<type> <what it is about>`: an issue or suggestion by the kind it was made as. */
async function told(records: EventRecord[], s: ScenarioSupervisor) {
  const kinds = new Map<string, string>();
  for (const r of await recordsOn(s.log, 'resolution/')) if (r.type === 'issue_created' || r.type === 'suggestion_created') kinds.set(r.stream, `${r.data.type}/${r.data.context}`);
  return records
    .filter((r) => r.stream.startsWith('resolution/'))
    .map((r) => {
      if (r.type === 'evaluation_changed') return `${r.type} unhealthy=${r.data.unhealthy.join(',')}`;
      if (r.type === 'check_options_changed') return `${r.type} ${r.stream.split('/')[2]} ${r.data.enabled}`;
      return `${r.type} ${kinds.get(r.stream) ?? r.stream}`;
    });
}

const bootFail = (uuid: string) => fact(`resolution/issue/${uuid}`, 'issue_created', { uuid, type: 'boot_fail', context: 'core', reference: CORE, reference_extra: null });
const restartSuggestion = (uuid: string) => fact(`resolution/suggestion/${uuid}`, 'suggestion_created', { uuid, type: 'execute_restart', context: 'core', reference: CORE, reference_extra: null, auto: false });

t.test('core_health: no core container is no issue; one that exited non-zero is boot_fail with execute_restart', async (t) => {
  const s = await buildSupervisor(t);
  const none = await s.when((s) => s.resolution.runCheck('core_health'));
  t.same(await told(none.records, s), [], 'not installed yet');

  s.docker.addContainer(CORE, { running: false, exitCode: 3 });
  const failed = await s.when((s) => s.resolution.runCheck('core_health'));
  t.same(await told(failed.records, s), ['issue_created boot_fail/core', 'suggestion_created execute_restart/core']);
  t.match(s.resolution.issues(), [{ type: 'boot_fail', context: 'core', reference: CORE }]);

  const again = await s.when((s) => s.resolution.runCheck('core_health'));
  t.same(again.records, [], 'the same issue is not raised twice');
});

t.test('core_health: a clean exit is no failure, an unhealthy one is', async (t) => {
  const s = await buildSupervisor(t);
  s.docker.addContainer(CORE, { running: false, exitCode: 0 });
  t.same((await s.when((s) => s.resolution.runCheck('core_health'))).records, []);
  s.docker.containers.delete(CORE);
  s.docker.addContainer(CORE, { running: true, health: 'unhealthy' });
  t.same(await told((await s.when((s) => s.resolution.runCheck('core_health'))).records, s), ['issue_created boot_fail/core', 'suggestion_created execute_restart/core']);
});

t.test('given boot_fail: applying execute_restart restarts the core container and resolves the issue', async (t) => {
  const s = await buildSupervisor(t, [bootFail('i1'), restartSuggestion('s1')]);
  s.docker.addContainer(CORE, { running: false, exitCode: 3 });
  const then = await s.when((s) => s.resolution.applySuggestion('s1', s.context()));
  t.error(then.error);
  t.same(s.docker.calls, [`restart ${CORE}`]);
  t.same((await told(then.records, s)).filter((l) => !l.startsWith('evaluation_changed')), ['suggestion_applied execute_restart/core', 'issue_resolved boot_fail/core']);
  t.same([s.resolution.issues(), s.resolution.suggestions()], [[], []]);
});

t.test('given boot_fail: a restart the engine refuses is answered, the issue stays', async (t) => {
  const s = await buildSupervisor(t, [bootFail('i1'), restartSuggestion('s1')]);
  const then = await s.when((s) => s.resolution.applySuggestion('s1', s.context()));
  t.match(then.error, { message: `Cannot restart container ${CORE}: No such container: ${CORE}` });
  t.same(then.records, []);
  t.equal(s.resolution.issues().length, 1);
});

t.test('given boot_fail: the check finding the core running again resolves it and its suggestion', async (t) => {
  const s = await buildSupervisor(t, [bootFail('i1'), restartSuggestion('s1')]);
  s.docker.addContainer(CORE, { running: true });
  const then = await s.when((s) => s.resolution.runCheck('core_health'));
  t.same(await told(then.records, s), ['issue_resolved boot_fail/core', 'suggestion_resolved execute_restart/core']);
});

t.test('dismissing a suggestion keeps its issue; dismissing the issue takes the rest', async (t) => {
  const s = await buildSupervisor(t, [bootFail('i1'), restartSuggestion('s1')]);
  const suggestion = await s.when((s) => s.resolution.dismissSuggestion('s1', s.context()));
  t.same(await told(suggestion.records, s), ['suggestion_dismissed execute_restart/core']);
  t.equal(s.resolution.issues().length, 1);
  const unknown = await s.when((s) => s.resolution.dismissSuggestion('s1', s.context()));
  t.match(unknown.error, { status: 404 });
  const issue = await s.when((s) => s.resolution.dismissIssue('i1', s.context()));
  t.same(await told(issue.records, s), ['issue_dismissed boot_fail/core']);
});

t.test('given a disabled check: the healthcheck does not run it', async (t) => {
  const s = await buildSupervisor(t, [fact('resolution/check/core_health', 'check_options_changed', { enabled: false })]);
  s.docker.addContainer(CORE, { running: false, exitCode: 3 });
  const then = await s.when((s) => s.resolution.healthcheck());
  t.same((await told(then.records, s)).filter((l) => !l.startsWith('evaluation_changed')), []);
  const enabled = await s.when((s) => s.resolution.setCheckEnabled('core_health', true, s.context()));
  t.same(await told(enabled.records, s), ['check_options_changed core_health true']);
  const now = await s.when((s) => s.resolution.healthcheck());
  t.same((await told(now.records, s)).filter((l) => !l.startsWith('evaluation_changed')), ['issue_created boot_fail/core', 'suggestion_created execute_restart/core']);
});

t.test('an engine that does not answer makes the system unhealthy (docker); answering again heals it', async (t) => {
  const s = await buildSupervisor(t);
  s.docker.reachable = false;
  const down = await s.when((s) => s.resolution.evaluate());
  t.same(await told(down.records, s), ['evaluation_changed unhealthy=docker']);
  t.same(s.resolution.unhealthy(), ['docker']);
  t.same((await s.when((s) => s.resolution.evaluate())).records, [], 'recorded only when the reasons change');
  s.docker.reachable = true;
  const up = await s.when((s) => s.resolution.evaluate());
  t.same(await told(up.records, s), ['evaluation_changed unhealthy=']);
  t.same(s.resolution.unhealthy(), []);
});

t.test('issues are restored from the records: the same issue added again is not a second one', async (t) => {
  const s = await buildSupervisor(t, [bootFail('i1'), restartSuggestion('s1')]);
  t.same(s.resolution.issues().map((i) => i.uuid), ['i1']);
  const then = await s.when((s) => s.resolution.addIssue({ type: 'boot_fail', context: 'core', reference: CORE }, [{ type: 'execute_restart', context: 'core', reference: CORE }]));
  t.same(then.records, []);
  t.equal(then.result?.uuid, 'i1');
});
