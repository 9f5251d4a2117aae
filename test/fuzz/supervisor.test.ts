// Fuzzes every route of the supervisor's API on both trees with hostile bodies and path segments:
// each must be answered with a clear refusal or an answer, never an unexpected exception (the API
// logs one as "error answering ..."), and the supervisor answers afterwards. No engine is
// reachable and the host's commands that would change this machine never run, as in the role
// matrix. Seeded: HEARTH_FUZZ_SEED=<seed> picks other inputs; by default the same every run.
import t from 'tap';
import { writeFileSync } from 'node:fs';
import { startSupervisor, type Supervisor } from '../../bin/supervisor-instance.ts';
import { supervisorDataDir } from '../helpers/supervisor.ts';
import { inertHost } from '../helpers/host.ts';
import { caseRng, hash32 } from './rng.ts';
import { deepJson, genKey, genValue, hostileSegment, malformedJson, withBadUtf8, type Body } from './generators.ts';

const SEED = process.env.HEARTH_FUZZ_SEED ? Number(process.env.HEARTH_FUZZ_SEED) >>> 0 : hash32('supervisor fuzz');
// routes whose purpose is to stop what answers (tried once, last) or that stream until closed
const LAST = new Set(['POST /supervisor/restart', 'POST /v2/supervisor/restart']);
const STREAMS = /\/follow$/;

t.test(`every supervisor route with hostile input (seed ${SEED})`, async (t) => {
  const dataDir = await supervisorDataDir();
  const options = { dataDir, port: 0, host: '127.0.0.1', dockerSocket: '/nonexistent/docker.sock', coreContainer: 'fuzz_core_absent', hostSystem: inertHost(), backupsCheck: false, bootCore: false };
  const first = await startSupervisor({ ...options, log: () => {} });
  await first.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true } }, { id: 'fuzz', parent_id: null, user_id: null });
  await first.stop();
  const lines: string[] = [];
  const s: Supervisor = await startSupervisor({ ...options, log: (l) => lines.push(l) });
  t.teardown(() => s.stop());
  const base = `http://127.0.0.1:${s.port}`;
  const token = s.adminToken;

  const send = async (method: string, path: string, body?: Body, contentType = 'application/json') => {
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 30_000);
    try {
      const res = await fetch(base + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': contentType }) },
        body: body === undefined ? undefined : typeof body === 'string' ? body : new Uint8Array(body),
        signal: ctrl.signal,
      });
      const text = res.headers.get('x-accel-buffering') ? '' : await res.text();
      return { status: res.status, text };
    } finally {
      clearTimeout(timer);
      ctrl.abort();
    }
  };

  const table = s.api.table().filter((e) => !STREAMS.test(e.path));
  let cases = 0;
  const problems: string[] = [];
  const ordered = [...table.filter((e) => !LAST.has(`${e.method} ${e.path}`)), ...table.filter((e) => LAST.has(`${e.method} ${e.path}`))];
  for (const entry of ordered) {
    const name = `${entry.method} ${entry.path}`;
    const rng = caseRng(SEED, name);
    const params = entry.path.match(/:\w+/g) ?? [];
    // the route with ordinary names, then with a hostile segment in each parameter
    const paths = [entry.path.replace(/:bootid/g, '0').replace(/:\w+/g, 'fuzz_x')];
    for (const p of params) paths.push(entry.path.replace(p, hostileSegment(rng).raw).replace(/:bootid/g, '0').replace(/:\w+/g, 'fuzz_x'));
    const bodies: { body?: Body; what: string; type?: string }[] = [{ what: 'no body' }];
    if (entry.method !== 'GET') {
      const key = genKey(rng).value;
      bodies.push(
        { body: malformedJson(rng, '{"a": 1}').value, what: 'malformed JSON' },
        { body: '[]', what: 'an array' },
        { body: 'null', what: 'null' },
        { body: '"text"', what: 'a string' },
        { body: JSON.stringify({ [key]: JSON.parse(genValue(rng).value) }), what: 'an unknown key with a hostile value' },
        { body: deepJson('mixed', 2000), what: 'nesting 2,000 deep' },
        { body: withBadUtf8(rng, '{"name": "x"}').value, what: 'bad UTF-8' },
        { body: 'a=1&b=2', what: 'a form', type: 'application/x-www-form-urlencoded' },
      );
    }
    for (const path of paths) {
      for (const b of bodies) {
        cases++;
        const seen = lines.length;
        let answer: { status: number; text: string };
        try {
          answer = await send(entry.method, path, b.body, b.type);
        } catch (err) {
          problems.push(`${name} as ${path.slice(0, 120)} with ${b.what}: no answer (${(err as Error).message})`);
          continue;
        }
        const unexpected = lines.slice(seen).filter((l) => l.includes('error answering'));
        if (unexpected.length) problems.push(`${name} as ${path.slice(0, 120)} with ${b.what}: ${unexpected[0].slice(0, 400)}`);
        if (answer.status >= 500 && answer.status !== 500 && answer.status !== 502 && answer.status !== 503) problems.push(`${name} with ${b.what}: status ${answer.status}`);
        if (/Cannot read propert|is not a function|is not iterable|Maximum call stack/.test(answer.text)) problems.push(`${name} as ${path.slice(0, 120)} with ${b.what}: ${answer.status} ${answer.text.slice(0, 200)}`);
      }
      if (LAST.has(name)) {
        // the soft restart takes the API down for a moment
        for (let i = 0; i < 200; i++) {
          const ping = await fetch(`${base}/supervisor/ping`).catch(() => undefined);
          if (ping?.status === 200) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    }
  }
  // HEARTH_FUZZ_DUMP=<file>: every problem, whole, for reading
  if (process.env.HEARTH_FUZZ_DUMP) writeFileSync(process.env.HEARTH_FUZZ_DUMP, JSON.stringify(problems, null, 2));
  t.same(problems, [], `${cases} requests over ${table.length} routes answered without an unexpected exception`);
  t.equal((await fetch(`${base}/supervisor/ping`)).status, 200, 'and the supervisor still answers');
});
