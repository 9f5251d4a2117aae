// The dns plugin's resolver as the image runs it (the one bundled file, started by plain node
// outside the repository, so dns-packet must be inside it), over real UDP and TCP sockets:
// the names of its hosts file for A and AAAA (any case, with or without local.hass.io, read
// again when the file changes), NXDOMAIN for unknown local names; everything else forwarded to
// upstreams played here, which check what arrives and answer as a test needs: an answer spoofed
// from another port, one with the wrong id or question, a truncated one; malformed queries
// answered with FORMERR or not at all, and the resolver still answering after them.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { createServer, connect, type Server } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dnsPacket, { type Answer, type Packet, type RecordType } from 'dns-packet';
import { resolverScript } from '../../../../actors/supervisor/plugins/images.ts';
import { FrameReader } from '../../../../actors/supervisor/plugins/resolver/tcp-frames.ts';
import type { Message } from '../../../../actors/supervisor/plugins/resolver/messages.ts';
import { freePort } from '../../../helpers/ports.ts';

type Teardown = { teardown(fn: () => unknown): void };

let bundled: Promise<string> | undefined;

/** The bundled resolver in a folder of its own, with `hosts` and `upstreams`; answers its port. */
async function startResolver(t: Teardown, hosts: string, upstreams: string[]): Promise<{ port: number; dir: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-resolver-'));
  bundled ??= resolverScript();
  await writeFile(join(dir, 'resolver.cjs'), await bundled);
  await writeFile(join(dir, 'hosts'), hosts);
  await writeFile(join(dir, 'resolver.json'), JSON.stringify({ upstreams }));
  const port = await freePort();
  const { NODE_OPTIONS: _, ...env } = process.env;
  const child = spawn(process.execPath, ['resolver.cjs'], { cwd: dir, env: { ...env, HEARTH_DNS_CONFIG: dir, HEARTH_DNS_PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill('SIGTERM'));
  await new Promise<void>((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('resolver listening on udp and tcp')) ok();
    });
    child.on('exit', (code) => fail(new Error(`the resolver ended (${code}): ${out}`)));
  });
  return { port, dir };
}

interface Asked {
  query: Message;
  from: RemoteInfo | null;
  /** answers from the upstream's own socket (UDP: its port; TCP: the connection) */
  send(answer: Packet): void;
}

/** An upstream on UDP and TCP of one port; `udp`/`tcp` decide what it does with each query. */
async function startUpstream(t: Teardown, on: { udp?: (asked: Asked) => void; tcp?: (asked: Asked) => void }) {
  const port = await freePort();
  const seen: Array<{ transport: 'udp' | 'tcp'; query: Message }> = [];
  const udp: Socket = createSocket('udp4');
  udp.on('message', (bytes, from) => {
    const query = dnsPacket.decode(bytes) as Message;
    seen.push({ transport: 'udp', query });
    on.udp?.({ query, from, send: (answer) => udp.send(dnsPacket.encode(answer), from.port, from.address) });
  });
  await new Promise<void>((ok) => udp.bind(port, '127.0.0.1', ok));
  const tcp: Server = createServer((socket) => {
    const frames = new FrameReader();
    socket.on('data', (chunk) => {
      for (const query of frames.push(chunk)) {
        seen.push({ transport: 'tcp', query });
        on.tcp?.({ query, from: null, send: (answer) => socket.write(dnsPacket.streamEncode(answer)) });
      }
    });
  });
  await new Promise<void>((ok) => tcp.listen(port, '127.0.0.1', ok));
  t.teardown(() => {
    udp.close();
    tcp.close();
  });
  return { address: `127.0.0.1:${port}`, seen };
}

/** The response an upstream makes to `query`: its id and question, `answers`, `flags` added. */
const response = (query: Message, answers: Answer[], flags = 0): Packet => ({ type: 'response', id: query.id, flags: dnsPacket.RECURSION_AVAILABLE | flags, questions: query.questions, answers });

const question = (id: number, name: string, type: RecordType = 'A'): Packet => ({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }] });

/** Sends `bytes` over UDP; the decoded answer, or null when none comes within `timeoutMs`. */
async function udpAsk(port: number, bytes: Buffer, timeoutMs = 8000): Promise<Message | null> {
  const socket = createSocket('udp4');
  try {
    return await new Promise<Message | null>((ok) => {
      const timer = setTimeout(() => ok(null), timeoutMs);
      socket.on('message', (m) => {
        clearTimeout(timer);
        ok(dnsPacket.decode(m) as Message);
      });
      socket.send(bytes, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

const ask = (port: number, packet: Packet, timeoutMs?: number) => udpAsk(port, dnsPacket.encode(packet), timeoutMs);

/** Writes `bytes` on one TCP connection; the `count` answers read back, or what came before the connection closed. */
async function tcpAsk(port: number, bytes: Buffer, count: number): Promise<{ answers: Message[]; closed: boolean }> {
  const socket = connect({ port, host: '127.0.0.1' });
  const answers: Message[] = [];
  const frames = new FrameReader();
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${answers.length} of ${count} answers over TCP`)), 8000);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      ok({ answers, closed });
    };
    socket.on('data', (chunk) => {
      answers.push(...frames.push(chunk));
      if (answers.length >= count) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

const addresses = (m: Message | null) => (m?.answers ?? []).map((a) => ('data' in a ? a.data : null));

t.test('local names: A and AAAA, other types, unknown local names, the hosts file read again', async (t) => {
  const { port, dir } = await startResolver(t, '172.30.32.1 supervisor supervisor.local.hass.io\n172.30.33.5 my-app\nfd00::5 my-app\n', []);

  const supervisor = await ask(port, question(1, 'supervisor'));
  t.match(supervisor, { id: 1, type: 'response', rcode: 'NOERROR', flag_aa: true, flag_rd: true, flag_ra: true, questions: [{ name: 'supervisor', type: 'A' }] });
  t.same(addresses(supervisor), ['172.30.32.1']);
  t.match(supervisor?.answers, [{ name: 'supervisor', type: 'A', class: 'IN', ttl: 10 }]);
  const anyCase = await ask(port, question(2, 'SuperVisor.Local.Hass.IO'));
  t.same([anyCase?.rcode, addresses(anyCase), anyCase?.questions?.[0].name], ['NOERROR', ['172.30.32.1'], 'SuperVisor.Local.Hass.IO'], 'any case, the question echoed as asked');
  t.same(addresses(await ask(port, question(3, 'my-app.local.hass.io'))), ['172.30.33.5'], 'a short name under the local domain');

  const noV6 = await ask(port, question(4, 'supervisor', 'AAAA'));
  t.same([noV6?.id, noV6?.rcode, noV6?.answers], [4, 'NOERROR', []], 'AAAA of a name without an IPv6 address: empty, NOERROR');
  const v6 = await ask(port, question(5, 'my-app', 'AAAA'));
  t.same([v6?.rcode, addresses(v6)], ['NOERROR', ['fd00::5']], 'AAAA of a name with one: the address');
  t.same(addresses(await ask(port, question(6, 'my-app'))), ['172.30.33.5'], 'and A still the IPv4 one');
  const mx = await ask(port, question(7, 'supervisor', 'MX'));
  t.same([mx?.rcode, mx?.answers], ['NOERROR', []], 'another type of a local name: it exists, with no such record');

  const nobody = await ask(port, question(8, 'nobody.local.hass.io'));
  t.same([nobody?.id, nobody?.rcode, nobody?.answers], [8, 'NXDOMAIN', []]);

  await writeFile(join(dir, 'hosts'), '172.30.33.9 new-app\n');
  t.same(addresses(await ask(port, question(9, 'new-app'))), ['172.30.33.9'], 'the changed hosts file');
  t.equal((await ask(port, question(10, 'my-app.local.hass.io')))?.rcode, 'NXDOMAIN', 'a name gone with the change');
});

t.test('TCP: local names, several queries on one connection, forwarded ones', async (t) => {
  const upstream = await startUpstream(t, { udp: ({ query, send }) => send(response(query, [{ name: 'far.example', type: 'A', ttl: 60, data: '10.9.8.7' }])) });
  const { port } = await startResolver(t, '172.30.32.1 supervisor\n', [upstream.address]);
  const { answers, closed } = await tcpAsk(port, Buffer.concat([dnsPacket.streamEncode(question(21, 'supervisor')), dnsPacket.streamEncode(question(22, 'far.example'))]), 2);
  t.notOk(closed, 'the connection stays open');
  const byId = new Map(answers.map((a) => [a.id, a]));
  t.same(addresses(byId.get(21) ?? null), ['172.30.32.1'], 'a local name over TCP');
  t.same(addresses(byId.get(22) ?? null), ['10.9.8.7'], 'a forwarded one over TCP');
  t.same(
    upstream.seen.map((s) => s.transport),
    ['udp'],
    'asked upstream over UDP first',
  );
});

t.test('every other type forwarded as asked; the answer passed back under the asker id', async (t) => {
  const upstream = await startUpstream(t, {
    udp: ({ query, send }) => {
      const q = query.questions![0];
      if (q.type === 'MX') send(response(query, [{ name: q.name, type: 'MX', ttl: 300, data: { preference: 10, exchange: 'mail.far.example' } }]));
      else if (q.type === 'TXT') send(response(query, [{ name: q.name, type: 'TXT', ttl: 300, data: ['v=spf1 -all', 'second string'] }]));
      else send(response(query, [], 3));
    },
  });
  const { port } = await startResolver(t, '172.30.32.1 supervisor\n', [upstream.address]);

  const mx = await ask(port, question(1, 'far.example', 'MX'));
  t.match(mx, { id: 1, rcode: 'NOERROR', answers: [{ name: 'far.example', type: 'MX', ttl: 300, data: { preference: 10, exchange: 'mail.far.example' } }] });
  const txt = await ask(port, question(1, 'Far.Example', 'TXT'));
  t.same(txt?.answers?.map((a) => ('data' in a ? (a.data as Buffer[]).map(String) : null)), [['v=spf1 -all', 'second string']], 'TXT strings as the upstream sent them');
  const nx = await ask(port, question(1, 'nowhere.example', 'A'));
  t.same([nx?.id, nx?.rcode], [1, 'NXDOMAIN'], "the upstream's NXDOMAIN passed on");

  t.same(
    upstream.seen.map((s) => [s.query.questions![0].name, s.query.questions![0].type, s.query.flag_rd]),
    [
      ['far.example', 'MX', true],
      ['Far.Example', 'TXT', true],
      ['nowhere.example', 'A', true],
    ],
    'the questions arrive as asked',
  );
  t.ok(
    upstream.seen.some((s) => s.query.id !== 1),
    'under ids of the resolver (random), not the asker',
  );
});

t.test('only the upstream answers: not another port, not another id, not another question', async (t) => {
  const spoofer = createSocket('udp4');
  await new Promise<void>((ok) => spoofer.bind(0, '127.0.0.1', ok));
  t.teardown(() => spoofer.close());
  const genuine = (query: Message): Answer[] => [{ name: query.questions![0].name, type: 'A', ttl: 60, data: '10.1.1.1' }];
  const forged = (query: Message): Answer[] => [{ name: query.questions![0].name, type: 'A', ttl: 60, data: '10.6.6.6' }];
  const upstream = await startUpstream(t, {
    udp: ({ query, from, send }) => {
      const name = query.questions![0].name;
      // the forgery first, the upstream's own answer a little later
      if (name === 'spoofed.example') spoofer.send(dnsPacket.encode(response(query, forged(query))), from!.port, from!.address);
      if (name === 'wrong-id.example') send({ ...response(query, forged(query)), id: query.id! ^ 0x5a5a });
      if (name === 'wrong-question.example') send({ ...response(query, forged(query)), questions: [{ name: 'other.example', type: 'A', class: 'IN' }] });
      if (name === 'wrong-type.example') send({ ...response(query, forged(query)), questions: [{ name, type: 'AAAA', class: 'IN' }] });
      if (name === 'not-a-response.example') send({ ...response(query, forged(query)), type: 'query' });
      setTimeout(() => send(response(query, genuine(query))), 150);
    },
  });
  const { port } = await startResolver(t, '', [upstream.address]);
  for (const [id, name] of ['spoofed', 'wrong-id', 'wrong-question', 'wrong-type', 'not-a-response'].entries()) {
    const answer = await ask(port, question(100 + id, `${name}.example`));
    t.same([answer?.id, addresses(answer)], [100 + id, ['10.1.1.1']], `${name}: passed over, the upstream's own answer taken`);
  }
});

t.test('a truncated UDP answer is asked again over TCP', async (t) => {
  const many = (name: string, count: number): Answer[] => Array.from({ length: count }, (_, i) => ({ name, type: 'TXT', ttl: 60, data: `record ${i} ${'x'.repeat(40)}` }));
  const upstream = await startUpstream(t, {
    udp: ({ query, send }) => send(response(query, [], dnsPacket.TRUNCATED_RESPONSE)),
    tcp: ({ query, send }) => {
      const name = query.questions![0].name;
      send(response(query, many(name, name === 'big.example' ? 40 : 2)));
    },
  });
  const { port } = await startResolver(t, '', [upstream.address]);

  const { answers } = await tcpAsk(port, dnsPacket.streamEncode(question(31, 'big.example', 'TXT')), 1);
  t.equal(answers[0]?.id, 31);
  t.equal(answers[0]?.answers?.length, 40, 'the whole answer, over TCP to the asker');
  t.notOk(answers[0]?.flag_tc);
  t.same(
    upstream.seen.filter((s) => s.query.questions![0].name === 'big.example').map((s) => s.transport),
    ['udp', 'tcp'],
    'UDP upstream, then TCP',
  );

  const small = await ask(port, question(32, 'small.example', 'TXT'));
  t.same([small?.id, small?.flag_tc, small?.answers?.length], [32, false, 2], 'over UDP to the asker when the whole answer fits 512 bytes');
  const big = await ask(port, question(33, 'big.example', 'TXT'));
  t.same([big?.id, big?.flag_tc, big?.answers?.length, big?.questions?.[0].name], [33, true, 0, 'big.example'], 'too big for the asker: truncated, for it to come over TCP');
});

t.test('upstreams asked in turn; SERVFAIL when none answers', async (t) => {
  const silent = await startUpstream(t, {});
  const answering = await startUpstream(t, { udp: ({ query, send }) => send(response(query, [{ name: 'far.example', type: 'A', ttl: 60, data: '10.9.8.7' }])) });
  const both = await startResolver(t, '', [silent.address, answering.address]);
  t.same(addresses(await ask(both.port, question(41, 'far.example'))), ['10.9.8.7'], 'the second after the first kept quiet');
  t.equal(silent.seen.length, 1, 'the first was asked');

  const alone = await startResolver(t, '', [silent.address]);
  const failed = await ask(alone.port, question(42, 'far.example'));
  t.same([failed?.id, failed?.rcode, failed?.answers, failed?.questions?.[0].name], [42, 'SERVFAIL', [], 'far.example']);
  const nobody = await startResolver(t, '', []);
  t.equal((await ask(nobody.port, question(43, 'far.example')))?.rcode, 'SERVFAIL', 'no upstream at all');
});

t.test('malformed queries: FORMERR or no answer, never a crash', async (t) => {
  const upstream = await startUpstream(t, { udp: ({ query, send }) => send(response(query, [])) });
  const { port } = await startResolver(t, '172.30.32.1 supervisor\n', [upstream.address]);
  const valid = dnsPacket.encode(question(51, 'supervisor'));

  t.equal(await udpAsk(port, Buffer.from('not dns at all'), 500), null, 'garbage: no answer');
  t.equal(await udpAsk(port, valid.subarray(0, 20), 500), null, 'a question cut short: no answer');
  t.equal(await udpAsk(port, Buffer.alloc(0), 500), null, 'an empty datagram: no answer');
  const pointerLoop = Buffer.from(valid);
  pointerLoop.writeUInt16BE(0xc00c, 12);
  t.equal(await udpAsk(port, pointerLoop, 500), null, 'a name pointing at itself: no answer');
  t.equal(await ask(port, { ...question(52, 'supervisor'), type: 'response' }, 500), null, 'a response: no answer, no loop');

  const two = await ask(port, { type: 'query', id: 53, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: 'supervisor', type: 'A' }, { name: 'homeassistant', type: 'A' }] });
  t.same([two?.id, two?.rcode, two?.answers], [53, 'FORMERR', []], 'two questions: FORMERR');
  const none = await ask(port, { type: 'query', id: 54, flags: dnsPacket.RECURSION_DESIRED, questions: [] });
  t.same([none?.id, none?.rcode], [54, 'FORMERR'], 'no question: FORMERR');
  const status = await ask(port, { ...question(55, 'supervisor'), flags: 2 << 11 });
  t.same([status?.id, status?.rcode, status?.opcode], [55, 'NOTIMP', 'STATUS'], 'another opcode: NOTIMP');

  const { answers, closed } = await tcpAsk(port, Buffer.from([0, 5, 1, 2, 3, 4, 5]), 1);
  t.same([answers, closed], [[], true], 'garbage over TCP: the connection closed');

  t.same(addresses(await udpAsk(port, valid)), ['172.30.32.1'], 'still answering over UDP');
  t.same(addresses((await tcpAsk(port, dnsPacket.streamEncode(question(56, 'supervisor')), 1)).answers[0] ?? null), ['172.30.32.1'], 'and over TCP');
  t.equal(upstream.seen.length, 0, 'nothing of it went upstream');
});
