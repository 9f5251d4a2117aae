import { RateLimitedLines, type LineLimit } from '../actors/logging/rate-limited.ts';
import type { Principal } from '../actors/auth/types.ts';

/** REST statuses that refuse what a client asked for: a login it lacks, a path or method that is not there. */
const REFUSED_STATUSES: ReadonlySet<number> = new Set([401, 403, 404, 405]);

/** WebSocket error codes of the same kind. */
const REFUSED_CODES: ReadonlySet<string> = new Set(['unknown_command', 'unauthorized']);

/** Who asked for what over HTTP: the router's request. */
export interface HttpAsking {
  method: string;
  path: string;
  principal?: Principal;
  remoteIp: string;
}

/** Longest piece of a client's own words (a path, a command type) put in a line. */
const CLIENT_TEXT_MAX = 200;

/**
 * What clients were refused, for the operator: a line per refusal naming what was asked, by
 * which user, from which address, so a misbehaving client or integration can be found. Each
 * kind (a status, a code) writes at most so many lines a minute and then one that counts the
 * rest, so a flood cannot fill the log.
 */
export class RefusalLog {
  private readonly lines: RateLimitedLines;

  constructor(logLine: (line: string) => void, limit?: LineLimit) {
    this.lines = new RateLimitedLines(logLine, limit);
  }

  /** A REST answer: a line when its status refuses (the request is read only then: its address costs a call into uWS). */
  http(status: number, request: HttpAsking): void {
    if (!REFUSED_STATUSES.has(status)) return;
    this.lines.write(`refused requests (${status})`, () => `Refused ${status} for ${request.method.slice(0, 20)} ${clientText(request.path)} from ${request.remoteIp} (${userOf(request.principal)})`);
  }

  /** A WebSocket error answer: a line when its code refuses. */
  websocket(code: string, type: string, principal: Principal | undefined, ip: string): void {
    if (!REFUSED_CODES.has(code)) return;
    this.lines.write(`refused WebSocket commands (${code})`, () => `Refused ${code} for WebSocket command ${clientText(type)} from ${ip} (${userOf(principal)})`);
  }

  /** A WebSocket connection ended for a message that could not be read (nor its id). */
  unreadable(principal: Principal | undefined, ip: string): void {
    this.lines.write('WebSocket connections closed for unreadable messages', () => `Closed the WebSocket connection of ${ip} (${userOf(principal)}): a message that could not be read, with no id to answer it under`);
  }

  /** Says what the current windows left out (at shutdown). */
  close(): void {
    this.lines.close();
  }
}

/** A client's text, quoted (so no control character of it reaches the log) and cut short. */
function clientText(text: string): string {
  return JSON.stringify(text.length > CLIENT_TEXT_MAX ? `${text.slice(0, CLIENT_TEXT_MAX)}…` : text);
}

function userOf(principal: Principal | undefined): string {
  return principal ? `user ${principal.userId}` : 'no user';
}
