import WebSocket from 'ws';

/**
 * The proxies' upstream WebSockets, opened with the `ws` package: it validates what the upstream
 * sends (control frame lengths, RSV bits, masking, UTF-8, interrupted fragments) as RFC 6455 asks,
 * which matters here because the upstream can be any app's container.
 */

export interface UpstreamOptions {
  host: string;
  port: number;
  /** the path with its query string */
  path: string;
  headers?: Record<string, string>;
  /** subprotocols offered, in the client's order */
  protocols?: string[];
  /** a larger message from the upstream breaks the connection (1009) */
  maxPayload: number;
  /** the upstream broke the protocol after opening: it is cut off, the client side closes with `code` */
  onBroken(err: Error, code: number): void;
}

/** `closeTimeout` is in ws 8.19+, not yet in @types/ws. */
type ClientOptions = WebSocket.ClientOptions & { closeTimeout?: number };

/**
 * Starts opening; listeners attached before awaiting `opened` hear the upstream's first messages
 * (ws may emit them before a promise continuation runs).
 */
export function openUpstream(target: UpstreamOptions): WebSocket {
  // an IPv6 address goes in brackets (a URL's hostname has them already)
  const host = target.host.includes(':') && !target.host.startsWith('[') ? `[${target.host}]` : target.host;
  const options: ClientOptions = {
    headers: target.headers,
    maxPayload: target.maxPayload,
    // as before ws: messages go on as they came, no extension negotiated upstream
    perMessageDeflate: false,
    // an app that never answers a close must not hold the socket for ws's default 30 s
    closeTimeout: 2000,
  };
  const upstream = new WebSocket(`ws://${host}:${target.port}${target.path}`, target.protocols ?? [], options);
  let open = false;
  upstream.once('open', () => (open = true));
  upstream.on('error', (err: Error & { code?: string }) => {
    // before 'open' the handshake failed, which `opened` reports
    if (!open) return;
    // ws has sent its close frame; a hostile upstream would make it wait for the answer
    upstream.terminate();
    target.onBroken(err, err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? 1009 : 1002);
  });
  return upstream;
}

/** Resolves once the handshake is done; rejects with why it failed (a status, a refused connection, a bad answer). */
export function opened(upstream: WebSocket): Promise<void> {
  return new Promise((ok, fail) => {
    const onOpen = () => {
      upstream.off('error', onError);
      ok();
    };
    const onError = (err: Error) => {
      upstream.off('open', onOpen);
      fail(err);
    };
    upstream.once('open', onOpen);
    upstream.once('error', onError);
  });
}

/** Closes the upstream as the client closed; a code that never goes on the wire (1005, 1006) is left out. */
export function closeUpstream(upstream: WebSocket, code: number, reason: Buffer): void {
  if (sendableCode(code)) upstream.close(code, reason);
  else upstream.close();
}

/** The close codes RFC 6455 lets an endpoint send (ws throws on the others). */
function sendableCode(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}
