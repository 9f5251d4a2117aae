// The host journal through systemd-journal-gatewayd: a stand-in gateway on a Unix socket answers
// as the real one does (export format, json-seq boots, field values); the routes ask it as the
// original does (matches, Range) and stream its entries back as text.
import t from 'tap';
import { createServer, type Server } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { scriptedHost, SYSTEMD_HOST } from '../../../helpers/host.ts';
import { ExportParser, LINES_MAX } from '../../../../actors/supervisor/host/journal.ts';

/** An entry in the export format; `binary` fields are written length-prefixed. */
function exportEntry(fields: Record<string, string>, binary: string[] = []): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (binary.includes(k)) {
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(Buffer.byteLength(v)));
      parts.push(Buffer.from(`${k}\n`), len, Buffer.from(v), Buffer.from('\n'));
    } else parts.push(Buffer.from(`${k}=${v}\n`));
  }
  parts.push(Buffer.from('\n'));
  return Buffer.concat(parts);
}

const T0 = Date.UTC(2026, 10, 24, 9, 30, 0, 123) * 1000;
const ENTRIES = [
  exportEntry({ __CURSOR: 's=1;i=1', __REALTIME_TIMESTAMP: String(T0), _HOSTNAME: 'box', SYSLOG_IDENTIFIER: 'sshd', _PID: '12', MESSAGE: 'Accepted key' }),
  exportEntry({ __CURSOR: 's=1;i=2', __REALTIME_TIMESTAMP: String(T0 + 1000), _HOSTNAME: 'box', SYSLOG_IDENTIFIER: 'kernel', MESSAGE: '\x1b[31mred\x1b[0m line\nwith a newline' }, ['MESSAGE']),
];

async function fakeGateway(t: { teardown(fn: () => unknown): void }) {
  const asked: { url: string; range?: string; accept?: string }[] = [];
  const socket = join(await mkdtemp(join(tmpdir(), 'hearth-journal-')), 'gatewayd.sock');
  const server: Server = createServer((req, res) => {
    asked.push({ url: req.url ?? '', range: req.headers.range, accept: req.headers.accept });
    if (req.url === '/boots') {
      res.writeHead(200, { 'Content-Type': 'application/json-seq' });
      res.end('\x1e{"index":-1,"boot_id":"bbb"}\n\x1e{"index":0,"boot_id":"ccc"}\n\x1e{"index":-2,"boot_id":"aaa"}\n');
    } else if (req.url === '/fields/SYSLOG_IDENTIFIER') {
      res.writeHead(200).end('sshd\nkernel\n');
    } else if (req.url?.startsWith('/entries')) {
      res.writeHead(200, { 'Content-Type': 'application/vnd.fdo.journal' });
      res.write(ENTRIES[0]);
      // the second entry arrives in two pieces
      res.write(ENTRIES[1].subarray(0, 20));
      setTimeout(() => (req.url?.includes('follow') ? res.write(ENTRIES[1].subarray(20)) : res.end(ENTRIES[1].subarray(20))), 20);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(socket, ok));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise((ok) => server.close(ok));
  });
  return { socket, asked };
}

t.test('the export format: text and binary fields, entries across chunks', async (t) => {
  const p = new ExportParser();
  const all = Buffer.concat(ENTRIES);
  const got = [...p.push(all.subarray(0, 50)), ...p.push(all.subarray(50, 130)), ...p.push(all.subarray(130)), ...p.end()];
  t.same(got.map((e) => e.cursor), ['s=1;i=1', 's=1;i=2']);
  t.equal(got[1].fields.MESSAGE, '\x1b[31mred\x1b[0m line\nwith a newline');
});

t.test('host logs, boots and identifiers from systemd-journal-gatewayd', async (t) => {
  const gw = await fakeGateway(t);
  const host = Object.assign(scriptedHost({ ...SYSTEMD_HOST, journalGatewayd: true }), { journalSocket: gw.socket });
  const s = await startTestSupervisor(t, { hostSystem: host });

  const res = await s.call('GET', '/host/logs');
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-first-cursor'), 's=1;i=1');
  t.equal(res.headers.get('x-accel-buffering'), 'no');
  t.equal(await res.text(), '2026-11-24 09:30:00.123 box sshd[12]: Accepted key\n2026-11-24 09:30:00.124 box kernel: \x1b[31mred\x1b[0m line\nwith a newline\n', 'host logs are verbose');
  const first = new URL(`http://x${gw.asked.at(-1)!.url}`);
  t.ok(first.searchParams.getAll('SYSLOG_IDENTIFIER').includes('systemd'), 'the default identifiers');
  t.equal(gw.asked.at(-1)!.range, 'entries=:-99:100');
  t.equal(gw.asked.at(-1)!.accept, 'application/vnd.fdo.journal');

  const one = await s.call('GET', '/host/logs/identifiers/kernel?lines=53&no_colors');
  t.equal(await one.text(), 'Accepted key\nred line\nwith a newline\n', 'one identifier: plain, colors stripped');
  t.same(new URL(`http://x${gw.asked.at(-1)!.url}`).searchParams.getAll('SYSLOG_IDENTIFIER'), ['kernel']);
  t.equal(gw.asked.at(-1)!.range, 'entries=:-52:53');

  await (await s.call('GET', '/host/logs/identifiers/sshd', { headers: { Range: 'entries=s=1;i=1:' } })).text();
  t.equal(gw.asked.at(-1)!.range, `entries=s=1;i=1:${LINES_MAX}`, 'a Range ending in `:` is completed');
  t.equal((await (await s.call('GET', '/host/logs/identifiers/sshd', { headers: { Accept: 'text/x-log' } })).text()).split('\n')[0], '2026-11-24 09:30:00.123 box sshd[12]: Accepted key');
  const bad = await s.call('GET', '/host/logs', { headers: { Accept: 'application/json' } });
  t.equal(bad.status, 400);
  t.equal(await bad.text(), 'Invalid content type requested. Only text/plain and text/x-log supported for now.');

  t.same((await s.json('GET', '/host/logs/boots')).body, { result: 'ok', data: { boots: { '-2': 'aaa', '-1': 'bbb', '0': 'ccc' } } });
  await (await s.call('GET', '/host/logs/boots/-2/identifiers/sshd')).text();
  t.equal(new URL(`http://x${gw.asked.at(-1)!.url}`).searchParams.get('_BOOT_ID'), 'aaa', 'offset -2: two boots back');
  await (await s.call('GET', '/host/logs/boots/1')).text();
  t.equal(new URL(`http://x${gw.asked.at(-1)!.url}`).searchParams.get('_BOOT_ID'), 'aaa', 'offset 1: the oldest');
  await (await s.call('GET', '/host/logs/boots/f00d')).text();
  t.equal(new URL(`http://x${gw.asked.at(-1)!.url}`).searchParams.get('_BOOT_ID'), 'f00d', 'a boot id as given');
  const far = await s.call('GET', '/host/logs/boots/-5');
  t.equal(far.status, 400);
  t.equal(await far.text(), 'Logs only contain 3 boots');
  t.same((await s.json('GET', '/host/logs/identifiers')).body, { result: 'ok', data: { identifiers: ['sshd', 'kernel'] } });

  // follow: the entries so far, then the stream stays open for more
  const ctrl = new AbortController();
  const follow = await fetch(`${s.base}/host/logs/identifiers/sshd/follow`, { headers: { Authorization: `Bearer ${s.supervisor.adminToken}` }, signal: ctrl.signal });
  t.equal(follow.status, 200);
  t.ok(new URL(`http://x${gw.asked.at(-1)!.url}`).searchParams.has('follow'));
  t.equal(gw.asked.at(-1)!.range, `entries=:-99:${LINES_MAX}`);
  const reader = follow.body!.getReader();
  let seen = '';
  while (!seen.includes('with a newline\n')) seen += new TextDecoder().decode((await reader.read()).value);
  t.equal(seen, 'Accepted key\n\x1b[31mred\x1b[0m line\nwith a newline\n');
  ctrl.abort();
});

t.test('a gateway socket nobody answers on: the original\'s text 400', async (t) => {
  const host = Object.assign(scriptedHost({ ...SYSTEMD_HOST, journalGatewayd: true }), { journalSocket: join(await mkdtemp(join(tmpdir(), 'hearth-journal-')), 'none.sock') });
  const s = await startTestSupervisor(t, { hostSystem: host });
  const res = await s.call('GET', '/host/logs');
  t.equal(res.status, 400);
  t.equal(await res.text(), 'Unable to connect to systemd-journal-gatewayd');
  t.same((await s.json('GET', '/host/logs/boots')).body, { result: 'error', message: 'Unable to connect to systemd-journal-gatewayd' });
});
