// The raw uWebSockets.js baselines: the same wire work as Hearth (read the body, parse it,
// answer a JSON of the same shape; publish the same-size frame) with no persistence, no
// actors, no routing layer.
import uWS from '@trufflesuite/uws-js-unofficial';

export interface RawServer {
  port: number;
  close(): void;
}

const ULID = '01JGKZ3M5D7Q8R9S0T1V2W3X4Y';
const USER = '31abfe463bee47e8b911c7cb2a6842c6';
/** An ISO time shaped as Hearth prints it (microseconds and +00:00). */
const iso = (ms: number) => new Date(ms).toISOString().replace('Z', '000+00:00');

/** The answer Hearth gives to a state write, built the same way from the request. */
function stateAnswer(entityId: string, body: any): string {
  const t = iso(Date.now());
  return JSON.stringify({
    entity_id: entityId,
    state: String(body.state),
    attributes: body.attributes ?? {},
    last_changed: t,
    last_reported: t,
    last_updated: t,
    context: { id: ULID, parent_id: null, user_id: USER },
  });
}

/** Reads a request body in full (uWS hands out chunks it reuses after the callback). */
function readBody(res: uWS.HttpResponse, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  });
}

function listen(app: uWS.TemplatedApp): Promise<uWS.us_listen_socket> {
  return new Promise((ok, fail) => app.listen('127.0.0.1', 0, (s) => (s ? ok(s) : fail(new Error('raw uWS: cannot listen')))));
}

/**
 * POST /api/states/<id>: parses the JSON body and answers a state JSON of the size Hearth
 * answers, at once. `publish` additionally sends each write to every WebSocket subscriber.
 */
function stateRoute(app: uWS.TemplatedApp, onWrite?: (entityId: string, body: any) => void): void {
  app.post('/api/states/:entity_id', (res, req) => {
    const entityId = req.getParameter(0) ?? '';
    let aborted = false;
    res.onAborted(() => (aborted = true));
    readBody(res, (raw) => {
      if (aborted) return;
      const body = JSON.parse(raw.toString('utf8'));
      onWrite?.(entityId, body);
      const answer = stateAnswer(entityId, body);
      res.cork(() => {
        res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json; charset=utf-8').end(answer);
      });
    });
  });
}

/** A raw uWS app answering state writes, no persistence. */
export async function startRawHttp(): Promise<RawServer> {
  const app = uWS.App();
  stateRoute(app);
  const socket = await listen(app);
  return { port: uWS.us_socket_local_port(socket), close: () => uWS.us_listen_socket_close(socket) };
}

/**
 * A raw uWS app speaking just enough of the WebSocket protocol for the fan-out client
 * (auth_required, auth_ok, subscribe_entities' result and first event), publishing each state
 * write as a subscribe_entities change frame of the same shape Hearth sends (`app.publish`).
 */
export async function startRawFanout(how: 'publish' | 'send-loop' | 'immediate-cork' = 'publish'): Promise<RawServer> {
  const app = uWS.App();
  const sockets = new Set<uWS.WebSocket<unknown>>();
  app.ws('/api/websocket', {
    maxPayloadLength: 16 * 1024 * 1024,
    idleTimeout: 120,
    maxBackpressure: 64 * 1024 * 1024,
    open: (ws) => {
      sockets.add(ws);
      ws.send('{"type":"auth_required","ha_version":"2025.1.0"}');
    },
    message: (ws, raw) => {
      const msg = JSON.parse(Buffer.from(raw).toString('utf8'));
      if (msg.type === 'auth') ws.send('{"type":"auth_ok","ha_version":"2025.1.0"}');
      else if (msg.type === 'subscribe_entities') {
        ws.subscribe('entities');
        ws.send(`{"id":${msg.id},"type":"result","success":true,"result":null}`);
        ws.send(`{"id":${msg.id},"type":"event","event":{"a":{}}}`);
      }
    },
    close: (ws) => void sockets.delete(ws),
  });
  stateRoute(app, (entityId, body) => {
    const change = { s: String(body.state), lc: Date.now() / 1000, c: ULID, a: body.attributes ?? {} };
    const frame = `{"id":1,"type":"event","event":{"c":{${JSON.stringify(entityId)}:{"+":${JSON.stringify(change)}}}}}`;
    if (how === 'publish') app.publish('entities', frame, false);
    else if (how === 'send-loop') for (const ws of sockets) ws.send(frame, false);
    else for (const ws of sockets) setImmediate(() => ws.cork(() => ws.send(frame, false)));
  });
  const socket = await listen(app);
  return {
    port: uWS.us_socket_local_port(socket),
    close: () => {
      uWS.us_listen_socket_close(socket);
      for (const ws of sockets) ws.end(1000);
    },
  };
}
