// Apps that declare hardware get it: declared device paths the host has are mapped into the
// container, the hardware groups give the cgroup rules of the host's devices in them (as
// /hardware/info lists them), and a device the host lacks is left out, not invented.
import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { appPrefix, docker } from '../../../helpers/apps.ts';
import { inertHost } from '../../../helpers/host.ts';
import { appDeviceAccess } from '../../../../actors/supervisor/hardware/app-devices.ts';
import type { HostDevice } from '../../../../actors/supervisor/hardware/devices.ts';
import { eventually } from '../../../helpers/wait.ts';

const dev = (name: string, subsystem: string, major: number, minor: number): HostDevice => ({
  name, sysfs: `/sys/devices/x/${name}`, dev_path: `/dev/${name}`, subsystem, by_id: null, attributes: { MAJOR: String(major), MINOR: String(minor) }, children: [],
});

t.test('the access an app\'s hardware needs give', async (t) => {
  const host = [dev('ttyS0', 'tty', 4, 64), dev('tty1', 'tty', 4, 1), dev('ttyUSB0', 'tty', 188, 0), dev('video0', 'video4linux', 81, 0), dev('gpiochip0', 'gpio', 254, 0)];
  const none = { devices: [], uart: false, usb: false, gpio: false, video: false, udev: false, devicetree: false };
  t.same(appDeviceAccess(none, host), { devices: [], rules: [], binds: [], missing: [] });
  const uart = appDeviceAccess({ ...none, uart: true, devices: ['/dev/here', '/dev/gone'] }, host, (p) => p === '/dev/here', () => '/dev/real');
  t.same(uart, {
    devices: [{ PathOnHost: '/dev/real', PathInContainer: '/dev/here', CgroupPermissions: 'rwm' }],
    rules: ['c 4:64 rwm', 'c 188:0 rwm'],
    binds: ['/dev:/dev:ro'],
    missing: ['/dev/gone'],
  }, 'serial ports, not the virtual consoles');
  t.same(appDeviceAccess({ ...none, video: true, usb: true }, host, () => false).rules, ['c 81:0 rwm', 'c 189:* rwm']);
  t.same(appDeviceAccess({ ...none, gpio: true, udev: true, devicetree: true }, host, (p) => p === '/run/udev').binds, ['/dev:/dev:ro', '/run/udev:/run/udev:ro']);
});

t.test('a local app declaring a device and uart gets them in its container', async (t) => {
  if (!existsSync('/dev/loop0') || !statSync('/dev/loop0').isBlockDevice()) {
    t.comment('no /dev/loop0 on this host');
    return;
  }
  const dataDir = await supervisorDataDir();
  const app = join(dataDir, 'apps', 'local', 'devprobe');
  await mkdir(app, { recursive: true });
  await writeFile(join(app, 'config.yaml'), [
    'name: Device probe', 'version: "1.0.0"', 'slug: devprobe', 'description: holds host devices', 'arch: [amd64, aarch64]',
    'startup: application', 'boot: manual', 'init: false', 'uart: true', 'devices:', '  - /dev/loop0', '  - /dev/hearth-not-here', 'options: {}', 'schema: {}', '',
  ].join('\n'));
  await writeFile(join(app, 'Dockerfile'), 'ARG BUILD_FROM=hearth/busybox:stable\nFROM $BUILD_FROM\nCMD ["sleep", "3600"]\n');
  const prefix = appPrefix(t, 'devices');
  const s = await startTestSupervisor(t, { dataDir, appContainerPrefix: prefix, hostSystem: inertHost() });
  const slug = 'local_devprobe';
  t.same((await s.json('POST', `/store/addons/${slug}/install`)).body, { result: 'ok', data: {} });
  const info = (await s.json('GET', `/addons/${slug}/info`)).body.data;
  t.same(info.devices, ['/dev/loop0', '/dev/hearth-not-here']);
  t.equal(info.uart, true);
  t.equal(info.usb, false);
  t.same((await s.json('POST', `/addons/${slug}/start`)).body, { result: 'ok', data: {} });
  const container = `${prefix}${slug}`;
  await eventually('the container running', async () => (await docker('inspect', '-f', '{{.State.Running}}', container)) === 'true', 60_000);
  const hostConfig = JSON.parse(await docker('inspect', '-f', '{{json .HostConfig}}', container));
  t.same(hostConfig.Devices, [{ PathOnHost: '/dev/loop0', PathInContainer: '/dev/loop0', CgroupPermissions: 'rwm' }], 'the device the host has');
  const serial = (await s.json('GET', '/hardware/info')).body.data.devices.filter((d: any) => d.subsystem === 'tty' && /^tty(?:S|USB|ACM|AMA)\d/.test(d.name));
  t.same([...(hostConfig.DeviceCgroupRules ?? [])].sort(), serial.map((d: any) => `c ${d.attributes.MAJOR}:${d.attributes.MINOR} rwm`).sort(), 'the host\'s serial ports, as /hardware/info lists them');
  t.ok((hostConfig.Binds as string[]).includes('/dev:/dev:ro'));
  t.equal(await docker('exec', container, 'sh', '-c', 'test -b /dev/loop0 && echo block'), 'block', 'the node is there in the container');
  t.ok(s.lines.some((l) => l.includes('/dev/hearth-not-here not on this host')), 'the missing one is said, not made up');
});
