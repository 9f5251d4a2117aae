import WebSocket from 'ws';

/**
 * One command over the core's WebSocket API (`/api/websocket`): connect, authenticate with an
 * access token, send the command, wait for its result, close.
 */

export class CoreWsError extends Error {}

/** Resolves to the `result` of `command`; rejects with CoreWsError on refusal, failure or timeout. */
export function coreWsCommand(baseUrl: string, accessToken: string, command: Record<string, unknown>, timeoutMs = 10_000): Promise<unknown> {
  const url = new URL('/api/websocket', baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => done(new CoreWsError(`no answer to ${command.type} from the core in time`)), timeoutMs);
    let settled = false;
    function done(err: Error | null, value?: unknown) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.terminate();
      if (err) reject(err);
      else resolve(value);
    }
    const onOne = (msg: any) => {
      if (msg.type === 'auth_required') socket.send(JSON.stringify({ type: 'auth', access_token: accessToken }));
      else if (msg.type === 'auth_invalid') done(new CoreWsError(`the core refused the supervisor's access token: ${msg.message ?? ''}`));
      else if (msg.type === 'auth_ok') socket.send(JSON.stringify({ id: 1, ...command }));
      else if (msg.type === 'result' && msg.id === 1) {
        if (msg.success) done(null, msg.result);
        else done(new CoreWsError(`the core refused ${command.type}: ${msg.error?.message ?? msg.error?.code ?? 'unknown error'}`));
      }
    };
    socket.on('message', (data) => {
      let parsed: any;
      try {
        parsed = JSON.parse(data.toString());
      } catch {
        return done(new CoreWsError('the core sent a message that is not JSON'));
      }
      // a frame may hold several messages (the original's coalesced messages)
      for (const msg of Array.isArray(parsed) ? parsed : [parsed]) onOne(msg);
    });
    let open = false;
    socket.once('open', () => (open = true));
    socket.on('error', (err) => done(new CoreWsError(open ? `the core's WebSocket failed: ${err.message}` : `cannot reach the core's WebSocket API: ${err.message}`)));
    socket.on('close', () => done(new CoreWsError('the core closed the WebSocket before answering')));
  });
}
