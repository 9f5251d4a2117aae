// /hardware/info and /hardware/audio against the machine's own view: lsblk's disks, sysfs's
// device nodes and their numbers; the sound server's streams (none on a host without one).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { inertHost, scriptedHost, SYSTEMD_HOST } from '../../../helpers/host.ts';
import { drivesOf } from '../../../../actors/supervisor/hardware/drives.ts';
import { parseStreams } from '../../../../actors/supervisor/hardware/audio.ts';

interface Lsblk {
  name: string;
  size: number;
  type: string;
  'maj:min': string;
  rm: boolean;
  mountpoints: (string | null)[];
  children?: Lsblk[];
}
const lsblk = (): Lsblk[] => JSON.parse(execFileSync('lsblk', ['-J', '-b', '-o', 'NAME,SIZE,TYPE,MAJ:MIN,RM,MOUNTPOINTS'], { encoding: 'utf8' })).blockdevices;

t.test('GET /hardware/info: devices and drives as sysfs and lsblk know them', async (t) => {
  const s = await startTestSupervisor(t, { hostSystem: inertHost() });
  const { status, body } = await s.json('GET', '/hardware/info');
  t.equal(status, 200);
  const { devices, drives } = body.data;
  t.ok(devices.length > 0, `${devices.length} devices`);
  for (const d of devices) {
    t.same(Object.keys(d), ['name', 'sysfs', 'dev_path', 'subsystem', 'by_id', 'attributes', 'children'], d.name);
    t.equal(realpathSync(d.sysfs), d.sysfs, `${d.name}: a real sysfs device`);
    t.notMatch(d.sysfs, /^\/sys\/devices\/virtual\/(?:tty|block|vc)\//, 'virtual ttys, block devices and consoles hidden');
    const uevent = readFileSync(`${d.sysfs}/uevent`, 'utf8');
    const devname = /^DEVNAME=(.*)$/m.exec(uevent)?.[1];
    t.equal(d.dev_path, `/dev/${devname}`, `${d.name}: the node its uevent names`);
    t.equal(d.attributes.DEVPATH, d.sysfs.slice(4));
    t.equal(d.subsystem, realpathSync(`${d.sysfs}/subsystem`).split('/').pop());
    for (const c of d.children) t.ok(c.startsWith(`${d.sysfs}/`), `${c} below ${d.sysfs}`);
  }
  // every real disk lsblk lists is a block device with its numbers, and a drive with its size
  const disks = lsblk().filter((b) => b.type === 'disk' && !/^(?:loop|zram|ram|nbd|dm-|md)/.test(b.name));
  for (const b of disks) {
    const dev = devices.find((d: any) => d.name === b.name);
    t.ok(dev, `${b.name} among the devices`);
    t.equal(dev?.subsystem, 'block');
    t.equal(`${dev?.attributes.MAJOR}:${dev?.attributes.MINOR}`, b['maj:min'], `${b.name} maj:min`);
  }
  t.same(drives.map((d: any) => d.size), disks.map((b) => b.size), 'one drive per disk, lsblk\'s sizes');
  for (const [i, drive] of drives.entries()) {
    t.same(Object.keys(drive), ['vendor', 'model', 'revision', 'serial', 'id', 'size', 'time_detected', 'connection_bus', 'seat', 'removable', 'ejectable', 'filesystems']);
    t.equal(drive.removable, disks[i].rm);
    const mounted = (function all(b: Lsblk): string[] {
      return [...b.mountpoints.filter((m): m is string => !!m), ...(b.children ?? []).flatMap(all)];
    })(disks[i]);
    t.same(drive.filesystems.flatMap((f: any) => f.mount_points).sort(), mounted.sort(), 'the mount points lsblk shows');
    t.ok(!Number.isNaN(Date.parse(drive.time_detected)));
  }
  // the block devices sysfs lists that are not hidden are all there
  const blocks = readdirSync('/sys/class/block')
    .map((n) => realpathSync(`/sys/class/block/${n}`))
    .filter((p) => !/^\/sys\/devices\/virtual\/block\//.test(p));
  t.same(devices.filter((d: any) => d.subsystem === 'block').map((d: any) => d.sysfs).sort(), blocks.sort());
});

t.test('drives from an lsblk tree: partitions\' file systems, virtual disks left out', async (t) => {
  const drives = drivesOf(
    [
      { name: 'loop0', size: 100, type: 'loop' },
      { name: 'zram0', size: 100, type: 'disk' },
      {
        name: 'sda', path: '/dev/sda', size: 64_000_000_000, type: 'disk', vendor: 'SanDisk ', model: 'Ultra Fit', serial: '4C53', rev: '1.00', rm: true, tran: 'usb',
        children: [
          { name: 'sda1', path: '/dev/sda1', size: 512_000_000, type: 'part', fstype: 'vfat', label: 'BOOT', uuid: 'AB-CD', mountpoints: ['/boot'] },
          { name: 'sda2', path: '/dev/sda2', size: 1000, type: 'part', fstype: null, mountpoints: [null] },
        ],
      },
    ],
    () => '2026-01-01T00:00:00.000+00:00',
  );
  t.same(drives, [
    {
      vendor: 'SanDisk', model: 'Ultra Fit', revision: '1.00', serial: '4C53', id: 'SanDisk-Ultra-Fit-4C53', size: 64_000_000_000,
      time_detected: '2026-01-01T00:00:00.000+00:00', connection_bus: 'usb', seat: 'seat0', removable: true, ejectable: true,
      filesystems: [{ device: '/dev/sda1', id: 'by-uuid-AB-CD', size: 512_000_000, name: 'BOOT', system: false, mount_points: ['/boot'] }],
    },
  ]);
});

t.test('GET /hardware/audio: the sound server\'s streams, or empty maps without one', async (t) => {
  const s = await startTestSupervisor(t, { hostSystem: inertHost() });
  let server = true;
  try {
    execFileSync('pactl', ['info'], { stdio: 'ignore' });
  } catch {
    server = false;
  }
  if (!server) t.same((await s.json('GET', '/hardware/audio')).body, { result: 'ok', data: { audio: { input: {}, output: {} } } });
  const sinks = 'Sink #0\n\tState: SUSPENDED\n\tName: alsa_output.pci.analog-stereo\n\tDescription: Built-in Audio Analog Stereo\n\nSink #1\n\tName: hdmi\n\tDescription: HDMI\n';
  const sources = 'Source #0\n\tName: alsa_output.pci.analog-stereo.monitor\n\tDescription: Monitor of Built-in\n\nSource #1\n\tName: alsa_input.mic\n\tDescription: Microphone\n';
  const host = scriptedHost(SYSTEMD_HOST, (command, args) => (command === 'pactl' ? (args[1] === 'sinks' ? sinks : sources) : ''));
  const withSound = await startTestSupervisor(t, { hostSystem: host });
  t.same((await withSound.json('GET', '/hardware/audio')).body.data, {
    audio: { input: { 'alsa_input.mic': 'Microphone' }, output: { 'alsa_output.pci.analog-stereo': 'Built-in Audio Analog Stereo', hdmi: 'HDMI' } },
  });
  t.same(parseStreams(''), {});
});
