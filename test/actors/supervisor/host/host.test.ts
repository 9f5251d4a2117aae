// The host's routes against the machine's own tools: `hostname`, `uname`, os-release, /proc and
// `df` say the same facts /host/info reports; what this host lacks (systemd, hostnamed,
// journal-gatewayd) is refused with the original's words, and the changes a host with systemd
// allows go to its tools (a scripted host records them).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { startSupervisor } from '../../../../bin/supervisor-instance.ts';
import { inertHost, scriptedHost, SYSTEMD_HOST } from '../../../helpers/host.ts';
import { LocalHost } from '../../../../actors/supervisor/host/system.ts';
import { HOST_MIGRATION_MESSAGE, HostControl, validHostname } from '../../../../actors/supervisor/host/control.ts';

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8' }).trim();
const GIB = 1024 ** 3;

/** df's figures for the file system holding `path`, in bytes. */
function df(path: string) {
  const [size, used, avail] = sh('df', ['-B1', '--output=size,used,avail', path]).split('\n')[1].trim().split(/\s+/).map(Number);
  return { size, used, avail };
}

t.test('GET /host/info reports the machine as its own tools do', async (t) => {
  const s = await startTestSupervisor(t, { hostSystem: inertHost() });
  const { status, body } = await s.json('GET', '/host/info');
  t.equal(status, 200);
  const d = body.data;
  t.same(Object.keys(d), [
    'agent_version', 'apparmor_version', 'chassis', 'virtualization', 'cpe', 'deployment', 'disk_free', 'disk_total', 'disk_used', 'disk_life_time',
    'features', 'hostname', 'llmnr_hostname', 'kernel', 'operating_system', 'timezone', 'dt_utc', 'dt_synchronized', 'use_ntp', 'startup_time',
    'boot_timestamp', 'broadcast_llmnr', 'broadcast_mdns',
  ]);
  t.equal(d.hostname, sh('hostname', []), 'hostname(1)');
  t.equal(d.kernel, sh('uname', ['-r']), 'uname -r');
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1];
  t.equal(d.operating_system, pretty, 'os-release PRETTY_NAME');
  const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]);
  t.equal(d.boot_timestamp, btime * 1_000_000, '/proc/stat btime, in µs');
  const disk = df(s.dataDir);
  t.equal(d.disk_total, Math.round((disk.size / GIB) * 10) / 10, 'df size, GiB to 0.1');
  // the disk is shared with whatever else runs: its use may move a little between two reads
  t.ok(Math.abs(d.disk_free - disk.avail / GIB) <= 0.5, `df avail ${disk.avail / GIB} ~ ${d.disk_free}`);
  t.ok(Math.abs(d.disk_used - disk.used / GIB) <= 0.5, `df used ${disk.used / GIB} ~ ${d.disk_used}`);
  t.match(d.dt_utc, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  t.ok(Math.abs(Date.parse(d.dt_utc) - Date.now()) < 60_000, 'the current time');
  t.equal(d.agent_version, null, 'no OS agent on a plain host');
  const services = await new LocalHost().services();
  if (!services.systemd) {
    t.notOk(d.features.includes('reboot') || d.features.includes('services') || d.features.includes('hostname'), 'no systemd: no reboot, services or hostname feature');
    t.equal(d.startup_time, null, 'systemd\'s startup time: null without it');
    t.equal(d.use_ntp, null, 'timedated: null without it');
    t.equal(d.dt_synchronized, null);
  }
  if (!services.resolved) {
    t.equal(d.llmnr_hostname, null, 'resolved: null without it');
    t.equal(d.broadcast_llmnr, null);
    t.equal(d.broadcast_mdns, null);
  }
  let virt: string | null;
  try {
    virt = sh('systemd-detect-virt', []);
  } catch (err) {
    virt = /none/.test(String((err as { stdout?: string }).stdout)) ? '' : null;
  }
  t.equal(d.virtualization, virt, 'systemd-detect-virt');
});

t.test('a host with systemd: features, services and hostnamed answers', async (t) => {
  const host = scriptedHost(SYSTEMD_HOST, (command, args) => {
    if (command === 'systemctl' && args[0] === 'list-units') {
      return [
        'ssh.service            loaded    active   running OpenBSD Secure Shell server',
        'docker.service         loaded    active   running Docker Application Container Engine',
        'gone.service           not-found inactive dead    gone.service',
        'systemd-fsck@x.service loaded    failed   failed  File System Check on x',
      ].join('\n');
    }
    if (command === 'timedatectl') return 'NTP=yes\nNTPSynchronized=no\n';
    if (command === 'systemctl' && args[0] === 'show') return 'FinishTimestampMonotonic=12500000\n';
    return '';
  });
  const s = await startTestSupervisor(t, { hostSystem: host });
  const info = (await s.json('GET', '/host/info')).body.data;
  t.same(info.features.slice(0, 5), ['reboot', 'shutdown', 'services', 'hostname', 'timedate']);
  t.equal(info.use_ntp, true);
  t.equal(info.dt_synchronized, false);
  t.equal(info.startup_time, 12.5);
  t.same((await s.json('GET', '/host/services')).body.data.services, [
    { name: 'ssh.service', description: 'OpenBSD Secure Shell server', state: 'active' },
    { name: 'docker.service', description: 'Docker Application Container Engine', state: 'active' },
    { name: 'systemd-fsck@x.service', description: 'File System Check on x', state: 'failed' },
  ], 'loaded .service units with their ActiveState');

  t.same(await s.json('POST', '/host/options', { body: { hostname: 'bad name' } }), {
    status: 400,
    body: { result: 'error', message: "Invalid hostname 'bad name'", error_key: 'host_invalid_hostname', extra_fields: { hostname: 'bad name' } },
  });
  t.same((await s.json('POST', '/host/options', { body: { hostname: 'hearth-kitchen' } })).body, { result: 'ok', data: {} });
  t.ok(host.calls.includes('hostnamectl set-hostname --static -- hearth-kitchen'), 'hostnamed sets the static hostname');
  t.same((await s.json('POST', '/host/reboot', { body: {} })).body, { result: 'ok', data: {} });
  t.same((await s.json('POST', '/host/shutdown', { body: { force: 'yes' } })).body, { result: 'ok', data: {} });
  t.ok(host.calls.includes('systemctl reboot') && host.calls.includes('systemctl poweroff'), 'through the init system');
  t.ok(validHostname('a-b.example') && !validHostname('-a') && !validHostname('a..b') && !validHostname('x'.repeat(65)));
});

t.test('without systemd: /host/services is empty, hostname and power are refused, the hostname stays', async (t) => {
  const services = await new LocalHost().services();
  if (services.systemd) {
    t.comment('this machine runs systemd: the refusals do not apply');
    return;
  }
  const s = await startTestSupervisor(t, { hostSystem: inertHost() });
  const before = sh('hostname', []);
  t.same((await s.json('GET', '/host/services')).body, { result: 'ok', data: { services: [] } });
  t.same(await s.json('POST', '/host/options', { body: { hostname: 'somewhere-else' } }), { status: 400, body: { result: 'error', message: 'No hostname D-Bus connection available' } });
  t.equal(sh('hostname', []), before, 'unchanged');
  t.same(await s.json('POST', '/host/reboot'), { status: 400, body: { result: 'error', message: 'No reboot D-Bus connection available' } });
  t.same(await s.json('POST', '/host/shutdown', { body: { force: true } }), { status: 400, body: { result: 'error', message: 'No shutdown D-Bus connection available' } });
  t.same((await s.json('POST', '/host/options', { body: { hostname: 7 } })).body.message, "expected str @ data['hostname']. Got 7");
  t.same((await s.json('POST', '/host/reboot', { body: { force: 'maybe' } })).body.message, "expected boolean @ data['force']. Got 'maybe'");
  t.same((await s.json('POST', '/host/options', { body: { timezone: 'x' } })).body.message, "extra keys not allowed @ data['timezone']. Got 'x'");
  t.same((await s.json('POST', '/host/reload')).body, { result: 'ok', data: {} });
});

t.test('the journal: the original\'s answers on a host without systemd-journal-gatewayd', async (t) => {
  if ((await new LocalHost().services()).journalGatewayd) {
    t.comment('this machine has a journal gateway');
    return;
  }
  const s = await startTestSupervisor(t, { hostSystem: inertHost() });
  for (const path of ['/host/logs', '/host/logs/follow', '/host/logs/identifiers/sshd', '/host/logs/boots/0', '/host/logs/boots/-1/identifiers/sshd/follow']) {
    const res = await s.call('GET', path);
    t.equal(res.status, 400, path);
    t.equal(await res.text(), 'No systemd-journal-gatewayd Unix socket available', path);
  }
  t.same(await s.json('GET', '/host/logs/boots'), { status: 400, body: { result: 'error', message: 'No systemd-journal-gatewayd Unix socket available' } });
  t.same(await s.json('GET', '/host/logs/identifiers'), { status: 400, body: { result: 'error', message: 'No systemd-journal-gatewayd Unix socket available' } });
  t.equal((await s.call('GET', '/host/logs/latest')).status, 404, 'no latest for host logs');
});

/** A core that reports an offline database migration (its token exchange and its state). */
async function migratingCore(t: { teardown(fn: () => unknown): void }) {
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/auth/token') res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"access_token":"a","token_type":"Bearer","expires_in":1800}');
      else if (req.url === '/api/core/state') res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ state: 'RUNNING', recorder_state: { migration_in_progress: true, migration_is_live: false } }));
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise((ok) => server.close(ok)));
  return (server.address() as { port: number }).port;
}

t.test('reboot and shutdown: 503 during a core offline migration, `force` goes past the guard', async (t) => {
  const port = await migratingCore(t);
  const host = scriptedHost(SYSTEMD_HOST);
  const s = await startTestSupervisor(t, { hostSystem: host, coreContainer: `hearth_core_host_guard_${process.pid}` });
  t.equal((await s.json('POST', '/core/options', { body: { port, refresh_token: 'r' } })).status, 200);
  for (const path of ['/host/reboot', '/host/shutdown']) {
    t.same(await s.json('POST', path), { status: 503, body: { result: 'error', message: HOST_MIGRATION_MESSAGE } }, path);
  }
  // the resolution center's checks ask the same host in the background: only the power commands count
  const power = () => host.calls.filter((c) => /^systemctl (?:reboot|poweroff)$/.test(c));
  t.same(power(), [], 'nothing ran');
  t.same((await s.json('POST', '/host/reboot', { body: { force: true } })).body, { result: 'ok', data: {} });
  t.same(power(), ['systemctl reboot']);
});

/** Sum of the sizes of the regular files under `dir` on its own file system (find -xdev). */
const filesUnder = (dir: string) => sh('find', [dir, '-xdev', '-type', 'f', '-printf', '%s\\n']).split('\n').filter(Boolean).reduce((n, x) => n + Number(x), 0);

t.test('/host/disks/default/usage: the data directory\'s real folders, max_depth, v1 and v2 ids', async (t) => {
  const dataDir = await supervisorDataDir();
  await mkdir(join(dataDir, 'media', 'films'), { recursive: true });
  await writeFile(join(dataDir, 'media', 'films', 'a.mkv'), Buffer.alloc(30_000));
  await writeFile(join(dataDir, 'media', 'top.txt'), Buffer.alloc(1_000));
  await mkdir(join(dataDir, 'share', 'empty'), { recursive: true });
  await writeFile(join(dataDir, 'share', 'x'), Buffer.alloc(5_000));
  await mkdir(join(dataDir, 'apps', 'data', 'core_echo'), { recursive: true });
  await writeFile(join(dataDir, 'apps', 'data', 'core_echo', 'state.json'), Buffer.alloc(777));
  await mkdir(join(dataDir, 'core'), { recursive: true });
  await writeFile(join(dataDir, 'core', 'configuration.yaml'), 'homeassistant:\n');
  // the v2 tree needs the flag at start
  const first = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {}, bootCore: false, hostSystem: inertHost() });
  await first.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true } }, { id: 'x', parent_id: null, user_id: null });
  await first.stop();
  const s = await startTestSupervisor(t, { dataDir, hostSystem: inertHost() });

  const v1 = (await s.json('GET', '/host/disks/default/usage')).body.data;
  const disk = df(dataDir);
  t.equal(v1.id, 'root');
  t.equal(v1.label, 'Root');
  t.equal(v1.total_bytes, disk.size, 'df size');
  t.ok(Math.abs(v1.used_bytes - (disk.size - disk.avail)) < 512 * 1024 ** 2, 'total − available (reserved space counts as used)');
  t.same(v1.children.map((c: { id: string }) => c.id), ['system', 'addons_data', 'addons_config', 'media', 'share', 'backup', 'ssl', 'homeassistant']);
  const by = (tree: { children: { id: string }[] }, id: string) => tree.children.find((c) => c.id === id) as any;
  t.same(by(v1, 'media'), { id: 'media', label: 'media', used_bytes: filesUnder(join(dataDir, 'media')) }, 'depth 1: sizes only');
  t.equal(by(v1, 'media').used_bytes, 31_000);
  t.same(by(v1, 'addons_data'), { id: 'addons_data', label: 'apps_data', used_bytes: 777 });
  t.equal(by(v1, 'homeassistant').used_bytes, filesUnder(join(dataDir, 'core')));
  t.same(by(v1, 'backup'), { id: 'backup', label: 'backup', used_bytes: 0 }, 'a missing folder takes nothing');
  const known = v1.children.slice(1).reduce((n: number, c: { used_bytes: number }) => n + c.used_bytes, 0);
  t.equal(by(v1, 'system').used_bytes, v1.used_bytes - known, 'system: the rest');

  const v2 = (await s.json('GET', '/v2/host/disks/default/usage?max_depth=2')).body.data;
  t.same(v2.children.map((c: { id: string }) => c.id), ['system', 'apps_data', 'apps_config', 'media', 'share', 'backup', 'ssl', 'homeassistant']);
  t.same(by(v2, 'media'), { id: 'media', label: 'media', used_bytes: 31_000, children: [{ id: 'films', label: 'films', used_bytes: 30_000 }] }, 'depth 2: non-empty folders');
  t.same(by(v2, 'share'), { id: 'share', label: 'share', used_bytes: 5_000 }, 'an empty folder is not listed');
  const odd = (await s.json('GET', '/host/disks/default/usage?max_depth=deep')).body.data;
  t.same(by(odd, 'media'), { id: 'media', label: 'media', used_bytes: 31_000 }, 'a max_depth that is no integer: 1');
  t.same(await s.json('GET', '/host/disks/nas/usage'), {
    status: 404,
    body: { result: 'error', message: 'No mount exists with name nas', error_key: 'mount_not_found_error', extra_fields: { name: 'nas' } },
  });
});

t.test('an unprivileged supervisor powers the host off only where logind allows it, and stops nothing before asking', async (t) => {
  for (const [answer, allowed] of [['s "yes"', true], ['s "challenge"', false], ['s "no"', false]] as const) {
    const host = scriptedHost(SYSTEMD_HOST, (command) => (command === 'busctl' ? answer : ''));
    let stopped = 0;
    const control = new HostControl({ host, services: () => host.services(), migrationRunning: async () => false, stopManaged: async () => void stopped++, logger: { info() {}, warning() {} }, uid: () => 1000 });
    const result = await control.power('shutdown', false).then(() => 'done', (err: Error) => err.message);
    if (allowed) {
      t.equal(result, 'done', answer);
      t.same(host.calls, ['busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager CanPowerOff', 'systemctl poweroff']);
      t.equal(stopped, 1, 'the core and apps stopped first');
    } else {
      t.match(result, /^Cannot shut down the host: this supervisor is not permitted to/, answer);
      t.equal(stopped, 0, 'nothing stopped');
      t.notOk(host.calls.includes('systemctl poweroff'));
    }
  }
});
