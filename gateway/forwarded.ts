import { isIP, type BlockList } from 'node:net';
import { canonicalIp } from '../actors/auth/ip-bans.ts';

/** `http: use_x_forwarded_for` and `trusted_proxies`: X-Forwarded-For is honoured from these only. */
export interface Forwarding {
  use: boolean;
  trusted: BlockList;
}

/**
 * The original's forwarded middleware (http/forwarded.py), for a request that carries
 * X-Forwarded-For: the client's address, read right to left past trusted proxies, when
 * forwarding is configured and the connected peer is a trusted proxy. Undefined for what it
 * answers 400: forwarding not configured, an untrusted peer, an element that is no address, a
 * malformed X-Forwarded-Proto or an empty X-Forwarded-Host. Each refusal is logged.
 */
export function forwardedClient(
  peerIp: string,
  headers: Record<string, string | undefined>,
  forwarded: Forwarding | undefined,
  log: (line: string) => void,
): string | undefined {
  const peer = canonicalIp(peerIp);
  const header = headers['x-forwarded-for'] ?? '';
  if (!forwarded?.use) {
    log(`A request from a reverse proxy was received from ${peer}, but your HTTP integration is not set-up for reverse proxies`);
    return undefined;
  }
  const trusted = (ip: string) => {
    const kind = isIP(ip);
    return kind !== 0 && forwarded.trusted.check(ip, kind === 4 ? 'ipv4' : 'ipv6');
  };
  if (!trusted(peer)) {
    log(`Received X-Forwarded-For header from an untrusted proxy ${peer}`);
    return undefined;
  }
  // several headers read as one list (the router joined them with commas)
  const chain = header.split(',').map((a) => a.trim()).reverse();
  if (chain.some((a) => isIP(a) === 0)) {
    log(`Invalid IP address in X-Forwarded-For: ${header}`);
    return undefined;
  }
  let index = chain.findIndex((a) => !trusted(a));
  // every element trusted: the left-most is the client
  if (index === -1) index = chain.length - 1;
  const proto = headers['x-forwarded-proto'];
  if (proto !== undefined) {
    const protos = proto.split(',').map((p) => p.trim());
    if (protos.includes('')) {
      log(`Empty item received in X-Forward-Proto header: ${proto}`);
      return undefined;
    }
    if (protos.length !== 1 && protos.length !== chain.length) {
      log(`Incorrect number of elements in X-Forward-Proto. Expected 1 or ${chain.length}, got ${protos.length}: ${proto}`);
      return undefined;
    }
  }
  const host = headers['x-forwarded-host'];
  if (host !== undefined && host.split(',').pop()!.trim() === '') {
    log('Empty value received in X-Forward-Host header');
    return undefined;
  }
  return chain[index];
}
