// The resolution center's host checks: systemd's failed units become issues with the original's
// reset/restart fixes (run through systemctl), the LXC evaluation, and this host's own reasons.
import t from 'tap';
import { existsSync } from 'node:fs';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { inertHost, scriptedHost, SYSTEMD_HOST } from '../../../helpers/host.ts';
import { evaluate } from '../../../../actors/supervisor/resolution/evaluations.ts';

t.test('systemd_unit_failure: one issue per failed unit, fixed by restart or reset through systemctl', async (t) => {
  let failed = 'foo.service loaded failed failed The Foo daemon\nNetworkManager-wait-online.service loaded failed failed Wait Online\nbar.mount loaded failed failed /bar\n';
  const host = scriptedHost(SYSTEMD_HOST, (command, args) => (command === 'systemctl' && args[0] === 'list-units' ? failed : ''));
  const s = await startTestSupervisor(t, { hostSystem: host });
  await s.json('POST', '/resolution/check/systemd_unit_failure/run');
  const info = (await s.json('GET', '/resolution/info')).body.data;
  const issues = info.issues.filter((i: any) => i.type === 'systemd_unit_failed');
  t.same(issues.map((i: any) => [i.context, i.reference]).sort(), [['system', 'bar.mount'], ['system', 'foo.service']], 'wait-online is not the operator\'s to fix');
  const foo = issues.find((i: any) => i.reference === 'foo.service');
  const suggestions = (await s.json('GET', `/resolution/issue/${foo.uuid}/suggestions`)).body.data.suggestions;
  t.same(suggestions.map((x: any) => [x.type, x.context, x.reference, x.auto]).sort(), [
    ['execute_reset', 'system', 'foo.service', false],
    ['execute_restart', 'system', 'foo.service', false],
  ]);
  const restart = suggestions.find((x: any) => x.type === 'execute_restart');
  t.same((await s.json('POST', `/resolution/suggestion/${restart.uuid}`)).body, { result: 'ok', data: {} });
  t.ok(host.calls.includes('systemctl restart -- foo.service'), 'restarted through systemctl');
  failed = '';
  await s.json('POST', '/resolution/check/systemd_unit_failure/run');
  t.same((await s.json('GET', '/resolution/info')).body.data.issues.filter((i: any) => i.type === 'systemd_unit_failed'), [], 'no failed unit: no issue');
});

t.test('this host: no systemd, no failed-unit issue; its missing parts are unsupported reasons', async (t) => {
  const s = await startTestSupervisor(t, { hostSystem: inertHost() });
  await s.json('POST', '/resolution/check/systemd_unit_failure/run');
  await s.json('POST', '/resolution/check/disk_lifetime/run');
  const info = (await s.json('GET', '/resolution/info')).body.data;
  if (!existsSync('/run/systemd/system')) {
    t.same(info.issues.filter((i: any) => i.type === 'systemd_unit_failed'), []);
    t.ok(info.unsupported.includes('systemd'), 'systemd missing');
  }
  t.ok(info.unsupported.includes('os'), 'not the appliance OS');
  t.equal(info.unsupported.includes('systemd_resolved'), !existsSync('/run/systemd/resolve'));
  t.same(info.issues.filter((i: any) => i.type === 'disk_lifetime'), [], 'no eMMC wear reported here');
});

t.test('lxc: a host that is itself an LXC container is unsupported', async (t) => {
  const has = { dbus: true, systemd: true, journal: true, resolved: true, apparmor: true };
  const engine = { version: '27.1.0', apiVersion: '1.46', storageDriver: 'overlay2', loggingDriver: 'journald', cgroupVersion: '2' };
  t.ok(evaluate({ engine, arch: 'x64', ignoredConditions: [], has: { ...has, lxc: true } }).unsupported.includes('lxc'));
  t.notOk(evaluate({ engine, arch: 'x64', ignoredConditions: [], has: { ...has, lxc: false } }).unsupported.includes('lxc'));
});

t.test('execute_reboot reboots a host booted with systemd through systemctl', async (t) => {
  const host = scriptedHost(SYSTEMD_HOST);
  const s = await startTestSupervisor(t, { hostSystem: host });
  await s.supervisor.resolution.addIssue({ type: 'reboot_required', context: 'system' }, [{ type: 'execute_reboot', context: 'system' }]);
  const suggestion = (await s.json('GET', '/resolution/info')).body.data.suggestions.find((x: any) => x.type === 'execute_reboot');
  t.same((await s.json('POST', `/resolution/suggestion/${suggestion.uuid}`)).body, { result: 'ok', data: {} });
  t.ok(host.calls.includes('systemctl reboot'));
});
