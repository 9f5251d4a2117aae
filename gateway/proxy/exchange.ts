import { STATUS_CODES } from 'node:http';
import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest } from '@trufflesuite/uws-js-unofficial';
import type { HttpReply } from '../replies.ts';
import { headerLines, writeHead } from '../response-head.ts';

/** What a proxy hop decides on, and the pieces its HTTP and WebSocket relays share. */

/** A request as the hop sees it before deciding: read in the uWS callback, valid afterwards. */
export interface ProxyIncoming {
  method: string;
  /** the path as received (not decoded) */
  url: string;
  /** the raw query string, without `?` */
  query: string;
  /** names lower-cased; repeated ones joined with `, `, repeated Cookie headers with `; ` */
  headers: Record<string, string>;
  remoteIp: string;
  websocket: boolean;
}

export interface ProxyTarget {
  host: string;
  port: number;
  /** path and query string on the upstream */
  path: string;
  /** the request headers as sent upstream (hop-by-hop and body framing headers are set here) */
  headers: Record<string, string>;
  /** the request body goes upstream as it arrives (chunked); otherwise read whole first */
  streamBody: boolean;
  /** lower-case names of the only response headers passed back (besides the content type); absent: all but framing */
  responseHeaders?: ReadonlySet<string>;
}

export type ProxyPlan = { target: ProxyTarget } | { refuse: HttpReply };

export interface ProxyRoute {
  /** uWS pattern, e.g. `/ingress/*` */
  pattern: string;
  /** whether a path under the pattern is this proxy's (others go on to the app's other routes) */
  matches(url: string): boolean;
  plan(incoming: ProxyIncoming): ProxyPlan | Promise<ProxyPlan>;
  log(line: string): void;
  /** what the log lines call this proxy (default `ingress`) */
  name?: string;
}

/** Responses shorter than this are read whole and sent with a length, as the original does. */
export const BUFFER_BELOW = 4_194_000;
/** A buffered request body past this is refused (413). */
export const MAX_BUFFERED_BODY = 16 * 1024 * 1024;
/** The largest WebSocket message relayed. */
export const MAX_MESSAGE = 16 * 1024 * 1024;

/**
 * Request headers that describe one connection or one body's framing: never copied across a hop.
 * Content-Encoding stays, as the body's bytes go on as they came.
 */
export const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'content-length', 'transfer-encoding', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-version', 'sec-websocket-key', 'sec-websocket-accept']);

/** What the uWS request says, copied while it is valid (it is gone after the callback). */
export function incomingOf(res: UwsResponse, req: UwsRequest, websocket: boolean): ProxyIncoming {
  const headers: Record<string, string> = Object.create(null);
  req.forEach((k, v) => {
    // cookie values may hold commas: split Cookie headers join as one list of pairs (RFC 9113 §8.2.3)
    headers[k] = headers[k] === undefined ? v : `${headers[k]}${k === 'cookie' ? '; ' : ', '}${v}`;
  });
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    url: req.getUrl(),
    query: req.getQuery() ?? '',
    headers,
    remoteIp: Buffer.from(res.getRemoteAddressAsText()).toString(),
    websocket,
  };
}

/** `502 Bad Gateway`: uWS wants the status line whole. */
export function statusLineOf(status: number, message?: string): string {
  return `${status} ${message || STATUS_CODES[status] || 'Unknown'}`;
}

/** Writes a refusal (a hop's 401, 503...), closing the connection when a body was left unread. */
export function answer(res: UwsResponse, reply: HttpReply, closeConnection: boolean, log: (line: string) => void): void {
  res.cork(() => {
    if (writeHead(res, statusLineOf(reply.status), headerLines(reply.headers), log)) res.end(reply.body ?? '', closeConnection);
  });
}

