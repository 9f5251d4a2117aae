// Fuzzes every REST route (and the HTTP layer under them, with raw bytes) of a real Hearth.
// Seeded: HEARTH_FUZZ_SEED=<seed> replays a run, HEARTH_FUZZ_CASE=<case id> one case of it.
import t from 'tap';
import { caseRng, type Rng } from './rng.ts';
import { genValue, hostileSegment, malformedJson, mutateForm, mutateJson, preview, withBadUtf8, MEMBER_NAMES, type Body, type FuzzContext } from './generators.ts';
import { REST_ROUTES, fillPath, type Params, type RestRoute } from './routes-and-commands.ts';
import { FuzzTarget, type CaseChecks } from './harness.ts';
import { answerProblems, rawExchange, type HttpOutcome } from './http-clients.ts';
import { budget, selected } from './report.ts';

const FILE = 'test/fuzz/rest.test.ts';

interface RestCase {
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Body;
  what: string;
  checks: CaseChecks;
  stream?: boolean;
  /** no Authorization header */
  anonymous?: boolean;
  /** JSON routes must refuse bodies that are not UTF-8 */
  badUtf8?: boolean;
  /** the entity a successful state write must show afterwards */
  writes?: string;
  /** a method uWS does not know: hanging up is an answer too */
  mayHangUp?: boolean;
  /** a big body the server need not read (no valid token, or a route open to anyone): it may hang up */
  mayHangUpOnBody?: boolean;
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT']);

const routeName = (r: RestRoute) => `${r.method} ${r.path}`;
const withBody = REST_ROUTES.filter((r) => r.body);
const withParams = REST_ROUTES.filter((r) => r.params);

function validBody(rng: Rng, ctx: FuzzContext, route: RestRoute, params: Params): string | undefined {
  if (!route.valid) return undefined;
  const v = route.valid(rng, ctx, params);
  if (route.body === 'form') return new URLSearchParams(v as Record<string, string>).toString();
  return JSON.stringify(v);
}

function isUtf8(b: Body): boolean {
  if (typeof b === 'string') return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
}

/** One request: a valid one, or one with its body, parameters, headers, method, query or path made hostile. */
function buildCase(rng: Rng, ctx: FuzzContext, kind: string, only?: RestRoute): RestCase {
  const big = rng.chance(0.05);
  const pool = kind === 'mutate' || kind === 'body' ? withBody : kind === 'params' ? withParams : REST_ROUTES;
  const route = only ?? rng.pick(pool);
  let params: Params = route.params?.(rng, ctx) ?? {};
  let what = kind;
  if (kind === 'params') {
    params = route.badParams?.(rng, ctx) ?? Object.fromEntries(Object.keys(params).map((k) => [k, hostileSegment(rng)]));
    what = `parameters ${Object.entries(params).map(([k, s]) => `${k}=${s.what}`).join(', ')}`;
  }
  let body: Body | undefined = validBody(rng, ctx, route, params);
  const headers: Record<string, string> = {};
  if (route.body === 'form') headers['Content-Type'] = 'application/x-www-form-urlencoded';
  else if (route.body === 'json') headers['Content-Type'] = 'application/json';
  let method: string = route.method;
  let query = route.query?.(rng) ?? '';
  let path = fillPath(route.path, params);
  let anonymous = false;

  if (kind === 'mutate') {
    const template = route.valid!(rng, ctx, params);
    const g = route.body === 'form' ? mutateForm(rng, template as Record<string, string>, { big }) : mutateJson(rng, template, { big });
    body = g.value;
    what = `valid body with ${g.what}`;
  } else if (kind === 'body') {
    const g = rng.weighted<() => { value: Body; what: string }>([
      [3, () => genValue(rng, { big })],
      [3, () => malformedJson(rng, typeof body === 'string' ? body : '{}')],
      [1, () => withBadUtf8(rng, typeof body === 'string' ? body : '{"state":"x"}')],
    ])();
    body = g.value;
    what = `body ${g.what}`;
  } else if (kind === 'headers') {
    const h = rng.weighted<() => [Record<string, string>, string, boolean?]>([
      [4, () => {
        const ct = rng.pick([
          'text/plain', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x',
          'application/x-www-form-urlencoded', '', ';;;', 'application/json;' + 'a'.repeat(10_000), 'APPLICATION/JSON', '*/*', 'application/xml',
        ]);
        return [{ 'Content-Type': ct }, `Content-Type ${JSON.stringify(ct.slice(0, 60))}`];
      }],
      [3, () => {
        const a = rng.pick(['', 'Bearer', 'Bearer ', 'Bearer x', 'Basic b3duZXI6eA==', `Bearer ${'a'.repeat(20_000)}`, 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'bearer x']);
        return [{ Authorization: a }, `Authorization ${JSON.stringify(a.slice(0, 60))}`, true];
      }],
      [1, () => [{ 'Content-Encoding': rng.pick(['gzip', 'deflate', 'br', 'x']) }, 'Content-Encoding without an encoded body']],
      [1, () => [{ 'Accept-Encoding': rng.pick(['gzip;q=0', '*', 'x'.repeat(10_000), 'gzip, gzip, gzip']) }, 'odd Accept-Encoding']],
      [1, () => [{ Origin: rng.pick(['null', '', 'https://evil.example', 'x'.repeat(10_000)]) }, 'odd Origin']],
      [1, () => [{ 'X-Forwarded-For': rng.pick(['x', '1.2.3.4, 5.6.7.8', '::1', '999.1.1.1']) }, 'X-Forwarded-For']],
      [1, () => [{ 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' }, 'chunked body']],
    ])();
    Object.assign(headers, h[0]);
    if (h[2]) anonymous = true;
    what = h[1];
  } else if (kind === 'method') {
    method = rng.pick(['PUT', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'get', 'post', 'DELETE', 'POST', 'GET']);
    if (method === 'OPTIONS' && rng.chance(0.5)) {
      headers['Access-Control-Request-Method'] = rng.pick(['POST', 'GET', 'x', '']);
      headers.Origin = rng.pick(['https://cast.home-assistant.io', 'https://evil.example']);
    }
    what = `method ${method}`;
  } else if (kind === 'query') {
    query = rng.pick([
      '?', '?return_response', '?return_response=0', '?restrict=' + ','.repeat(20_000), '?restrict=' + 'a,'.repeat(5000),
      '?a=%ff', '?%', '?__proto__=1&constructor=2', '?restrict=__proto__,toString', '?' + 'q'.repeat(20_000), '?a=1&a=2&a=3',
    ]);
    what = `query ${JSON.stringify(query.slice(0, 40))} (${query.length} chars)`;
  } else if (kind === 'path') {
    path = rng.pick([
      '/api', '/api//states', '/api/states/', '/api/states/a/b', '/api/%2e%2e/api/', '/api/../api/', '//api/', '/API/',
      `/api/${'x'.repeat(20_000)}`, `/${'a/'.repeat(5000)}`, '/api/states/%', '/api/services/core', '/api/services/core/turn_on/x',
      `/api/${rng.pick(MEMBER_NAMES)}`, `/${rng.pick(MEMBER_NAMES)}`, '/auth/login_flow/', '/api/websocket', '/api/stream/x',
    ]);
    what = `path ${JSON.stringify(path.slice(0, 60))} (${path.length} chars)`;
    query = '';
  }

  const entity = params.entity_id?.decoded?.toLowerCase();
  const watch = params && Object.values(params).every((s) => s.decoded !== undefined) ? route.watch?.(params) ?? [] : [];
  const checks: CaseChecks = {
    watch: watch.filter((id) => id.length < 30_000),
    watchPaths: route.watchPaths?.(params) ?? [],
    fires: route.fires && method === route.method && path === fillPath(route.path, params) ? route.fires(params) : undefined,
  };
  return {
    route: routeName(route),
    method,
    path: path + query,
    headers,
    body,
    what,
    checks,
    stream: route.stream,
    anonymous,
    badUtf8: route.body === 'json' && body !== undefined && !isUtf8(body),
    mayHangUp: !METHODS.has(method),
    mayHangUpOnBody: body !== undefined && Buffer.byteLength(body) >= 512 << 10 && (anonymous || route.access === 'none'),
    writes: route.method === 'POST' && route.path === '/api/states/:entity_id' && method === 'POST' ? entity : undefined,
  };
}

function describe(c: RestCase): string {
  const h = Object.entries(c.headers).map(([k, v]) => `${k}: ${v.length > 80 ? `${v.slice(0, 60)}…(${v.length} chars)` : v}`);
  return `${c.method} ${c.path.length > 200 ? `${c.path.slice(0, 160)}…(${c.path.length} chars)` : c.path} [${h.join(' | ')}] body ${preview(c.body)} — ${c.what}`;
}

async function runRestCase(target: FuzzTarget, id: string, c: RestCase): Promise<boolean> {
  return target.runCase(id, c.route, describe(c), c.checks, async () => {
    const headers = { ...c.headers };
    const res: HttpOutcome = await target.http({ method: c.method, path: c.path, headers, body: c.body, stream: c.stream, auth: !c.anonymous });
    const hungUp = 'error' in res && /ECONNRESET|EPIPE|hang up/.test(res.error);
    const problems = hungUp && (c.mayHangUp || c.mayHangUpOnBody) ? [] : answerProblems(res);
    const refused = !('status' in res) || res.status >= 400;
    if (c.badUtf8 && !refused) problems.push(`accepted (${(res as any).status}) a body that is not UTF-8`);
    // the original's limit on entity ids (MAX_LENGTH_STATE_ENTITY_ID)
    if (c.writes && c.writes.length > 255 && !refused) problems.push(`stored an entity id of ${c.writes.length} characters`);
    if (c.writes && 'status' in res && res.status < 300) {
      const read = await target.http({ method: 'GET', path: `/api/states/${encodeURIComponent(c.writes)}` });
      const same = 'status' in read && read.status === 200 && read.body.toString() === res.body.toString();
      if (!same) problems.push(`answered ${res.status} but GET /api/states/${c.writes.slice(0, 60)} shows ${'status' in read ? `${read.status} ${read.body.toString().slice(0, 200)}` : read.error}`);
    }
    return { problems, refused };
  });
}

// ---- raw HTTP ----------------------------------------------------------------------------------

interface RawCase {
  name: string;
  chunks: Array<string | Buffer>;
  gapMs?: number;
  /** what the answer must show besides "no 5xx" */
  expect?: (statuses: number[]) => string | undefined;
}

function rawCases(token: string): RawCase[] {
  const auth = `Authorization: Bearer ${token}\r\n`;
  const get = (path = '/api/', extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}${extra}\r\n`;
  const close = 'Connection: close\r\n';
  const post = (path: string, body: string | Buffer, extra = `Content-Length: ${Buffer.byteLength(body)}\r\n`) =>
    [`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: application/json\r\n${close}${extra}\r\n`, body];
  const bytes = (...parts: Array<string | number[]>) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
  const allOk = (n: number) => (s: number[]) => (s.length === n && s.every((x) => x === 200) ? undefined : `expected ${n} answers 200, got [${s.join(',')}]`);
  return [
    { name: 'pipelined 20 GET /api/', chunks: [get().repeat(19) + get('/api/', close)], expect: allOk(20) },
    { name: 'pipelined GET /api/states x50', chunks: [get('/api/states').repeat(49) + get('/api/states', close)], expect: allOk(50) },
    { name: 'pipelined with garbage between', chunks: [get() + 'GARBAGE\r\n\r\n' + get('/api/', close)] },
    { name: 'garbage request line', chunks: ['GARBAGE\r\n\r\n'] },
    { name: 'only line breaks', chunks: ['\r\n\r\n\r\n\r\n'] },
    { name: 'no HTTP version', chunks: ['GET /api/\r\n\r\n'] },
    { name: 'HTTP/9.9', chunks: [`GET /api/ HTTP/9.9\r\nHost: x\r\n${auth}${close}\r\n`] },
    { name: 'HTTP/1.0 without Host', chunks: [`GET /api/ HTTP/1.0\r\n${auth}\r\n`] },
    { name: 'bare LF line ends', chunks: [`GET /api/ HTTP/1.1\nHost: x\n${auth.replace('\r', '')}Connection: close\n\n`] },
    { name: 'HTTP/2 preface', chunks: ['PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'] },
    { name: 'TLS ClientHello', chunks: [Buffer.from('16030100a5010000a10303' + '00'.repeat(160), 'hex')] },
    { name: 'invalid UTF-8 in path', chunks: [bytes('GET /api/states/sensor.', [0xff, 0xfe], ` HTTP/1.1\r\nHost: x\r\n${auth}${close}\r\n`)] },
    { name: 'invalid UTF-8 in POST path', chunks: post('/api/states/sensor.\xff', '{"state":"1"}').map((c) => (typeof c === 'string' ? Buffer.from(c, 'latin1') : c)) },
    { name: 'NUL in path', chunks: [`GET /api/states/sensor.\u0000x HTTP/1.1\r\nHost: x\r\n${auth}${close}\r\n`] },
    { name: 'NUL in a header value', chunks: [`GET /api/ HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n${auth}${close}\r\n`] },
    { name: 'header without colon', chunks: [`GET /api/ HTTP/1.1\r\nHost x\r\n${auth}${close}\r\n`] },
    { name: 'header name with space', chunks: [`GET /api/ HTTP/1.1\r\nHost: x\r\nX A: b\r\n${auth}${close}\r\n`] },
    { name: 'obsolete line folding', chunks: [`GET /api/ HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n${auth}${close}\r\n`] },
    { name: 'header of 100 KB', chunks: [get('/api/', `X-Big: ${'a'.repeat(100_000)}\r\n${close}`)] },
    { name: 'header of 1 MB', chunks: [get('/api/', `X-Big: ${'a'.repeat(1 << 20)}\r\n${close}`)] },
    { name: '1,000 headers', chunks: [get('/api/', Array.from({ length: 1000 }, (_, i) => `X-H${i}: ${i}\r\n`).join('') + close)] },
    { name: 'Authorization with invalid UTF-8', chunks: [bytes('GET /api/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ', [0xff, 0xfe, 0xc0], `\r\n${close}\r\n`)] },
    { name: 'Authorization of 20,000 characters', chunks: [`GET /api/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n${close}\r\n`] },
    { name: 'two Authorization headers', chunks: [get('/api/', `${auth}${close}`)] },
    { name: 'Content-Length -1', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: -1\r\n') },
    { name: 'Content-Length abc', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: abc\r\n') },
    { name: 'Content-Length 1e3', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: 1e3\r\n') },
    { name: 'Content-Length twice, differing', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: 13\r\nContent-Length: 5\r\n') },
    { name: 'Content-Length 20 digits', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: 99999999999999999999\r\n') },
    { name: 'Content-Length with sign', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: +13\r\n') },
    { name: 'body longer than Content-Length', chunks: post('/api/states/sensor.raw', '{"state":"1"}GARBAGE\r\n\r\n', 'Content-Length: 13\r\n') },
    { name: 'body shorter than Content-Length', chunks: post('/api/states/sensor.raw', '{"sta', 'Content-Length: 13\r\n') },
    { name: 'chunked body', chunks: post('/api/states/sensor.raw', 'd\r\n{"state":"1"}\r\n0\r\n\r\n', 'Transfer-Encoding: chunked\r\n') },
    { name: 'chunked size zz', chunks: post('/api/states/sensor.raw', 'zz\r\n{"state":"1"}\r\n0\r\n\r\n', 'Transfer-Encoding: chunked\r\n') },
    { name: 'chunked size 2^64', chunks: post('/api/states/sensor.raw', 'ffffffffffffffff\r\n{"state":"1"}\r\n0\r\n\r\n', 'Transfer-Encoding: chunked\r\n') },
    { name: 'chunked size -1', chunks: post('/api/states/sensor.raw', '-1\r\n{"state":"1"}\r\n0\r\n\r\n', 'Transfer-Encoding: chunked\r\n') },
    { name: 'chunked without end', chunks: post('/api/states/sensor.raw', 'd\r\n{"state":"1"}\r\n', 'Transfer-Encoding: chunked\r\n') },
    { name: 'chunked and Content-Length', chunks: post('/api/states/sensor.raw', 'd\r\n{"state":"1"}\r\n0\r\n\r\n', 'Transfer-Encoding: chunked\r\nContent-Length: 4\r\n') },
    { name: 'chunked body with invalid UTF-8', chunks: post('/api/states/sensor.raw', bytes('d\r\n{"state":"', [0xff, 0xfe], '"}\r\n0\r\n\r\n'), 'Transfer-Encoding: chunked\r\n') },
    { name: 'Transfer-Encoding gzip', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Transfer-Encoding: gzip\r\n') },
    { name: 'Expect: 100-continue', chunks: post('/api/states/sensor.raw', '{"state":"1"}', 'Content-Length: 13\r\nExpect: 100-continue\r\n') },
    { name: 'absolute-form target', chunks: [get('http://127.0.0.1/api/', close)] },
    { name: 'OPTIONS *', chunks: [`OPTIONS * HTTP/1.1\r\nHost: x\r\n${close}\r\n`] },
    { name: 'CONNECT', chunks: [`CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n${close}\r\n`] },
    { name: 'target without slash', chunks: [get('api/', close)] },
    { name: 'lower-case method', chunks: [`get /api/ HTTP/1.1\r\nHost: x\r\n${auth}${close}\r\n`] },
    { name: 'method of 10 KB', chunks: [`${'G'.repeat(10_000)} /api/ HTTP/1.1\r\nHost: x\r\n${close}\r\n`] },
    { name: 'path of 1 MB', chunks: [get(`/api/states/sensor.${'a'.repeat(1 << 20)}`, close)] },
    { name: 'header sent byte by byte', chunks: [...get('/api/', close)], gapMs: 1 },
    { name: 'WebSocket upgrade on /api/states', chunks: [get('/api/states', `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n`)] },
    { name: 'WebSocket upgrade without key', chunks: [`GET /api/websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n`] },
    { name: 'WebSocket upgrade with a bad key', chunks: [`GET /api/websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${'%'.repeat(5000)}\r\nSec-WebSocket-Version: 13\r\n\r\n`] },
    { name: 'WebSocket upgrade, version 12', chunks: [`GET /api/websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 12\r\n\r\n`] },
    { name: 'WebSocket upgrade with a POST', chunks: [`POST /api/websocket HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 3\r\n\r\nabc`] },
    { name: 'GET with a body', chunks: [`GET /api/ HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 5\r\n${close}\r\nhello`] },
    { name: 'CL.TE smuggling', chunks: post('/api/states/sensor.raw', '0\r\n\r\nGET /api/config HTTP/1.1\r\nHost: x\r\n\r\n', 'Content-Length: 6\r\nTransfer-Encoding: chunked\r\n') },
  ];
}

/** Random bytes, or a valid request with some bytes changed. */
function randomRaw(rng: Rng, token: string): { chunks: Buffer[]; what: string } {
  const valid = Buffer.from(`POST /api/states/sensor.fuzz_${rng.int(30)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{"state":"raw"}`);
  if (rng.chance(0.3)) {
    const n = rng.range(1, 4096);
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = rng.int(256);
    return { chunks: [b], what: `${n} random bytes` };
  }
  const b = Buffer.from(valid);
  const edits: string[] = [];
  for (let k = rng.range(1, 4); k > 0; k--) {
    const at = rng.int(b.length);
    const v = rng.pick([0x00, 0x0a, 0x0d, 0x20, 0x3a, 0x7f, 0x80, 0xff, rng.int(256)]);
    b[at] = v;
    edits.push(`byte ${at} = 0x${v.toString(16)}`);
  }
  return { chunks: [b], what: `valid request with ${edits.join(', ')}` };
}

t.test('REST fuzz', async (t) => {
  const target = await FuzzTarget.start(t, FILE);
  t.teardown(() => target.stop());
  const seed = target.seed;
  t.comment(`fuzz seed ${seed} (replay: HEARTH_FUZZ_SEED=${seed} npm test -- ${FILE})`);
  const { cases, deadline } = budget(1500, 45);
  let ran = 0;

  // every route once with a valid request
  for (const route of REST_ROUTES) {
    const id = `valid ${routeName(route)}`;
    if (!selected(id)) continue;
    const rng = caseRng(seed, id);
    ran++;
    if (!(await runRestCase(target, id, buildCase(rng, target.ctx, 'valid', route)))) break;
  }

  // the HTTP layer with bytes no HTTP client would send
  const raws = rawCases(target.token);
  for (const rc of raws) {
    const id = `raw ${rc.name}`;
    if (target.dead || !selected(id)) continue;
    ran++;
    await target.runCase(id, 'raw HTTP', `${rc.name}: ${preview(Buffer.concat(rc.chunks.map((c) => Buffer.from(c as any, typeof c === 'string' ? 'latin1' : undefined))))}`, {}, async () => {
      const exchange = await rawExchange(target.port, rc.chunks, { gapMs: rc.gapMs });
      const problems = exchange.statuses.filter((s) => s >= 500).map((s) => `answered ${s}`);
      const extra = rc.expect?.(exchange.statuses);
      if (extra) problems.push(extra);
      return { problems, refused: true };
    });
  }

  // random cases until the count or the time is used up
  const kinds: ReadonlyArray<readonly [number, string]> = [
    [1, 'valid'], [6, 'mutate'], [4, 'body'], [3, 'params'], [2, 'headers'], [1, 'method'], [1, 'query'], [1, 'path'], [1, 'raw'],
  ];
  for (let i = 0; i < cases && Date.now() < deadline && !target.dead; i++) {
    const id = `rest#${i}`;
    if (!selected(id)) continue;
    const rng = caseRng(seed, id);
    const kind = rng.weighted(kinds);
    ran++;
    if (kind === 'raw') {
      const r = randomRaw(rng, target.token);
      await target.runCase(id, 'raw HTTP', `${r.what}: ${preview(r.chunks[0])}`, {}, async () => {
        const exchange = await rawExchange(target.port, r.chunks, { idleMs: 300 });
        return { problems: exchange.statuses.filter((s) => s >= 500).map((s) => `answered ${s}`), refused: true };
      });
    } else {
      await runRestCase(target, id, buildCase(rng, target.ctx, kind));
    }
  }
  t.comment(`ran ${ran} cases with seed ${seed}; slowest liveness answer ${target.slowestLiveness.toFixed(0)} ms`);
  if (target.dead) t.fail(`[seed ${seed}] the server is gone, the remaining cases did not run: ${target.dead}`, { at: null });

  await target.compareStates(t);
  await target.restartAndCompare(t);
  target.report.finish();
  if (target.report.failures === 0) t.pass(`${ran} REST cases: no 5xx, no crash, no stall, no refused request with effects`);
});
