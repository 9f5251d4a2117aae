import { isIPv4, isIPv6 } from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type Question } from 'dns-packet';
import type { LocalAnswer } from './hosts.ts';

/** The responses the resolver makes itself, and the checks it makes on what it reads (all through dns-packet). */

/** dns-packet decodes these too, without declaring them. */
export type Message = DecodedPacket & { opcode: string; rcode: string };

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4 } as const;

/** The size a UDP answer may have when the query names none (RFC 1035 §4.2.1). */
const CLASSIC_UDP_LIMIT = 512;
/** Short: apps come and go. */
const LOCAL_TTL = 10;
/** Where the opcode sits in the flags; a reply repeats the query's. */
const OPCODE_BITS = 0xf << 11;

/** The message in `bytes`, or null when dns-packet cannot read it. */
export function decodeMessage(bytes: Buffer): Message | null {
  try {
    return dnsPacket.decode(bytes) as Message;
  } catch {
    return null;
  }
}

/** A response to `query` made here: its question echoed, recursion offered. */
export function reply(query: Message, rcode: number, answers: Answer[] = [], authoritative = false): Packet {
  const flags = (query.flags ?? 0) & (OPCODE_BITS | dnsPacket.RECURSION_DESIRED);
  return {
    type: 'response',
    id: query.id,
    flags: flags | dnsPacket.RECURSION_AVAILABLE | (authoritative ? dnsPacket.AUTHORITATIVE_ANSWER : 0) | rcode,
    questions: rcode === RCODE.FORMERR ? [] : query.questions,
    answers,
  };
}

/** The answer for a name of the hosts file: its IPv4 addresses for A, IPv6 for AAAA, the name's existence otherwise. */
export function localReply(query: Message, question: Question, found: LocalAnswer): Packet {
  if (found === 'nxdomain') return reply(query, RCODE.NXDOMAIN, [], true);
  const family = question.type === 'A' ? isIPv4 : question.type === 'AAAA' ? isIPv6 : null;
  const addresses = family ? found.addresses.filter((a) => family(a)) : [];
  const answers = addresses.map((data) => ({ name: question.name, type: question.type as 'A' | 'AAAA', class: 'IN' as const, ttl: LOCAL_TTL, data }));
  return reply(query, RCODE.NOERROR, answers, true);
}

/** Whether `answer` answers `query`: a response of the same id to the same question. */
export function answers(query: Packet, answer: Message): boolean {
  if (answer.type !== 'response' || answer.id !== query.id) return false;
  const asked = query.questions ?? [];
  const echoed = answer.questions ?? [];
  return asked.length === echoed.length && asked.every((q, i) => sameQuestion(q, echoed[i]));
}

function sameQuestion(a: Question, b: Question): boolean {
  return a.name.toLowerCase() === b.name.toLowerCase() && a.type === b.type && (a.class ?? 'IN') === (b.class ?? 'IN');
}

/** The largest UDP answer the asker takes: what its EDNS record says, else 512 bytes. */
export function udpLimit(query: Message): number {
  const opt = query.additionals?.find((r) => r.type === 'OPT');
  return opt && 'udpPayloadSize' in opt ? Math.max(CLASSIC_UDP_LIMIT, opt.udpPayloadSize) : CLASSIC_UDP_LIMIT;
}

/** `response` as one datagram of at most `limit` bytes: when it is larger, its header and question with TC set, for the asker to come again over TCP. */
export function datagram(response: Packet, limit: number): Buffer {
  const whole = dnsPacket.encode(response);
  if (whole.length <= limit) return whole;
  return dnsPacket.encode({ ...response, flags: (response.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE, answers: [], authorities: [], additionals: [] });
}
