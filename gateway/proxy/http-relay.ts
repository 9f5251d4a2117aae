import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest } from '@trufflesuite/uws-js-unofficial';
import type { HttpReply } from '../replies.ts';
import { requestBody } from '../request-body.ts';
import { writeHead, type HeaderLine } from '../response-head.ts';
import { answer, incomingOf, statusLineOf, BUFFER_BELOW, MAX_BUFFERED_BODY, type ProxyIncoming, type ProxyRoute, type ProxyTarget } from './exchange.ts';

/** The HTTP side of the proxy: one exchange relayed, bodies buffered or streamed both ways. */

/**
 * Response headers not copied: framing, the content type (set again, bare) and the ones uWS
 * writes itself. Content-Encoding stays: this proxy passes bodies through undecoded (the
 * original's client decodes them and drops the header, which a browser cannot tell apart).
 */
const RESPONSE_SKIP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding', 'content-length', 'content-type', 'date', 'uwebsockets']);

/** HTTP/1.1's rule, whatever the method: a body is announced by its length or by chunks. */
const hasBody = (headers: Record<string, string>) => (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;

/** Relays one HTTP request: the hop's plan first (the body held meanwhile), then the upstream's answer. */
export function relayHttp(route: ProxyRoute, res: UwsResponse, req: UwsRequest): void {
  const incoming = incomingOf(res, req, false);
  const state = { aborted: false, answered: false, cleanup: () => {} };
  res.onAborted(() => {
    state.aborted = true;
    state.cleanup();
  });
  // the body must be taken now (uWS hands it out only to a handler attached in this callback);
  // it waits in a stream, uWS paused while nobody reads it
  const body = hasBody(incoming.headers) ? requestBody(res, () => state.aborted) : undefined;
  // a client gone while its body was awaited: whatever reads it stops
  state.cleanup = () => body?.destroy();
  const refuse = (reply: HttpReply) => {
    if (state.aborted || state.answered) return;
    state.answered = true;
    answer(res, reply, body !== undefined && !body.readableEnded, route.log);
    body?.destroy();
  };
  Promise.resolve()
    .then(() => route.plan(incoming))
    .then(async (plan) => {
      if (state.aborted) return body?.destroy();
      if ('refuse' in plan) return refuse(plan.refuse);
      const { target } = plan;
      let payload: Buffer | Readable | undefined = body;
      if (body && !target.streamBody) {
        payload = await readAll(body, MAX_BUFFERED_BODY);
        if (payload === undefined) return refuse({ status: 413, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '413: Request Entity Too Large' });
      }
      forward(route, res, state, incoming, target, payload);
    })
    .catch((err) => {
      if (state.aborted) return;
      route.log(`ingress proxy failed on ${incoming.method} ${incoming.url}: ${(err as Error)?.stack ?? err}`);
      refuse({ status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '500: Internal Server Error' });
    });
}

interface ExchangeState {
  aborted: boolean;
  answered: boolean;
  cleanup: () => void;
}

async function readAll(stream: Readable, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function forward(route: ProxyRoute, res: UwsResponse, state: ExchangeState, incoming: ProxyIncoming, target: ProxyTarget, payload: Buffer | Readable | undefined): void {
  const headers: Record<string, string> = { ...target.headers };
  if (Buffer.isBuffer(payload)) headers['content-length'] = String(payload.length);
  else if (payload) headers['transfer-encoding'] = 'chunked';
  const upstream = httpRequest({ host: target.host, port: target.port, method: incoming.method, path: target.path, headers, agent: false });
  state.cleanup = () => {
    upstream.destroy();
    if (payload instanceof Readable) payload.destroy();
  };
  upstream.on('error', (err) => {
    if (state.aborted) return;
    if (!state.answered) {
      state.answered = true;
      route.log(`${route.name ?? 'ingress'} upstream ${target.host}:${target.port} unreachable: ${err.message}`);
      return answer(res, { status: 502, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '502: Bad Gateway' }, true, route.log);
    }
    // the answer had begun: all the client can be told is that it ends here
    res.close();
  });
  upstream.on('response', (up) => respond(route, res, state, incoming, up, target.responseHeaders));
  if (Buffer.isBuffer(payload)) upstream.end(payload);
  else if (payload) payload.pipe(upstream);
  else upstream.end();
}

/** The upstream's headers as the client gets them: each line copied except the skipped ones. */
function responseHeaders(up: IncomingMessage, only?: ReadonlySet<string>): HeaderLine[] {
  const out: HeaderLine[] = [];
  const raw = up.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (!RESPONSE_SKIP.has(name) && (!only || only.has(name))) out.push([raw[i], raw[i + 1]]);
  }
  return out;
}

function respond(route: ProxyRoute, res: UwsResponse, state: ExchangeState, incoming: ProxyIncoming, up: IncomingMessage, only?: ReadonlySet<string>): void {
  if (state.aborted) return void up.destroy();
  state.answered = true;
  const status = up.statusCode ?? 502;
  const headers = responseHeaders(up, only);
  const sentType = up.headers['content-type'];
  // the media type alone, as the original sets it again from what the upstream sent
  const type = sentType ? sentType.split(';')[0].trim() : 'application/octet-stream';
  // false: the answer was dropped for a 500, and the upstream's is not read further
  const head = (extra: HeaderLine[] = []) => {
    if (writeHead(res, statusLineOf(status, up.statusMessage), [...headers, ...extra], route.log)) return true;
    state.aborted = true;
    up.destroy();
    return false;
  };
  if (incoming.method === 'HEAD' || status === 204 || status === 304 || status < 200) {
    up.resume();
    return void res.cork(() => {
      if (head(sentType ? [['Content-Type', type]] : [])) res.endWithoutBody();
    });
  }
  const length = up.headers['content-length'];
  if (length !== undefined && Number(length) < BUFFER_BELOW) {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => {
      if (state.aborted) return;
      res.cork(() => {
        if (head([['Content-Type', type]])) res.end(Buffer.concat(chunks));
      });
    });
    return;
  }
  let streaming = false;
  res.cork(() => {
    streaming = head([['Content-Type', type], ['X-Accel-Buffering', 'no']]);
  });
  if (!streaming) return;
  up.on('data', (chunk: Buffer) => {
    if (state.aborted) return;
    let ok = true;
    res.cork(() => {
      ok = res.write(chunk);
    });
    if (!ok) {
      // uWS holds the chunk; the upstream waits until the client has taken it
      up.pause();
      res.onWritable(() => {
        up.resume();
        return true;
      });
    }
  });
  up.on('end', () => {
    if (!state.aborted) res.cork(() => res.end());
  });
  up.on('error', () => {
    if (!state.aborted) res.close();
  });
}

