// /os on a plain host: the fields the original leaves null without its OS, its refusals after
// its validation messages, swap as /proc reports it (changes on stand-in files, never the
// host's), and the free disks as `lsblk -J` lists them.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { freePort } from '../../../helpers/ports.ts';

const offline = async () => ({ connectivityUrl: `http://127.0.0.1:${await freePort()}/` });

t.test('GET /os/info: no OS version, board, boot slot or data disk on this host', async (t) => {
  const s = await startTestSupervisor(t, await offline());
  t.same(await s.json('GET', '/os/info'), {
    status: 200,
    body: { result: 'ok', data: { version: null, version_latest: null, version_pending: null, update_available: false, board: null, boot: null, data_disk: null, boot_slots: {} } },
  });
});

t.test('OS operations: bodies checked first, then the original\'s refusal without its OS', async (t) => {
  const s = await startTestSupervisor(t, await offline());
  const err = (message: string, status = 400) => ({ status, body: { result: 'error', message } });
  const blocked = (m: string) => err(`'${m}' blocked from execution, no Home Assistant OS available`);
  const cases: [string, string, unknown, ReturnType<typeof err>][] = [
    ['POST', '/os/update', { version: '17.0', force: true }, err("extra keys not allowed @ data['force']. Got True")],
    ['POST', '/os/update', {}, blocked('OSManager.update')],
    ['POST', '/os/update', { version: '17.0' }, blocked('OSManager.update')],
    ['POST', '/os/config/sync', {}, blocked('OSManager.config_sync')],
    ['POST', '/os/boot-slot', { boot_slot: 'C' }, err("expected BootSlot or one of 'A', 'B' for dictionary value @ data['boot_slot']. Got 'C'")],
    ['POST', '/os/boot-slot', {}, err("required key not provided @ data['boot_slot']. Got None")],
    ['POST', '/os/boot-slot', { boot_slot: 'B' }, blocked('OSManager.set_boot_slot')],
    ['POST', '/os/datadisk/move', {}, err("required key not provided @ data['device']. Got None")],
    ['POST', '/os/datadisk/move', { device: 7 }, err("expected str for dictionary value @ data['device']. Got 7")],
    ['POST', '/os/datadisk/move', { device: '/dev/sdz' }, blocked('DataDisk.migrate_disk')],
    ['POST', '/os/datadisk/wipe', {}, blocked('DataDisk.wipe_disk')],
    ['GET', '/os/boards/green', undefined, err('Green board is not in use')],
    ['POST', '/os/boards/green', { power_led: 'bright' }, err("expected boolean for dictionary value @ data['power_led']. Got 'bright'")],
    ['POST', '/os/boards/green', { power_led: false }, err('Green board is not in use')],
    ['GET', '/os/boards/yellow', undefined, err('Yellow board is not in use')],
    ['POST', '/os/boards/yellow', { disk_led: true }, err('Yellow board is not in use')],
    ['GET', '/os/boards/rpi4', undefined, err('rpi4 board is not in use')],
    ['GET', '/os/boards/raspberrypi/firmware', undefined, err('OS Agent 1.9.0 or newer required for Raspberry Pi firmware management', 404)],
    ['POST', '/os/boards/raspberrypi/firmware/update', {}, err('OS Agent 1.9.0 or newer required for Raspberry Pi firmware management', 404)],
  ];
  for (const [method, path, body, expected] of cases) t.same(await s.json(method, path, { body }), expected, `${method} ${path} ${JSON.stringify(body ?? null)}`);
});

/** Swap in KiB and swappiness as the kernel reports them. */
function procSwap(): { kib: number; swappiness: number } {
  const kib = readFileSync('/proc/swaps', 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.trim())
    .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[2]), 0);
  return { kib, swappiness: Number(readFileSync('/proc/sys/vm/swappiness', 'utf8').trim()) };
}

/** The agent's size words in KiB. */
const kibOf = (size: string) => {
  const m = size.match(/^(\d+)([KMG])?$/);
  if (!m) return Number.NaN;
  return Number(m[1]) * { '': 1, K: 1, M: 1024, G: 1024 * 1024 }[(m[2] ?? '') as '' | 'K' | 'M' | 'G'];
};

t.test('GET /os/config/swap: the size /proc/swaps adds up to and /proc/sys/vm/swappiness', async (t) => {
  const s = await startTestSupervisor(t, await offline());
  const res = await s.json('GET', '/os/config/swap');
  t.equal(res.status, 200);
  t.same(Object.keys(res.body.data), ['swap_size', 'swappiness']);
  const real = procSwap();
  t.equal(res.body.data.swappiness, real.swappiness);
  t.equal(res.body.data.swap_size === '0' ? 0 : kibOf(res.body.data.swap_size), real.kib);
});

t.test('POST /os/config/swap: swappiness written where permitted; the rest refused as the original', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-swap-'));
  const swaps = join(dir, 'swaps');
  const swappiness = join(dir, 'swappiness');
  await writeFile(swaps, 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/swapfile                               file\t\t2097152\t\t0\t\t-2\n');
  await writeFile(swappiness, '60\n');
  const s = await startTestSupervisor(t, { ...(await offline()), swapFiles: { swaps, swappiness } });
  t.same((await s.json('GET', '/os/config/swap')).body.data, { swap_size: '2G', swappiness: 60 });

  const err = (message: string, status = 400) => ({ status, body: { result: 'error', message } });
  const cases: [unknown, ReturnType<typeof err>][] = [
    [{ swappiness: 201 }, err("value must be at most 200 for dictionary value @ data['swappiness']. Got 201")],
    [{ swappiness: -1 }, err("value must be at least 0 for dictionary value @ data['swappiness']. Got -1")],
    [{ swappiness: '10' }, err("expected int for dictionary value @ data['swappiness']. Got '10'")],
    [{ swap_size: '2X' }, err("does not match regular expression ^\\d+([KMG](i?B)?|B)?$ for dictionary value @ data['swap_size']. Got '2X'")],
    [{ swap_size: 2 }, err("expected string or buffer for dictionary value @ data['swap_size']. Got 2")],
    [{ swap: '1G' }, err("extra keys not allowed @ data['swap']. Got '1G'")],
    [{ swap_size: '1G' }, err('Home Assistant OS 15.0 or newer required for swap settings', 404)],
  ];
  for (const [body, expected] of cases) t.same(await s.json('POST', '/os/config/swap', { body }), expected, JSON.stringify(body));
  t.equal(await readFile(swappiness, 'utf8'), '60\n', 'nothing written by a refused body');

  t.same(await s.json('POST', '/os/config/swap', { body: { swap_size: '2GiB', swappiness: 10 } }), { status: 200, body: { result: 'ok', data: {} } }, 'the same size, another swappiness');
  t.equal((await readFile(swappiness, 'utf8')).trim(), '10');
  t.same((await s.json('GET', '/os/config/swap')).body.data, { swap_size: '2G', swappiness: 10 });
  t.same(await s.json('POST', '/os/config/swap', { body: { swappiness: 10 } }), { status: 200, body: { result: 'ok', data: {} } }, 'unchanged');

  // a swappiness the host will not let this process write (a read-only kernel file)
  const locked = await startTestSupervisor(t, { ...(await offline()), swapFiles: { swaps, swappiness: '/proc/sys/kernel/osrelease' } });
  t.same(await locked.json('POST', '/os/config/swap', { body: { swappiness: 5 } }), err('Home Assistant OS 15.0 or newer required for swap settings', 404));
});

t.test('GET /os/datadisk/list: the drives `lsblk -J` shows with nothing mounted on them', async (t) => {
  const s = await startTestSupervisor(t, await offline());
  const res = await s.json('GET', '/os/datadisk/list');
  t.equal(res.status, 200);
  const devices = JSON.parse(execFileSync('lsblk', ['-J', '-b', '-o', 'NAME,PATH,TYPE,SIZE,SERIAL,MOUNTPOINT'], { encoding: 'utf8' })).blockdevices as any[];
  const mounted = (d: any): boolean => !!d.mountpoint || (d.children ?? []).some(mounted);
  const free = devices.filter((d) => d.type === 'disk' && !/^(zram|ram|loop|nbd)\d/.test(d.name) && !mounted(d));
  const data = res.body.data;
  t.same(data.disks.map((d: any) => d.dev_path), free.map((d) => d.path));
  t.same(data.disks.map((d: any) => d.size), free.map((d) => Number(d.size)));
  t.same(data.devices, data.disks.map((d: any) => d.id));
  for (const d of data.disks) t.same(Object.keys(d), ['name', 'vendor', 'model', 'serial', 'size', 'id', 'dev_path']);
  // every disk the host has mounted (its root among them) is no target
  for (const d of devices.filter(mounted)) t.notOk(data.disks.some((x: any) => x.dev_path === d.path), `${d.path} is in use`);
});

t.test('swap on a host without /proc\'s swap files: the original\'s 404', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-noswap-'));
  const s = await startTestSupervisor(t, { ...(await offline()), swapFiles: { swaps: join(dir, 'none'), swappiness: join(dir, 'none2') } });
  const refusal = { status: 404, body: { result: 'error', message: 'Home Assistant OS 15.0 or newer required for swap settings' } };
  t.same(await s.json('GET', '/os/config/swap'), refusal);
  t.same(await s.json('POST', '/os/config/swap', { body: { swappiness: 5 } }), refusal);
});
