/** What a route handler answers, and the answers every handler builds the same way. */

/** A complete answer. */
export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A long-lived streamed answer (SSE). `open` returns the cleanup run when the client leaves. */
export interface HttpStream {
  status: number;
  headers: Record<string, string>;
  open(sink: StreamSink): () => void;
}

/**
 * Where a streamed answer writes. `write` returns false once the stream is over: the client
 * left, or fell too far behind and was dropped (the router closes it then).
 */
export interface StreamSink {
  write(chunk: string | Buffer): boolean;
  end(): void;
}

/**
 * A file sent as it is read, at the pace the client takes it (a backup download of gigabytes:
 * never whole in memory, never gzipped again). `size` is its Content-Length.
 */
export interface HttpFile {
  status: number;
  headers: Record<string, string>;
  file: string;
  size: number;
}

/** Any answer a handler may give. */
export type HttpAnswer = HttpReply | HttpStream | HttpFile;

const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 302: 'Found', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 410: 'Gone', 413: 'Request Entity Too Large',
  429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};

/** The status line uWS wants: `200 OK`. */
export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? 'Unknown'}`;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer. Pass a string to send pre-serialised JSON as it is. */
export function json(status: number, value: unknown, headers?: Record<string, string>): HttpReply {
  return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: typeof value === 'string' ? value : JSON.stringify(value) };
}

/** The original's `{"message": ...}` body. */
export function message(status: number, text: string, extra?: Record<string, unknown>): HttpReply {
  return json(status, { message: text, ...extra });
}

/** The framework's plain error page: `401: Unauthorized`. */
export function plainError(status: number, headers?: Record<string, string>): HttpReply {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers }, body: `${status}: ${REASONS[status] ?? 'Error'}` };
}

/** Plain text. */
export function text(status: number, body: string): HttpReply {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body };
}
