// The dns plugin's resolver on its own, over real UDP sockets: the names of its hosts file (any
// case, with or without local.hass.io, read again when the file changes), no address for other
// record types, NXDOMAIN for unknown local names, the rest forwarded unchanged to the first
// upstream that answers (a second resolver here), SERVFAIL when none does.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.ts';

const RESOLVER = join(import.meta.dirname, '../../actors/supervisor/plugins/resolver.ts');

async function startResolver(t: { teardown(fn: () => unknown): void }, hosts: string, upstreams: string[]): Promise<{ port: number; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-resolver-'));
  await writeFile(join(dir, 'hosts'), hosts);
  await writeFile(join(dir, 'resolver.json'), JSON.stringify({ upstreams }));
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import=tsx', RESOLVER], { env: { ...process.env, HEARTH_DNS_CONFIG: dir, HEARTH_DNS_PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill('SIGTERM'));
  await new Promise<void>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('resolver listening')) ok();
    });
    child.on('exit', (code) => fail(new Error(`the resolver ended (${code}): ${out}`)));
  });
  return { port, dir };
}

/** A query for `name` of `type` with id `id`, recursion desired. */
function query(id: number, name: string, type = 1): Buffer {
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l, 'latin1')]);
  const head = Buffer.alloc(12);
  head.writeUInt16BE(id, 0);
  head.writeUInt16BE(0x0100, 2);
  head.writeUInt16BE(1, 4);
  const tail = Buffer.alloc(5);
  tail.writeUInt16BE(type, 1);
  tail.writeUInt16BE(1, 3);
  return Buffer.concat([head, ...labels, tail]);
}

interface Answer {
  id: number;
  rcode: number;
  answers: number;
  address: string | null;
}

async function ask(port: number, msg: Buffer, timeoutMs = 8000): Promise<Answer> {
  const socket = createSocket('udp4');
  try {
    return await new Promise<Answer>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error('no answer')), timeoutMs);
      socket.on('message', (m) => {
        clearTimeout(timer);
        const answers = m.readUInt16BE(6);
        // the first answer's address: the last four bytes of a reply holding one A record
        const address = answers ? [...m.subarray(m.length - 4)].join('.') : null;
        ok({ id: m.readUInt16BE(0), rcode: m.readUInt16BE(2) & 0xf, answers, address });
      });
      socket.send(msg, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

t.test('local names, other types, unknown local names, forwarding and its failure', async (t) => {
  const upstream = await startResolver(t, '10.9.8.7 far-away.example\n', []);
  const { port, dir } = await startResolver(t, '172.30.32.1 supervisor supervisor.local.hass.io\n172.30.33.5 my-app\n', [`127.0.0.1:${upstream.port}`]);

  t.match(await ask(port, query(1, 'supervisor')), { id: 1, rcode: 0, answers: 1, address: '172.30.32.1' });
  t.match(await ask(port, query(2, 'SuperVisor.Local.Hass.IO')), { id: 2, rcode: 0, address: '172.30.32.1' }, 'any case');
  t.match(await ask(port, query(3, 'my-app.local.hass.io')), { id: 3, rcode: 0, address: '172.30.33.5' }, 'a short name under the local domain');
  t.match(await ask(port, query(4, 'my-app', 28)), { id: 4, rcode: 0, answers: 0 }, 'AAAA: the name exists, no address');
  t.match(await ask(port, query(5, 'nobody.local.hass.io')), { id: 5, rcode: 3, answers: 0 }, 'NXDOMAIN');
  t.match(await ask(port, query(6, 'far-away.example')), { id: 6, rcode: 0, address: '10.9.8.7' }, 'forwarded, its id kept');

  // the hosts file is read again when it changes
  await writeFile(join(dir, 'hosts'), '172.30.33.9 new-app\n');
  t.match(await ask(port, query(7, 'new-app')), { id: 7, rcode: 0, address: '172.30.33.9' });

  // no upstream answers: SERVFAIL
  const lonely = await startResolver(t, '', []);
  t.match(await ask(lonely.port, query(8, 'far-away.example')), { id: 8, rcode: 2, answers: 0 });
});
