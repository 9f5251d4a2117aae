import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { readFileSync, statSync } from 'node:fs';

/**
 * The dns plugin's resolver, run alone in its container (`node /plugin/resolver.js`; this file is
 * transpiled on its own into the image, so it imports node's modules only). It answers A
 * questions for the names of `/config/hosts` (the apps' hostnames, `supervisor`,
 * `homeassistant`, with and without `.local.hass.io`, kept current by the supervisor) and
 * forwards every other question, unchanged, to the upstreams of `/config/resolver.json`, one
 * after the other, answering SERVFAIL when none answers. The hosts file is read again when it
 * changes; the upstreams only at start (a change of options restarts the plugin).
 */

const CONFIG_DIR = process.env.HEARTH_DNS_CONFIG ?? '/config';
const PORT = Number(process.env.HEARTH_DNS_PORT ?? 53);
const LOCAL_DOMAIN = 'local.hass.io';
const UPSTREAM_TIMEOUT_MS = 2000;
const TYPE_A = 1;
const CLASS_IN = 1;

interface ResolverConfig {
  /** upstream IPv4 addresses (port 53, or `<ip>:<port>`), asked in this order */
  upstreams: string[];
}

interface Question {
  name: string;
  type: number;
  klass: number;
  /** where the question section ends in the query */
  end: number;
}

const say = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);

function readConfig(): ResolverConfig {
  try {
    const raw = JSON.parse(readFileSync(`${CONFIG_DIR}/resolver.json`, 'utf8'));
    return { upstreams: Array.isArray(raw.upstreams) ? raw.upstreams.filter((u: unknown) => typeof u === 'string') : [] };
  } catch (err) {
    say(`no usable ${CONFIG_DIR}/resolver.json (${(err as Error).message}): nothing is forwarded`);
    return { upstreams: [] };
  }
}

let hosts = new Map<string, string>();
let hostsStamp = '';

/** The hosts file as name → IPv4, read again when its size or time changed. */
function currentHosts(): Map<string, string> {
  const file = `${CONFIG_DIR}/hosts`;
  let stamp = '';
  try {
    const st = statSync(file);
    stamp = `${st.mtimeMs}:${st.size}`;
  } catch {
    return hosts;
  }
  if (stamp === hostsStamp) return hosts;
  const next = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const [ip, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!ip || !/^\d+\.\d+\.\d+\.\d+$/.test(ip)) continue;
    for (const name of names) next.set(name.toLowerCase().replace(/\.$/, ''), ip);
  }
  hosts = next;
  hostsStamp = stamp;
  say(`hosts: ${next.size} names`);
  return hosts;
}

function readQuestion(msg: Buffer): Question | null {
  if (msg.length < 12 || msg.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let at = 12;
  for (;;) {
    if (at >= msg.length) return null;
    const len = msg[at];
    if (len === 0) break;
    if (len > 63 || at + 1 + len > msg.length) return null;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  at += 1;
  if (at + 4 > msg.length) return null;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at), klass: msg.readUInt16BE(at + 2), end: at + 4 };
}

/** A reply to `query` echoing its question, with `rcode` and an A record when `ip` is given. */
function reply(query: Buffer, q: Question, rcode: number, ip?: string): Buffer {
  const head = Buffer.from(query.subarray(0, q.end));
  // QR, the query's opcode and RD, AA set, RA set
  head.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x7900) | 0x0400 | 0x0080 | rcode, 2);
  head.writeUInt16BE(1, 4);
  head.writeUInt16BE(ip ? 1 : 0, 6);
  head.writeUInt16BE(0, 8);
  head.writeUInt16BE(0, 10);
  if (!ip) return head;
  const answer = Buffer.alloc(16);
  answer.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  answer.writeUInt16BE(TYPE_A, 2);
  answer.writeUInt16BE(CLASS_IN, 4);
  answer.writeUInt32BE(10, 6); // short: apps come and go
  answer.writeUInt16BE(4, 10);
  ip.split('.').forEach((octet, i) => answer.writeUInt8(Number(octet), 12 + i));
  return Buffer.concat([head, answer]);
}

/** The local answer for a name: its address, 'nxdomain' for an unknown name of the local domain, null to forward. */
function local(name: string): string | 'nxdomain' | null {
  const table = currentHosts();
  const ip = table.get(name);
  if (ip) return ip;
  if (name === LOCAL_DOMAIN || name.endsWith(`.${LOCAL_DOMAIN}`)) {
    const short = name.slice(0, -LOCAL_DOMAIN.length - 1);
    return table.get(short) ?? 'nxdomain';
  }
  return null;
}

/** Asks each upstream in turn; the first answer wins. */
async function forward(query: Buffer, upstreams: string[]): Promise<Buffer | null> {
  for (const server of upstreams) {
    const [host, port] = server.split(':');
    const answer = await new Promise<Buffer | null>((resolve) => {
      const socket = createSocket('udp4');
      const done = (value: Buffer | null) => {
        clearTimeout(timer);
        socket.close();
        resolve(value);
      };
      const timer = setTimeout(() => done(null), UPSTREAM_TIMEOUT_MS);
      socket.on('message', (msg) => done(msg));
      socket.on('error', () => done(null));
      socket.send(query, port ? Number(port) : 53, host);
    });
    if (answer) return answer;
    say(`upstream ${server} did not answer`);
  }
  return null;
}

async function answer(server: Socket, query: Buffer, from: RemoteInfo, config: ResolverConfig): Promise<void> {
  const q = readQuestion(query);
  if (!q) return; // not a question this resolver reads: no answer, as for garbage
  const found = q.klass === CLASS_IN ? local(q.name) : null;
  let out: Buffer;
  if (found === 'nxdomain') out = reply(query, q, 3);
  else if (found) out = q.type === TYPE_A ? reply(query, q, 0, found) : reply(query, q, 0);
  else out = (await forward(query, config.upstreams)) ?? reply(query, q, 2);
  server.send(out, from.port, from.address);
}

function main(): void {
  const config = readConfig();
  const server = createSocket('udp4');
  server.on('message', (msg, from) => void answer(server, msg, from, config).catch((err) => say(`answering failed: ${(err as Error).message}`)));
  server.on('error', (err) => {
    say(`resolver failed: ${err.message}`);
    process.exit(1);
  });
  server.bind(PORT, '0.0.0.0', () => say(`resolver listening on udp port ${PORT}, forwarding to ${config.upstreams.join(', ') || 'nobody'}`));
  currentHosts();
  process.on('SIGTERM', () => {
    say('resolver stopping');
    server.close();
    process.exit(0);
  });
}

main();
