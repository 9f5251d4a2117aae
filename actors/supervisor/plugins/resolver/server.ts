import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import dnsPacket, { type Packet } from 'dns-packet';
import type { HostsTable } from './hosts.ts';
import { datagram, decodeMessage, localReply, RCODE, reply, udpLimit, type Message } from './messages.ts';
import { FrameReader } from './tcp-frames.ts';
import { ask, type Upstream } from './upstream.ts';

/**
 * The resolver on UDP and TCP port `port`: the names of the hosts table answered here, every
 * other question forwarded unchanged (but for its id) to the upstreams one after the other,
 * SERVFAIL when none answers. What dns-packet cannot read gets no answer; a query it reads but
 * that asks other than one question gets FORMERR, another opcode than QUERY gets NOTIMP.
 */

export interface ResolverOptions {
  port: number;
  hosts: HostsTable;
  upstreams: Upstream[];
  logLine: (line: string) => void;
  upstreamTimeoutMs?: number;
}

/** Forwarded questions waiting at once; beyond, SERVFAIL at once rather than sockets without end. */
const MAX_FORWARDING = 256;
/** A TCP connection quiet this long is closed (RFC 7766 asks for a timeout, of seconds). */
const TCP_IDLE_MS = 10_000;
const MAX_TCP_CONNECTIONS = 64;

export class Resolver {
  private forwarding = 0;
  private udp?: Socket;
  private tcp?: Server;

  constructor(private readonly options: ResolverOptions) {}

  /** The response to `query`, or null when it gets none (it is itself a response). */
  async respond(query: Message): Promise<Packet | null> {
    if (query.type !== 'query') return null;
    if (query.opcode !== 'QUERY') return reply(query, RCODE.NOTIMP);
    if (query.questions?.length !== 1) return reply(query, RCODE.FORMERR);
    const question = query.questions[0];
    const found = (question.class ?? 'IN') === 'IN' ? this.options.hosts.lookup(question.name) : null;
    if (found) return localReply(query, question, found);
    const answer = await this.forward(query);
    return answer ? { ...answer, id: query.id } : reply(query, RCODE.SERVFAIL);
  }

  private async forward(query: Message): Promise<Message | null> {
    if (this.forwarding >= MAX_FORWARDING) return null;
    this.forwarding++;
    try {
      for (const upstream of this.options.upstreams) {
        const answer = await ask(upstream, query, this.options.upstreamTimeoutMs ?? 2000);
        if (answer) return answer;
        this.options.logLine(`upstream ${upstream.host}:${upstream.port} did not answer`);
      }
      return null;
    } finally {
      this.forwarding--;
    }
  }

  /** Sends the response to `query`, if it gets one; a failure is logged, never thrown. */
  private answer(query: Message, send: (response: Packet) => void): void {
    this.respond(query)
      .then((response) => response && send(response))
      .catch((err) => this.options.logLine(`answering ${query.questions?.[0]?.name} failed: ${(err as Error).message}`));
  }

  /** A response as bytes; SERVFAIL when dns-packet cannot write what an upstream sent. */
  private encoded(query: Message, response: Packet, write: (r: Packet) => Buffer): Buffer {
    try {
      return write(response);
    } catch (err) {
      this.options.logLine(`cannot pass on the answer to ${query.questions?.[0]?.name}: ${(err as Error).message}`);
      return write(reply(query, RCODE.SERVFAIL));
    }
  }

  async listen(): Promise<void> {
    const udp = createSocket('udp4');
    this.udp = udp;
    udp.on('message', (bytes, from) => {
      const query = decodeMessage(bytes);
      if (!query) return;
      this.answer(query, (response) => udp.send(this.encoded(query, response, (r) => datagram(r, udpLimit(query))), from.port, from.address));
    });
    udp.on('error', (err) => this.options.logLine(`udp: ${err.message}`));
    const tcp = createServer((socket) => {
      const frames = new FrameReader();
      socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
      socket.on('error', () => socket.destroy());
      socket.on('data', (chunk) => {
        let queries: Message[];
        try {
          queries = frames.push(chunk);
        } catch {
          socket.destroy();
          return;
        }
        for (const query of queries) {
          this.answer(query, (response) => {
            if (!socket.destroyed) socket.write(this.encoded(query, response, (r) => dnsPacket.streamEncode(r)));
          });
        }
      });
    });
    tcp.maxConnections = MAX_TCP_CONNECTIONS;
    this.tcp = tcp;
    await Promise.all([
      new Promise<void>((ok, fail) => {
        udp.once('error', fail);
        udp.bind(this.options.port, '0.0.0.0', () => ok());
      }),
      new Promise<void>((ok, fail) => {
        tcp.once('error', fail);
        tcp.listen(this.options.port, '0.0.0.0', () => ok());
      }),
    ]);
  }

  close(): void {
    this.udp?.close();
    this.tcp?.close();
  }
}
