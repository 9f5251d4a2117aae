// The router alone: gateway/router.ts's Router with a handler that only parses the body and answers
// a fixed state JSON, beside raw uWS doing the same (read the body, parse it, answer the same
// headers and bytes). What the router costs on every request, before any actor or the log.
import uWS from '@trufflesuite/uws-js-unofficial';
import { Router } from '../gateway/router.ts';
import { json } from '../gateway/replies.ts';
import { parseJson } from '../gateway/body.ts';
import type { Principal } from '../actors/auth/types.ts';
import { ALL } from '../actors/auth/permissions.ts';
import { isMain, num, rateRow, runAlone, type BenchOptions, type BenchResult } from './common.ts';
import { timedLoad, type HttpLoadResult } from './wrk.ts';
import { hotSpotNotes, startProfile } from './profile.ts';

const CONNECTIONS = 64;
const ROUNDS = 3;
const ANSWER =
  '{"entity_id":"sensor.bench_1","state":"1","attributes":{},"last_changed":"2026-01-01T00:00:00.000000+00:00",' +
  '"last_reported":"2026-01-01T00:00:00.000000+00:00","last_updated":"2026-01-01T00:00:00.000000+00:00",' +
  '"context":{"id":"01J00000000000000000000000","parent_id":null,"user_id":"u"}}';
const PRINCIPAL: Principal = { userId: 'u', isAdmin: true, isOwner: true, refreshTokenId: 'r', permissions: ALL };

function listen(app: uWS.TemplatedApp): Promise<{ port: number; close(): void }> {
  return new Promise((ok, fail) =>
    app.listen('127.0.0.1', 0, (s) => (s ? ok({ port: uWS.us_socket_local_port(s), close: () => uWS.us_listen_socket_close(s) }) : fail(new Error('cannot listen')))),
  );
}

/** The Router, with a bearer check that accepts any token (the real one is a cached map lookup). */
function routerApp() {
  const app = uWS.App();
  const router = new Router({ authenticator: { authenticate: (a) => (a ? PRINCIPAL : undefined) } });
  router.post('/api/states/:entity_id', { access: 'admin' }, (req) => {
    const body = parseJson(req);
    if (!body.ok) return json(400, '{"message":"Invalid JSON specified."}');
    return json(200, ANSWER, { Location: `/api/states/${req.params.entity_id}` });
  });
  router.mount(app);
  return listen(app);
}

function rawApp() {
  const app = uWS.App();
  app.post('/api/states/:entity_id', (res, req) => {
    const id = req.getParameter(0);
    if (!req.getHeader('authorization')) return void res.writeStatus('401 Unauthorized').end();
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, last) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!last || aborted) return;
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.cork(() => {
        res.writeStatus('200 OK').writeHeader('Referrer-Policy', 'no-referrer').writeHeader('X-Content-Type-Options', 'nosniff');
        res.writeHeader('X-Frame-Options', 'SAMEORIGIN').writeHeader('Content-Type', 'application/json; charset=utf-8');
        res.writeHeader('Location', `/api/states/${id}`).end(ANSWER);
      });
    });
  });
  return listen(app);
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];
  const load = (port: number) => timedLoad({ port, connections: CONNECTIONS, warmupMs: 1000, durationMs: 4000, request: { kind: 'post-state', token: 'bench', ids: 1000 } });
  const raw = await rawApp();
  const routed = await routerApp();
  const runs = { raw: [] as HttpLoadResult[], router: [] as HttpLoadResult[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.raw.push(await load(raw.port));
    const stop = options.profile && round === 0 ? await startProfile() : undefined;
    runs.router.push(await load(routed.port));
    if (stop) notes.push(...hotSpotNotes('the Router under POST load', await stop()));
  }
  raw.close();
  routed.close();
  const best = (list: HttpLoadResult[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const base = best(runs.raw);
  const r = best(runs.router);
  const perRequest = (x: HttpLoadResult) => `${num((x.hostCpu / x.rps) * 1e6, 1)} µs of server CPU per request`;
  notes.unshift(`load: ${r.generatorText}; ${CONNECTIONS} connections, writes over 1,000 ids; best of ${ROUNDS} interleaved rounds`);
  return {
    name: 'router',
    title: 'the Router alone (parse the body, answer a fixed state) vs raw uWS',
    rows: [
      rateRow('Router', r.rps, 'req/s', { label: 'raw uWS', value: base.rps }, { text: '≥ 0.80× raw', min: 0.8 }, `Router ${perRequest(r)}; raw ${perRequest(base)}`),
    ],
    notes,
  };
}

if (isMain(import.meta.url)) await runAlone(run);
