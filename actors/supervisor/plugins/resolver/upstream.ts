import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import dnsPacket from 'dns-packet';
import { answers, decodeMessage, type Message } from './messages.ts';
import { FrameReader } from './tcp-frames.ts';

/**
 * Asking an upstream resolver. Each question goes out under an id of its own, drawn at random,
 * from a fresh UDP port; only a response from the upstream's own address and port, with that
 * id and the same question, is taken. Anything else (an answer spoofed from elsewhere, a late
 * answer to an earlier question) is passed over while the wait lasts. A truncated UDP answer is
 * asked again over TCP.
 */

export interface Upstream {
  host: string;
  port: number;
}

/** `<ip>` or `<ip>:<port>` (an IPv6 address in brackets) as an upstream, or null. */
export function parseUpstream(text: string): Upstream | null {
  try {
    const url = new URL(`dns://${text}`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    return host ? { host, port: url.port ? Number(url.port) : 53 } : null;
  } catch {
    return null;
  }
}

/** `query` under a fresh random id, as it goes upstream. */
function renumbered(query: Message): Message {
  return { ...query, id: randomInt(0x10000) };
}

export function askUdp(upstream: Upstream, query: Message, timeoutMs: number): Promise<Message | null> {
  const sent = renumbered(query);
  return new Promise((resolve) => {
    const socket = createSocket(isIPv6(upstream.host) ? 'udp6' : 'udp4');
    let finished = false;
    const done = (answer: Message | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('message', (bytes, from) => {
      if (from.address !== upstream.host || from.port !== upstream.port) return;
      const answer = decodeMessage(bytes);
      if (answer && answers(sent, answer)) done(answer);
    });
    socket.on('error', () => done(null));
    socket.send(dnsPacket.encode(sent), upstream.port, upstream.host);
  });
}

export function askTcp(upstream: Upstream, query: Message, timeoutMs: number): Promise<Message | null> {
  const sent = renumbered(query);
  return new Promise((resolve) => {
    const socket = connect({ host: upstream.host, port: upstream.port });
    const frames = new FrameReader();
    const done = (answer: Message | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('connect', () => socket.write(dnsPacket.streamEncode(sent)));
    socket.on('data', (chunk) => {
      try {
        const answer = frames.push(chunk).find((m) => answers(sent, m));
        if (answer) done(answer);
      } catch {
        done(null);
      }
    });
    socket.on('error', () => done(null));
    socket.on('close', () => done(null));
  });
}

/** The upstream's answer to `query`, over TCP when its UDP answer was truncated (the truncated one when TCP fails). */
export async function ask(upstream: Upstream, query: Message, timeoutMs: number): Promise<Message | null> {
  const answer = await askUdp(upstream, query, timeoutMs);
  if (!answer?.flag_tc) return answer;
  return (await askTcp(upstream, query, timeoutMs)) ?? answer;
}
