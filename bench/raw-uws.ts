// The raw uWebSockets.js baselines: the same work as Hearth without persistence, actors or a
// routing layer. A state write reads and parses the body, builds the whole state (times, a fresh
// context) by the original's rules against the previous state kept in a Map, and answers it with
// the headers Hearth sends; the WebSocket baseline publishes a frame of the same shape.
// Not done here: authentication (Hearth checks the bearer token of every request).
import uWS from '@trufflesuite/uws-js-unofficial';

export interface RawServer {
  port: number;
  close(): void;
}

const USER = '31abfe463bee47e8b911c7cb2a6842c6';

/** A state as the raw baseline keeps it: times in epoch ms (with microseconds), as Hearth does. */
export interface RawState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: number;
  last_reported: number;
  last_updated: number;
  context: { id: string; parent_id: null; user_id: string };
}

/** Epoch ms with microseconds, as Hearth's clock reads it. */
const clock = () => Math.round((performance.timeOrigin + performance.now()) * 1000) / 1000;

/** An ISO time as Hearth prints it: `2025-01-02T03:04:05.123456+00:00` (no fraction when zero). */
export function iso(ms: number): string {
  let whole = Math.floor(ms);
  let micros = Math.round((ms - whole) * 1000);
  if (micros >= 1000) {
    whole += 1;
    micros -= 1000;
  }
  const head = new Date(whole).toISOString().slice(0, 19);
  const frac = (whole % 1000) * 1000 + micros;
  return frac === 0 ? `${head}+00:00` : `${head}.${String(frac).padStart(6, '0')}+00:00`;
}

/** A fresh context id per write: 26 characters like a ULID, from a counter (cheap, unique in the process). */
let contexts = 0;
const contextId = () => `01RAW${(++contexts).toString(36).padStart(21, '0')}`;

/** Deep equality of JSON values (how the original compares attributes). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEqual((a as any)[k], (b as any)[k])) return false;
  return true;
}

/**
 * The original's rules for a write: the same state and attributes (no force_update) only move
 * last_reported; a new state string moves last_changed; any change moves last_updated and takes
 * the write's context.
 */
function nextState(entityId: string, old: RawState | undefined, state: string, attributes: Record<string, unknown>, force: boolean, t: number): RawState {
  if (!old) return { entity_id: entityId, state, attributes, last_changed: t, last_reported: t, last_updated: t, context: { id: contextId(), parent_id: null, user_id: USER } };
  const sameState = old.state === state && !force;
  if (sameState && jsonEqual(old.attributes, attributes)) return { ...old, last_reported: t };
  return {
    entity_id: entityId,
    state,
    attributes,
    last_changed: sameState ? old.last_changed : t,
    last_reported: t,
    last_updated: t,
    context: { id: contextId(), parent_id: null, user_id: USER },
  };
}

/** The state's JSON as Hearth answers it (the original's key order). */
function stateJson(s: RawState): string {
  const updated = iso(s.last_updated);
  return JSON.stringify({
    entity_id: s.entity_id,
    state: s.state,
    attributes: s.attributes,
    last_changed: s.last_changed === s.last_updated ? updated : iso(s.last_changed),
    last_reported: s.last_reported === s.last_updated ? updated : iso(s.last_reported),
    last_updated: updated,
    context: s.context,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const ENTITY_ID = /^[a-z0-9_]+\.[a-z0-9_]+$/;

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

/** Answers one request: the status, the headers Hearth sends on every answer, then the route's own. */
function answer(res: uWS.HttpResponse, status: string, body: string, location?: string): void {
  res.cork(() => {
    res.writeStatus(status);
    res.writeHeader('Referrer-Policy', 'no-referrer').writeHeader('X-Content-Type-Options', 'nosniff').writeHeader('X-Frame-Options', 'SAMEORIGIN');
    res.writeHeader('Content-Type', 'application/json; charset=utf-8');
    if (location) res.writeHeader('Location', location);
    res.end(body);
  });
}

/**
 * POST /api/states/<id>: parses the JSON body, checks it as Hearth does (an object with a state,
 * a valid entity id, attributes an object), builds the new state from the old one kept in a Map,
 * and answers its JSON with 201 (created) or 200. `onWrite` sees every state written.
 */
function stateRoute(app: uWS.TemplatedApp, onWrite?: (state: RawState) => void): void {
  const states = new Map<string, RawState>();
  app.post('/api/states/:entity_id', (res, req) => {
    const param = decodeURIComponent(req.getParameter(0) ?? '');
    let aborted = false;
    res.onAborted(() => (aborted = true));
    readBody(res, (raw) => {
      if (aborted) return;
      let data: unknown;
      try {
        data = JSON.parse(raw.toString('utf8'));
      } catch {
        return answer(res, '400 Bad Request', '{"message":"Invalid JSON specified."}');
      }
      if (!isObject(data)) return answer(res, '400 Bad Request', '{"message":"State data should be a JSON object"}');
      if (data.state === undefined || data.state === null) return answer(res, '400 Bad Request', '{"message":"No state attribute specified."}');
      const entityId = param.toLowerCase();
      if (!ENTITY_ID.test(entityId)) return answer(res, '400 Bad Request', '{"message":"Invalid entity ID specified."}');
      const attributes = data.attributes ?? {};
      if (!isObject(attributes)) return answer(res, '400 Bad Request', '{"message":"Invalid attributes specified."}');
      const state = typeof data.state === 'string' ? data.state : String(data.state);
      const old = states.get(entityId);
      const next = nextState(entityId, old, state, attributes, data.force_update === true, clock());
      states.set(entityId, next);
      onWrite?.(next);
      answer(res, old ? '200 OK' : '201 Created', stateJson(next), `/api/states/${param}`);
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
  stateRoute(app, (s) => {
    const change = { s: s.state, lc: s.last_changed / 1000, c: s.context.id, a: s.attributes };
    const frame = `{"id":1,"type":"event","event":{"c":{${JSON.stringify(s.entity_id)}:{"+":${JSON.stringify(change)}}}}}`;
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
