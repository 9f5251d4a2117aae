import type { Readable } from 'node:stream';
import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest } from '@trufflesuite/uws-js-unofficial';
import type { Principal } from '../actors/auth/types.ts';
import type { RequestBody } from './request-body.ts';
import { text, type HttpReply } from './replies.ts';

/** A parsed request as route handlers see it. The body is read in full before the handler runs (except on `streamBody` routes). */
export interface HttpRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** header names lower-cased */
  headers: Record<string, string>;
  remoteIp: string;
  body: Buffer;
  /** the body as it arrives (routes with `streamBody`); it fails with a BodyError when the client leaves or sends too much */
  bodyStream?: Readable;
  principal?: Principal;
}

/** Where one request stands: answered or gone (`aborted`), the stream's cleanup, its body. */
export interface Answering {
  aborted: boolean;
  cleanup: undefined | (() => void);
  intake?: RequestBody;
  bodyStream?: Readable;
}

/** The original's HTTP layer refuses a request line or a header field longer than this. */
export const MAX_LINE_BYTES = 8190;

const EMPTY = Buffer.alloc(0);
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * One request and where its answer stands, in one object: a class, so the lazy parts (query,
 * address) are getters on its prototype rather than closures made for every request.
 */
export class Exchange implements HttpRequest, Answering {
  params = NO_PARAMS;
  body: Buffer = EMPTY;
  bodyStream?: Readable;
  intake?: RequestBody;
  principal?: Principal;
  aborted = false;
  cleanup: undefined | (() => void) = undefined;
  #query: URLSearchParams | undefined;
  #remoteIp: string | undefined;

  constructor(
    /** the uWS response the answer goes to */
    readonly res: UwsResponse,
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: Record<string, string>,
    /** the longest header field, name and value, in bytes */
    readonly longestHeader: number,
  ) {}

  /** What uWS says of a request, copied while it is valid (it is gone after the callback). */
  static read(res: UwsResponse, req: UwsRequest): Exchange {
    // no prototype: a header named like an Object member is just a header
    const headers: Record<string, string> = Object.create(null);
    let longest = 0;
    req.forEach((k, v) => {
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
      if (k.length + v.length > longest) longest = k.length + v.length;
    });
    return new Exchange(res, req.getCaseSensitiveMethod().toUpperCase(), req.getUrl(), req.getQuery() ?? '', headers, longest);
  }

  // most requests never look at their query string
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  /** the client's address as a trusted proxy forwarded it */
  useRemoteIp(ip: string): void {
    this.#remoteIp = ip;
  }

  // asked of uWS only when wanted (a native call, and a copy, per request); uWS forgets the
  // address once the request is answered or gone
  get remoteIp(): string {
    return (this.#remoteIp ??= this.aborted ? '' : remoteIpOf(this.res));
  }

  /** Whether the method carries a body (a request refused before it is read has its connection closed). */
  get hasBody(): boolean {
    return !(this.method === 'GET' || this.method === 'HEAD' || this.method === 'OPTIONS');
  }

  /** The original's 400 for a request line or a header field past MAX_LINE_BYTES, if this request has one. */
  tooLong(): HttpReply | undefined {
    const line = this.method.length + this.path.length + (this.rawQuery ? this.rawQuery.length + 1 : 0) + 10;
    if (line > MAX_LINE_BYTES) return tooLong('Status line', line);
    if (this.longestHeader + 2 > MAX_LINE_BYTES) return tooLong('Header field', this.longestHeader + 2);
    return undefined;
  }
}

/** The original's answer to an over-long request line or header field. */
function tooLong(what: string, bytes: number): HttpReply {
  return text(400, `400, message: Got more than ${MAX_LINE_BYTES} bytes (${bytes}) when reading ${what} is too long.`);
}

/** The client's address as text. */
export function remoteIpOf(res: UwsResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}
