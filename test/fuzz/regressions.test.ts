// The reproductions of "Nothing a client sends can crash, freeze or bloat Hearth", as fixed cases
// run through the fuzz oracle. A case that kills the server is reported, and the next case gets a
// fresh server, so every reproduction is reported on its own.
import t from 'tap';
import { deepJson, preview } from './generators.ts';
import { runFixedCases, type FixedCase as Regression, type FuzzTarget } from './harness.ts';
import { rawExchange, type HttpOutcome } from './http-clients.ts';
import { WsClient } from './ws-client.ts';

const FILE = 'test/fuzz/regressions.test.ts';

const status = (r: HttpOutcome) => ('status' in r ? `${r.status} ${r.body.toString().slice(0, 200)}` : r.error);
const isStatus = (r: HttpOutcome, ok: (s: number) => boolean) => 'status' in r && ok(r.status);

/** Sends one message on a fresh authenticated connection; its answer (result or pong), or undefined. */
async function command(target: FuzzTarget, frame: string | Buffer, id: number, timeoutMs = 5000): Promise<any> {
  const c = await WsClient.authed(target.port, target.token);
  try {
    c.send(frame);
    return await c.take((m) => m?.id === id && (m.type === 'result' || m.type === 'pong'), timeoutMs);
  } finally {
    c.close();
  }
}

/** The answer must be an error result, and not unknown_error. */
function errorResult(answer: any, what: string, code?: string): string[] {
  if (!answer) return [`${what}: no answer`];
  if (answer.success !== false) return [`${what}: expected an error result, got ${JSON.stringify(answer).slice(0, 200)}`];
  if (answer.error?.code === 'unknown_error') return [`${what}: answered unknown_error (${answer.error.message})`];
  if (code && answer.error?.code !== code) return [`${what}: expected error ${code}, got ${JSON.stringify(answer.error).slice(0, 200)}`];
  return [];
}

/** After an odd event: both listeners still get the next one. */
async function listenersStillServed(target: FuzzTarget): Promise<string[]> {
  const type = `after_${Date.now()}`;
  const fired = await target.http({ method: 'POST', path: `/api/events/${type}`, body: '{}' });
  if (!isStatus(fired, (s) => s === 200)) return [`a later event could not be fired: ${status(fired)}`];
  await target.probe.ping(2000);
  for (let i = 0; i < 20 && !target.sse.seen.get(type); i++) await new Promise((r) => setTimeout(r, 50));
  const problems: string[] = [];
  if (!target.probeEvents.get(type)) problems.push('the WebSocket subscriber no longer gets events');
  if (!target.sse.seen.get(type)) problems.push('the /api/stream listener no longer gets events');
  return problems;
}

const LONG_ID = `sensor.${'a'.repeat(20_000)}`;

const REGRESSIONS: Regression[] = [
  ...['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf'].map(
    (type): Regression => ({
      name: `WS command type ${type}`,
      input: `{"id":1,"type":"${type}"}`,
      async run(target) {
        const answer = await command(target, `{"id":1,"type":"${type}"}`, 1);
        return errorResult(answer, type, 'unknown_command');
      },
    }),
  ),
  {
    name: 'subscribe_events with event_type nested 6,000 deep',
    input: `{"id":1,"type":"subscribe_events","event_type":${preview(deepJson('array', 6000))}}`,
    async run(target) {
      // refused before it is read, under the id it begins with
      const answer = await command(target, `{"id":1,"type":"subscribe_events","event_type":${deepJson('array', 6000)}}`, 1);
      return errorResult(answer, 'deep event_type', 'invalid_format');
    },
  },
  {
    name: 'POST /api/events/state_changed with garbage timestamps while /api/stream and subscribe_events listen',
    input: '{"entity_id":"sensor.x","new_state":{"entity_id":"sensor.x","state":"1","last_changed":"garbage","last_updated":"garbage"}}',
    async run(target) {
      const res = await target.http({
        method: 'POST',
        path: '/api/events/state_changed',
        body: '{"entity_id":"sensor.x","new_state":{"entity_id":"sensor.x","state":"1","last_changed":"garbage","last_updated":"garbage"}}',
      });
      const problems = isStatus(res, (s) => s < 500) ? [] : [`answered ${status(res)}`];
      if (!(await target.alive())) problems.push(...(await listenersStillServed(target)));
      return problems;
    },
  },
  {
    name: 'WS fire_event state_changed with new_state {"state":1}',
    input: '{"id":1,"type":"fire_event","event_type":"state_changed","event_data":{"new_state":{"state":1}}} (and with "old_state":null)',
    async run(target) {
      const problems: string[] = [];
      // with and without old_state: the wire form of state_changed reads both
      for (const data of ['{"new_state":{"state":1}}', '{"entity_id":"sensor.x","old_state":null,"new_state":{"state":1}}']) {
        const answer = await command(target, `{"id":1,"type":"fire_event","event_type":"state_changed","event_data":${data}}`, 1);
        if (!answer) problems.push(`${data}: no answer`);
        else if (answer.error?.code === 'unknown_error') problems.push(`${data}: answered unknown_error (${answer.error.message})`);
        if (target.exit) return problems;
      }
      if (!(await target.alive())) problems.push(...(await listenersStillServed(target)));
      return problems;
    },
  },
  {
    name: 'POST /api/services/core/turn_on with a field nested 6,000 deep',
    input: `{"entity_id":"input_boolean.x","x":${preview(deepJson('array', 6000))}}`,
    checks: { watch: ['input_boolean.x'] },
    async run(target) {
      const res = await target.http({ method: 'POST', path: '/api/services/core/turn_on', body: `{"entity_id":"input_boolean.x","x":${deepJson('array', 6000)}}` });
      return isStatus(res, (s) => s === 400) ? [] : [`expected 400, got ${status(res)}`];
    },
  },
  {
    name: 'subscribe_entities with a backtracking glob over 50 entities of 40 characters',
    input: '{"id":1,"type":"subscribe_entities","include":{"entity_globs":["*a*a*a*a*a*a*a*a*a*a*b"]}}',
    async run(target) {
      for (let i = 0; i < 50; i++) {
        const id = `sensor.${'a'.repeat(30)}_${String(i).padStart(2, '0')}`;
        const res = await target.http({ method: 'POST', path: `/api/states/${id}`, body: '{"state":"on"}' });
        if (!isStatus(res, (s) => s < 300)) return [`creating ${id} failed: ${status(res)}`];
      }
      const other = await WsClient.authed(target.port, target.token);
      const c = await WsClient.authed(target.port, target.token);
      const problems: string[] = [];
      try {
        const started = performance.now();
        c.send('{"id":1,"type":"subscribe_entities","include":{"entity_globs":["*a*a*a*a*a*a*a*a*a*a*b"]}}');
        // the other client's ping goes out right behind it
        const pong = await other.ping(1000);
        const pingMs = performance.now() - started;
        if (pong?.type !== 'pong') problems.push(`another client's ping got no pong within 1 s`);
        const answer = await c.take((m) => m?.id === 1 && m.type === 'result', 10_000);
        const ms = performance.now() - started;
        if (!answer) problems.push('subscribe_entities got no answer within 10 s');
        else if (answer.success === false && answer.error?.code === 'unknown_error') problems.push(`answered unknown_error (${answer.error.message})`);
        if (ms > 1000) problems.push(`subscribe_entities took ${ms.toFixed(0)} ms`);
        t.comment(`backtracking glob: answer after ${ms.toFixed(0)} ms, other client's pong after ${pingMs.toFixed(0)} ms`);
      } finally {
        c.close();
        other.close();
      }
      return problems;
    },
  },
  {
    name: 'service call with {"entity_id":{"toString":false}}',
    input: 'REST POST /api/services/core/turn_on and WS call_service core.turn_on with {"entity_id":{"toString":false}}',
    async run(target) {
      const res = await target.http({ method: 'POST', path: '/api/services/core/turn_on', body: '{"entity_id":{"toString":false}}' });
      const problems = isStatus(res, (s) => s >= 400 && s < 500) ? [] : [`REST: expected a 4xx, got ${status(res)}`];
      const answer = await command(target, '{"id":1,"type":"call_service","domain":"core","service":"turn_on","service_data":{"entity_id":{"toString":false}}}', 1);
      problems.push(...errorResult(answer, 'WS'));
      return problems;
    },
  },
  {
    name: 'service call with a __proto__ key',
    input: '{"entity_id":"input_boolean.x","__proto__":{"polluted":"yes"}} to input_boolean.turn_on (REST and WS)',
    async run(target) {
      const off = await target.http({ method: 'POST', path: '/api/services/input_boolean/turn_off', body: '{"entity_id":"input_boolean.x"}' });
      if (!isStatus(off, (s) => s === 200)) return [`input_boolean.turn_off failed: ${status(off)}`];
      const before = await target.snapshot({ watch: ['input_boolean.x'] });
      const res = await target.http({ method: 'POST', path: '/api/services/input_boolean/turn_on', body: '{"entity_id":"input_boolean.x","__proto__":{"polluted":"yes"}}' });
      const problems = isStatus(res, (s) => s === 400) ? [] : [`REST: expected 400 like any unknown key, got ${status(res)}`];
      const answer = await command(target, '{"id":1,"type":"call_service","domain":"input_boolean","service":"turn_on","service_data":{"entity_id":"input_boolean.x","__proto__":{"polluted":"yes"}}}', 1);
      problems.push(...errorResult(answer, 'WS', 'invalid_format'));
      const after = await target.snapshot({ watch: ['input_boolean.x'] });
      if (after.get('input_boolean.x') !== before.get('input_boolean.x')) problems.push('input_boolean.x was turned on anyway');
      const unknown = await target.http({ method: 'POST', path: '/api/services/input_boolean/turn_on', body: '{"entity_id":"input_boolean.x","polluted":"yes"}' });
      if ('status' in res && 'status' in unknown && res.status !== unknown.status) problems.push(`an unknown key answers ${unknown.status}, __proto__ answers ${res.status}`);
      return problems;
    },
  },
  {
    name: 'POST /api/states/sensor.a with bytes that are not UTF-8',
    input: '{"state":"\\xff\\xfe"}',
    checks: { watch: ['sensor.a'] },
    async run(target) {
      const res = await target.http({ method: 'POST', path: '/api/states/sensor.a', body: Buffer.from([...Buffer.from('{"state":"'), 0xff, 0xfe, ...Buffer.from('"}')]) });
      if (!isStatus(res, (s) => s === 400)) return [`expected 400, got ${status(res)}`];
      const body = (res as { body: Buffer }).body.toString();
      return body === '{"message":"Invalid JSON specified."}' ? [] : [`expected {"message":"Invalid JSON specified."}, got ${body.slice(0, 200)}`];
    },
  },
  {
    name: 'POST /api/states with an entity id of 20,007 characters',
    input: `POST /api/states/${LONG_ID.slice(0, 30)}… (20,007 characters) {"state":"1"}`,
    async run(target) {
      const res = await target.http({ method: 'POST', path: `/api/states/${LONG_ID}`, body: '{"state":"1"}' });
      const problems = isStatus(res, (s) => s >= 400 && s < 500) ? [] : [`expected a 4xx, got ${status(res)}`];
      const all = await target.http({ method: 'GET', path: '/api/states' });
      if ('status' in all && JSON.parse(all.body.toString()).some((s: any) => s.entity_id.length > 255)) problems.push('the entity was stored');
      return problems;
    },
  },
  ...[
    ['empty', ''],
    ['65-character', 'e'.repeat(65)],
  ].map(
    ([what, type]): Regression => ({
      name: `WS fire_event with an ${what} event_type`,
      input: `{"id":1,"type":"fire_event","event_type":"${type}"}`,
      checks: { fires: type },
      async run(target) {
        const answer = await command(target, JSON.stringify({ id: 1, type: 'fire_event', event_type: type }), 1);
        return errorResult(answer, 'fire_event');
      },
    }),
  ),
  {
    name: 'conversation/process with a conversation_id holding a NUL',
    input: '{"id":1,"type":"conversation/process","text":"turn off the toaster","conversation_id":"\\u0000"} (found by the WebSocket fuzz, seed 2621626964)',
    async run(target) {
      const answer = await command(target, JSON.stringify({ id: 1, type: 'conversation/process', text: 'turn off the toaster', conversation_id: '\u0000' }), 1);
      if (!answer?.success) return [`expected an answer, got ${JSON.stringify(answer).slice(0, 200)}`];
      const id = answer.result?.conversation_id;
      const problems = typeof id === 'string' && /^[0-9A-Z]{26}$/.test(id) ? [] : [`expected a new conversation id (a ULID), got ${JSON.stringify(id)}`];
      const rest = await target.http({ method: 'POST', path: '/api/conversation/process', body: JSON.stringify({ text: 'hello', conversation_id: 'a\u0000b' }) });
      if (!isStatus(rest, (s) => s === 200)) problems.push(`REST: expected 200, got ${status(rest)}`);
      return problems;
    },
  },
  {
    name: 'HEAD /api/stream answers and ends',
    input: 'HEAD /api/stream HTTP/1.1 (raw), then GET /api/ on the same connection',
    async run(target) {
      const star = async () => {
        const r = await target.http({ method: 'GET', path: '/api/events' });
        return 'status' in r ? (JSON.parse(r.body.toString()).find((e: any) => e.event === '*')?.listener_count ?? 0) : -1;
      };
      const before = await star();
      const head = `HEAD /api/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.token}\r\n\r\n`;
      const get = `GET /api/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.token}\r\nConnection: close\r\n\r\n`;
      const exchange = await rawExchange(target.port, [head, get], { idleMs: 1500, gapMs: 300 });
      const text = exchange.data.toString('latin1');
      const problems: string[] = [];
      if (!/^HTTP\/1\.1 200 /.test(text)) problems.push(`HEAD answered ${JSON.stringify(text.slice(0, 80))}`);
      if (/data:/.test(text)) problems.push('HEAD wrote stream events');
      // the connection either ends or serves the next request: a HEAD must not hold it open
      if (!exchange.closed && exchange.statuses.length < 2) problems.push('the connection stayed open and did not answer the next request');
      const after = await star();
      if (after !== before) problems.push(`a stream listener was left behind (listeners of *: ${before} before, ${after} after)`);
      return problems;
    },
  },
];

t.test('regressions of the issue', (t) => runFixedCases(t, FILE, 'regression', REGRESSIONS));
