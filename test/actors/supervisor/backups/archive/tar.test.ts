// The PAX tar layer of backups (supervisor-wire §5.1/§5.4) against independent readers and
// writers: Python's tarfile (the original's library) and GNU tar.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { archiveEnd, encodeHeader, TarFileWriter, TarStreamWriter, type TarEntry } from '../../../../../actors/supervisor/backups/archive/tar.ts';
import { scanTarFile } from '../../../../../actors/supervisor/backups/archive/tar-read.ts';
import { extractInnerArchive, listInnerArchive } from '../../../../../actors/supervisor/backups/archive/extract.ts';
import { gnuTar, py } from '../../../../helpers/tar-reference.ts';

const dir = mkdtempSync(join(tmpdir(), 'backup-tar-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const LONG = `${'deep/'.repeat(30)}file-with-a-long-name.txt`;
const ENTRIES: Array<{ entry: TarEntry; data?: Buffer }> = [
  { entry: { name: '.', type: 'directory', mode: 0o755, mtime: 1700000000.25, size: 0 } },
  { entry: { name: 'plain.txt', type: 'file', mode: 0o644, mtime: 1700000001, size: 5 }, data: Buffer.from('hello') },
  { entry: { name: 'secret.bin', type: 'file', mode: 0o600, mtime: 1700000002.123456, size: 70_000 }, data: randomBytes(70_000) },
  { entry: { name: 'run.sh', type: 'file', mode: 0o4755, mtime: 1700000003.5, size: 3 }, data: Buffer.from('#!\n') },
  { entry: { name: 'empty', type: 'file', mode: 0o640, mtime: 1700000004.75, size: 0 }, data: Buffer.alloc(0) },
  { entry: { name: 'link', type: 'symlink', mode: 0o777, mtime: 1700000005.5, size: 0, linkname: 'plain.txt' } },
  { entry: { name: 'far-link', type: 'symlink', mode: 0o777, mtime: 1700000005.5, size: 0, linkname: `${'../x/'.repeat(25)}target` } },
  { entry: { name: LONG, type: 'file', mode: 0o644, mtime: 1700000006.001, size: 4 }, data: Buffer.from('long') },
  { entry: { name: 'd\u00e9j\u00e0 vu/caf\u00e9.txt', type: 'file', mode: 0o644, mtime: 1700000007.5, size: 2, uname: 'j\u00fcrgen', uid: 1000, gid: 1000 }, data: Buffer.from('ok') },
  { entry: { name: 'sub', type: 'directory', mode: 0o700, mtime: 1700000008.5, size: 0 } },
  { entry: { name: 'sub/hard', type: 'hardlink', mode: 0o644, mtime: 1700000001, size: 0, linkname: 'plain.txt' } },
];

async function streamTar(entries = ENTRIES): Promise<Buffer> {
  const tar = new TarStreamWriter();
  const parts: Buffer[] = [];
  for (const { entry, data } of entries) for await (const chunk of tar.entry(entry, data)) parts.push(chunk);
  parts.push(tar.end());
  return Buffer.concat(parts);
}

const expectedName = (entry: TarEntry) => entry.name;

t.test('Python tarfile reads every entry of a Hearth tar: names, types, modes, fractional mtimes, links, data', async (t) => {
  const file = join(dir, 'stream.tar');
  const bytes = await streamTar();
  writeFileSync(file, bytes);
  t.equal(bytes.length % 10240, 0, 'the archive ends on a whole 20-block record, as tarfile pads it');
  const { members } = py({ op: 'list', path: file, mode: 'r:' });
  t.equal(members.length, ENTRIES.length);
  ENTRIES.forEach(({ entry, data }, i) => {
    const m = members[i];
    t.equal(m.name, expectedName(entry), `name ${entry.name}`);
    t.equal(m.type, entry.type, `${entry.name}: type`);
    t.equal(m.mode, entry.mode, `${entry.name}: mode`);
    t.equal(m.mtime, entry.mtime, `${entry.name}: mtime with its fraction`);
    if (entry.linkname) t.equal(m.linkname, entry.linkname, `${entry.name}: link target`);
    if (entry.type === 'file') t.equal(m.sha256, sha(data!), `${entry.name}: data`);
    if (!Number.isInteger(entry.mtime)) t.equal(m.pax.mtime, String(entry.mtime), `${entry.name}: the fraction sits in a PAX record`);
  });
  t.equal(members[8].uname, 'j\u00fcrgen', 'a non-ASCII owner name travels in PAX');
  t.equal(members[1].pax.mtime, undefined, 'a whole-second entry with a short name needs no PAX header');
});

t.test('GNU tar lists and extracts a Hearth tar to the same files', async (t) => {
  const file = join(dir, 'gnu.tar');
  writeFileSync(file, await streamTar());
  const listing = gnuTar(['-tvf', file]);
  t.match(listing, /-rwsr-xr-x .* run\.sh/, 'setuid mode shown');
  t.match(listing, /lrwxrwxrwx .* link -> plain\.txt/, 'symlink shown with its target');
  t.match(listing, new RegExp(LONG.replace(/\./g, '\\.')), 'long name whole');
  const out = join(dir, 'gnu-out');
  mkdirSync(out);
  gnuTar(['-xf', file, '-C', out]);
  t.same(readFileSync(join(out, LONG)), Buffer.from('long'));
  t.same(readFileSync(join(out, 'secret.bin')), ENTRIES[2].data);
  t.equal(statSync(join(out, 'secret.bin')).mode & 0o7777, 0o600);
  t.equal(statSync(join(out, 'secret.bin')).mtimeMs, 1700000002123.456, 'mtime restored from the PAX record, fraction included');
  t.equal(statSync(join(out, 'sub/hard')).ino, statSync(join(out, 'plain.txt')).ino, 'hard link');
});

t.test('Hearth reads tars Python wrote, PAX and GNU format alike', async (t) => {
  const data = randomBytes(3000);
  const entries = [
    { name: 'dir', type: 'directory', mode: 0o750, mtime: 1600000000.5 },
    { name: 'dir/file', type: 'file', mode: 0o640, mtime: 1600000001.25, data: data.toString('hex') },
    { name: `${'n'.repeat(150)}/\u00fcml\u00e4ut`, type: 'file', mode: 0o644, mtime: 1600000002, data: '6869' },
    { name: 'sym', type: 'symlink', mode: 0o777, mtime: 1600000003, linkname: 'l'.repeat(120) },
  ];
  for (const format of ['pax', 'gnu']) {
    const file = join(dir, `py-${format}.tar`);
    py({ op: 'write', path: file, format, entries });
    const got = await listInnerArchive(readFileSync(file), { compressed: false });
    const out = mkdtempSync(join(dir, `py-${format}-`));
    await extractInnerArchive(readFileSync(file), out, { compressed: false });
    t.same(got.map((g) => g.name), entries.map((e) => e.name), `${format}: names (long, non-ASCII)`);
    t.same(got.map((g) => g.type), entries.map((e) => e.type), `${format}: types`);
    t.same(got.map((g) => g.mode), entries.map((e) => e.mode), `${format}: modes`);
    // GNU format has no place for a fraction; PAX keeps it
    t.same(got.map((g) => g.mtime), entries.map((e) => (format === 'pax' ? e.mtime : Math.floor(e.mtime))), `${format}: mtimes`);
    t.same(readFileSync(join(out, 'dir/file')), data, `${format}: data`);
    t.equal(statSync(join(out, 'dir/file')).mtimeMs, format === 'pax' ? 1600000001250 : 1600000001000, `${format}: the extracted file's mtime`);
    t.equal(got[3].linkname, 'l'.repeat(120), `${format}: long link target`);
  }
});

t.test('a member streamed into a file gets its header rewritten with the final size (the original inner-archive way)', async (t) => {
  const file = join(dir, 'members.tar');
  const handle = await open(file, 'w');
  const writer = new TarFileWriter(handle);
  const first = randomBytes(1234);
  const member = await writer.begin({ name: 'inner.tar.gz', type: 'file', mode: 0o644, mtime: 1700000000.5 });
  await member.write(first.subarray(0, 1000));
  await member.write(first.subarray(1000));
  t.equal(await member.end(), 1234);
  await t.rejects(member.write(Buffer.from('x')), /already finished/, 'a finished member takes no more data');
  const second = await writer.begin({ name: 'empty.tar', type: 'file', mode: 0o644, mtime: 1700000001.5 });
  await t.rejects(writer.add({ name: 'x', type: 'file', mode: 0o644, mtime: 0, size: 0 }), /still being written/, 'one member at a time');
  t.equal(await second.end(), 0);
  await writer.add({ name: './backup.json', type: 'file', mode: 0o644, mtime: 1700000002, size: 2 }, Buffer.from('{}'));
  await writer.finish();
  await handle.close();
  const { members } = py({ op: 'list', path: file, mode: 'r:' });
  t.same(members.map((m) => [m.name, m.size, m.mtime]), [['inner.tar.gz', 1234, 1700000000.5], ['empty.tar', 0, 1700000001.5], ['./backup.json', 2, 1700000002]]);
  t.equal(members[0].sha256, sha(first));
  const scanned = await scan(file);
  t.same(scanned.map((s) => s.entry.name), ['inner.tar.gz', 'empty.tar', './backup.json'], 'Hearth scans the same members');
  t.same(readFileSync(file).subarray(scanned[0].dataOffset, scanned[0].dataOffset + 1234), first, 'data where the scan says');
});

t.test('sizes past the ustar limit (8 GiB) go in a PAX record that tarfile, GNU tar and Hearth read', async (t) => {
  const size = 8 * 1024 ** 3 + 513;
  const file = join(dir, 'huge.tar');
  const header = encodeHeader({ name: 'huge.bin', type: 'file', mode: 0o644, mtime: 1700000000, size });
  t.equal(header.subarray(0, 512).toString('latin1', 0, 14), '././@PaxHeader', 'a PAX header comes first');
  writeFileSync(file, header);
  const end = header.length + size + (512 - (size % 512));
  // a sparse file: the data area is a hole, only the headers are real
  truncateSync(file, end);
  const tail = archiveEnd(end);
  const handle = await open(file, 'r+');
  await handle.write(tail, 0, tail.length, end);
  await handle.close();
  const { members } = py({ op: 'list', path: file, mode: 'r:' });
  t.same(members.map((m) => [m.name, m.size]), [['huge.bin', size]], 'tarfile');
  t.match(gnuTar(['-tvf', file]), new RegExp(`${size} .* huge\\.bin`), 'GNU tar');
  const scanned = await scan(file);
  t.same(scanned.map((s) => [s.entry.name, s.entry.size]), [['huge.bin', size]], 'Hearth');
});

t.test('damaged tars are refused with a message naming the problem', async (t) => {
  const bytes = await streamTar();
  const badSum = Buffer.from(bytes);
  badSum[0] ^= 1;
  await t.rejects(collect(badSum), /checksum/);
  await t.rejects(collect(bytes.subarray(0, 2000)), /truncated/);
  const streamed = new TarStreamWriter();
  await t.rejects(collect2(streamed.entry({ name: 'x', type: 'file', mode: 0o644, mtime: 0, size: 10 }, Buffer.from('short'))), /shrank/);
  await t.rejects(collect2(new TarStreamWriter().entry({ name: 'x', type: 'file', mode: 0o644, mtime: 0, size: 2 }, Buffer.from('longer'))), /grew/);
});

t.test('what node-tar would pass over is refused: a type a backup never holds, an extended header too large to be real', async (t) => {
  const source = join(dir, 'labelled');
  mkdirSync(source, { recursive: true });
  writeFileSync(join(source, 'a.txt'), 'a');
  const labelled = join(dir, 'labelled.tar');
  gnuTar(['--format=gnu', '-V', 'tape one', '-cf', labelled, '-C', source, 'a.txt']);
  await t.rejects(collect(readFileSync(labelled)), /tar entry tape one has a type \(TapeVolumeHeader\) a backup does not hold/, 'a GNU volume label');
  const out = mkdtempSync(join(dir, 'labelled-'));
  await t.rejects(extractInnerArchive(readFileSync(labelled), out, { compressed: false }), /TapeVolumeHeader/, 'extraction refuses it as well');
  const huge = await streamTar([{ entry: { name: 'x'.repeat(1024 * 1024 + 1), type: 'file', mode: 0o644, mtime: 0, size: 1 }, data: Buffer.from('x') }]);
  await t.rejects(collect(huge), /extended header of \d+ bytes is larger than any real one/);
});

async function scan(file: string) {
  const handle = await open(file, 'r');
  try {
    return await scanTarFile(handle);
  } finally {
    await handle.close();
  }
}

const collect = (bytes: Buffer) => listInnerArchive(bytes, { compressed: false });

async function collect2(chunks: AsyncIterable<Buffer>): Promise<void> {
  for await (const chunk of chunks) void chunk;
}
