// POST /backups/new/upload as a hostile client sends it: slugs and file names that would leave
// the backup folder or split a header line, forms past their limits, a client that leaves
// mid-upload; and the download's Content-Disposition read off the socket as it is written.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor, type TestSupervisor } from '../../../helpers/supervisor.ts';
import { craftBackup } from '../../../helpers/backups.ts';
import { rawExchange } from '../../../fuzz/http-clients.ts';
import { backupDate, nowMicros } from '../../../../actors/supervisor/backups/archive/backup-json.ts';

const scratch = await mkdtemp(join(tmpdir(), 'hearth-upload-test-'));
t.teardown(() => rm(scratch, { recursive: true, force: true }));

/** A valid backup file whose backup.json says `slug`, whatever that is. */
async function craftedBackup(slug: string, name = 'Crafted'): Promise<Buffer> {
  const path = join(scratch, `${randomBytes(6).toString('hex')}.tar`);
  craftBackup(path, { slug, name, date: backupDate(nowMicros()), type: 'partial', supervisor_version: '2026.05.0', compressed: false }, {});
  return readFile(path);
}

const hexSlug = () => randomBytes(4).toString('hex');

/** multipart/form-data bytes: each part a name, an optional file name, and its content. */
function multipart(parts: { name: string; filename?: string; content: Buffer | string }[]): { type: string; body: Buffer } {
  const boundary = `----hearth${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const file = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file}\r\n\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(chunks) };
}

async function post(s: TestSupervisor, form: { type: string; body: Buffer }, query = '') {
  const res = await fetch(`${s.base}/backups/new/upload${query}`, { method: 'POST', headers: { Authorization: `Bearer ${s.supervisor.adminToken}`, 'Content-Type': form.type }, body: new Uint8Array(form.body) });
  const text = await res.text();
  return { status: res.status, body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
}

const upload = (s: TestSupervisor, tar: Buffer, query = '') => post(s, multipart([{ name: 'file', filename: 'backup.tar', content: tar }]), query);

/** Every file and folder under `dir`, sorted. */
const everything = async (dir: string) => ((await readdir(dir, { recursive: true })) as string[]).sort();

/** The status line and header lines of an answer read off the socket, exactly as sent. */
async function rawHead(s: TestSupervisor, path: string): Promise<string[]> {
  const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.supervisor.adminToken}\r\nConnection: close\r\n\r\n`;
  const { data } = await rawExchange(s.supervisor.port, [request]);
  const text = data.toString('latin1');
  return text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n');
}

t.test('an upload cannot put a file outside the backup folder', async (t) => {
  const s = await startTestSupervisor(t);
  const canary = join(s.dataDir, 'canary');
  await mkdir(canary);
  await writeFile(join(canary, 'keep.txt'), 'canary');
  await mkdir(join(s.dataDir, 'backup'), { recursive: true });
  const before = { canary: await everything(canary), top: (await readdir(s.dataDir)).sort() };

  for (const slug of ['../x', '../canary/x', '/tmp/x']) {
    const res = await upload(s, await craftedBackup(slug));
    t.equal(res.status, 400, `slug ${slug}: 400`);
    t.equal(res.body.message, `backup.json: slug must match ^[-_.A-Za-z0-9]+$ (letters, digits, - _ .), not ${JSON.stringify(slug)}`);
  }
  // a name, but not one the original makes: it would name the file
  const plain = await upload(s, await craftedBackup('x'));
  t.same([plain.status, plain.body.message], [400, `Invalid backup slug "x": a backup's slug is 8 hexadecimal digits`]);
  const good = await craftedBackup(hexSlug());
  // `../` anywhere in the query is the exploit filter's plain 400; the rest are the schema's
  for (const filename of ['../x.tar', '../canary/x.tar']) {
    t.same(await upload(s, good, `?filename=${encodeURIComponent(filename)}`), { status: 400, body: '400: Bad Request' }, `filename ${filename}: 400`);
  }
  for (const filename of ['a/b.tar', '..\\x.tar', '/tmp/x.tar', '..\\..\\x.tar']) {
    const res = await upload(s, good, `?filename=${encodeURIComponent(filename)}`);
    t.equal(res.status, 400, `filename ${filename}: 400`);
    t.match(res.body.message, /^does not match regular expression .* @ data\['filename'\]/);
  }

  t.same(await everything(canary), before.canary, 'the canary folder is as it was');
  t.same((await readdir(s.dataDir)).sort(), before.top, 'nothing new beside the backup folder');
  const stray = (await everything(s.dataDir)).filter((p) => /\.tar(\.partial)?$/.test(p));
  t.same(stray, [], 'no tar file anywhere under the data folder');
  t.same((await s.json('GET', '/backups')).body.data.backups, [], 'no backup listed');
});

t.test('file names with control characters are refused: they would end up in a header', async (t) => {
  const s = await startTestSupervisor(t);
  const tar = await craftedBackup(hexSlug());
  for (const filename of ['x\r\nSet-Cookie: a=b.tar', 'x\n.tar', 'x\u0000.tar', 'x\u007f.tar', 'x\t.tar']) {
    const res = await upload(s, tar, `?filename=${encodeURIComponent(filename)}`);
    t.equal(res.status, 400, `${JSON.stringify(filename)}: 400`);
    t.match(res.body.message, /^contains control characters @ data\['filename'\]/);
  }
  const made = await s.json('POST', '/backups/new/partial', { body: { name: 'x', folders: [], filename: 'x\r\nSet-Cookie: a=b.tar' } });
  t.equal(made.status, 400, 'a new backup with such a name: 400');
  t.match(made.body.message, /^contains control characters @ data\['filename'\]/);
  t.same(await readdir(join(s.dataDir, 'backup')).catch(() => []), [], 'nothing stored');
});

t.test("a download's Content-Disposition is RFC 6266, exactly, whatever the file is named", async (t) => {
  const s = await startTestSupervisor(t);
  const slug = hexSlug();
  const name = `Sauvegarde d'été ☃ "50%".tar`;
  const res = await upload(s, await craftedBackup(slug), `?filename=${encodeURIComponent(name)}`);
  t.same(res, { status: 200, body: { result: 'ok', data: { slug } } });
  t.ok(await stat(join(s.dataDir, 'backup', name)), 'stored under the name given');

  const head = await rawHead(s, `/backups/${slug}/download`);
  t.equal(head[0], 'HTTP/1.1 200 OK');
  const disposition = head.filter((line) => /^content-disposition:/i.test(line));
  t.same(disposition, [`content-disposition: attachment; filename="Sauvegarde d'_t_ _ _50__.tar"; filename*=UTF-8''Sauvegarde%20d%27%C3%A9t%C3%A9%20%E2%98%83%20%2250%25%22.tar`]);
  const names = head.slice(1).map((line) => line.slice(0, line.indexOf(':')).toLowerCase()).sort();
  t.same(names, ['content-disposition', 'content-length', 'content-type', 'date', 'referrer-policy', 'uwebsockets', 'x-content-type-options', 'x-frame-options'], 'no other header line');

  // a file put in the folder by other means, named to split the header: still one line
  const evil = 'x\r\nSet-Cookie: session=stolen.tar';
  const other = hexSlug();
  await writeFile(join(s.dataDir, 'backup', evil), await craftedBackup(other));
  await s.json('POST', '/backups/reload');
  const evilHead = await rawHead(s, `/backups/${other}/download`);
  t.equal(evilHead[0], 'HTTP/1.1 200 OK');
  t.notOk(evilHead.some((line) => /^set-cookie/i.test(line)), 'no injected header line');
  t.same(
    evilHead.filter((line) => /^content-disposition:/i.test(line)),
    [`content-disposition: attachment; filename="x__Set-Cookie: session=stolen.tar"; filename*=UTF-8''x%0D%0ASet-Cookie%3A%20session%3Dstolen.tar`],
  );
});

t.test('the form: the tar first, small fields after it, one file, limits answered clearly', async (t) => {
  const s = await startTestSupervisor(t);
  const backupDir = join(s.dataDir, 'backup');
  const tar = await craftedBackup(hexSlug());

  const withField = await post(s, multipart([{ name: 'file', filename: 'b.tar', content: tar }, { name: 'note', content: 'small' }]), '?filename=one.tar');
  t.equal(withField.status, 200, 'a small field after the file is fine');
  // the original takes the first part as the tar, whatever its headers say
  const bare = await post(s, multipart([{ name: 'file', content: await craftedBackup(hexSlug()) }]), '?filename=two.tar');
  t.equal(bare.status, 200, 'a first part without a file name is the tar');

  const big = await post(s, multipart([{ name: 'file', filename: 'b.tar', content: tar }, { name: 'note', content: 'x'.repeat(2 * 1024 * 1024) }]), '?filename=three.tar');
  t.same(big, { status: 413, body: { result: 'error', message: "Improperly formatted upload: the form field 'note' is larger than 65536 bytes" } });
  const two = await post(s, multipart([{ name: 'file', filename: 'b.tar', content: tar }, { name: 'again', filename: 'c.tar', content: tar }]), '?filename=four.tar');
  t.same(two, { status: 400, body: { result: 'error', message: 'Improperly formatted upload: the form has more than 1 file part' } });
  const many = await post(s, multipart([{ name: 'file', filename: 'b.tar', content: tar }, ...Array.from({ length: 17 }, (_, i) => ({ name: `f${i}`, content: 'v' }))]), '?filename=five.tar');
  t.same(many, { status: 413, body: { result: 'error', message: 'Improperly formatted upload: the form has more than 16 fields' } });
  const cut = multipart([{ name: 'file', filename: 'b.tar', content: tar }]);
  const truncated = await post(s, { type: cut.type, body: cut.body.subarray(0, cut.body.length - 200) }, '?filename=six.tar');
  t.equal(truncated.status, 400, 'a body that ends inside the file part');
  t.match(truncated.body.message, /^Improperly formatted upload: malformed multipart\/form-data body/);
  const noBoundary = await post(s, { type: 'multipart/form-data', body: tar }, '?filename=seven.tar');
  t.equal(noBoundary.status, 400);
  t.match(noBoundary.body.message, /^Improperly formatted upload: not a multipart\/form-data body/);

  t.same(await everything(backupDir), ['one.tar', 'two.tar'], 'only the good uploads, no partial file');
});

t.test('the file is written to the backup folder as it arrives; a client that leaves takes it with it', async (t) => {
  const s = await startTestSupervisor(t);
  const backupDir = join(s.dataDir, 'backup');
  const form = multipart([{ name: 'file', filename: 'b.tar', content: Buffer.concat([await craftedBackup(hexSlug()), Buffer.alloc(4 * 1024 * 1024)]) }]);
  const socket = connect(s.supervisor.port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`POST /backups/new/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${s.supervisor.adminToken}\r\nContent-Type: ${form.type}\r\nContent-Length: ${form.body.length}\r\n\r\n`);
  socket.write(form.body.subarray(0, 2 * 1024 * 1024));

  let partial: string | undefined;
  for (let i = 0; i < 100 && !partial; i++) {
    await new Promise((r) => setTimeout(r, 50));
    const names = await readdir(backupDir).catch(() => [] as string[]);
    const found = names.find((n) => n.endsWith('.tar.partial'));
    if (found && (await stat(join(backupDir, found))).size > 1024 * 1024) partial = found;
  }
  t.ok(partial, `the part received so far is in the backup folder: ${partial}`);

  socket.destroy();
  let left: string[] = [];
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 50));
    left = await readdir(backupDir);
    if (left.length === 0) break;
  }
  t.same(left, [], 'no partial file once the client is gone');
  t.equal((await s.json('GET', '/backups')).status, 200, 'still serving');

  // the same upload whole: the partial file becomes the backup
  const whole = await post(s, form, '?filename=whole.tar');
  t.equal(whole.status, 200);
  t.same(await readdir(backupDir), ['whole.tar']);
});
