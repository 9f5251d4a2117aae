// Templates that grow a value without end (or work on it for hours), sent to a real Hearth
// through POST /api/template, the WebSocket's render_template and a phone's webhook. Each must
// be answered with the template error of a bound (or its small result) within the time limit,
// while another client is served, and without the server's memory growing past a bound. The
// server runs as a child process through the fuzz oracle: a case that kills or hangs it is
// reported, and the next case gets a fresh server.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { DEFAULT_LIMITS } from '../../actors/templates/budget.ts';
import { REGISTRATION } from '../actors/mobile/app.ts';
import { runFixedCases, type FixedCase, type FuzzTarget } from './harness.ts';
import type { HttpOutcome } from './http-clients.ts';
import { WsClient } from './ws-client.ts';

const FILE = 'test/fuzz/template-bombs.test.ts';

/** The error of a bound, as the engine words each. */
const LIMIT = /^(Template value exceeded maximum size of \d+ characters|Template output exceeded maximum size of \d+ characters|Template rendering exceeded \d+ steps|Template rendering took longer than \d+ ms|Exceeded maximum execution time of [\d.]+s)$/;
/** How long an answer may take: the render's time limit, and room for a busy machine. */
const WITHIN_MS = DEFAULT_LIMITS.timeMs + 3000;
/** Past this a request is taken as never answered. */
const HANG_MS = 30_000;
/**
 * How far past its size at the start the server's peak memory may go: a render's values and the
 * garbage of those before it, not yet collected (the zfill bomb alone took ~570 MiB before).
 */
const GROWTH_MIB = 400;

interface Bomb {
  name: string;
  template: string;
  /** the error of a bound (the default), or the text a render that must now be cheap gives */
  text?: string;
}

const BOMBS: Bomb[] = [
  { name: 'zfill to 400 million', template: "{{ '1'.zfill(400000000) }}" },
  { name: 'zfill to 300 million, then upper and lower', template: "{{ ('1'.zfill(300000000)) | upper | lower }}" },
  { name: 'slice into 20 million lists', template: '{{ [1] | slice(20000000) | list }}' },
  { name: 'indent of many lines by a million', template: "{{ ('x\\n' * 500000) | indent(1000000) }}" },
  { name: 'batch padded to 100 million', template: '{{ [1] | batch(100000000, 0) | list }}' },
  { name: 'an empty list repeated 10^11 times', template: '{{ ([] * 100000000000) | length }}', text: '0' },
  { name: 'a million references to a million-item list, printed', template: '{{ [[1] * 1000000] * 1000000 }}' },
  { name: 'the same, compared', template: '{{ [[1] * 1000000] * 1000000 == [[1] * 1000000] * 1000000 }}' },
  { name: 'the same, as JSON', template: '{{ ([[1] * 1000000] * 1000000) | tojson }}' },
  { name: 'the same, joined', template: "{{ ([[1] * 1000000] * 1000000) | join(',') }}" },
  { name: 'zip of 100,000 lists of 100,000', template: '{{ zip(*([range(100000) | list] * 100000)) | length }}' },
  { name: 'striptags of a million unclosed <', template: "{{ ('<' * 1000000) | striptags | length }}", text: '1000000' },
  { name: 'set of 100,000 numbers', template: '{{ set(range(100000) | list) | length }}', text: '100000' },
  { name: 'unique of 100,000 numbers', template: '{{ range(100000) | unique | list | length }}', text: '100000' },
  { name: 'flatten of a 200,000-item list', template: '{{ [[1] * 200000] | flatten | length }}', text: '200000' },
  { name: 'wordwrap joined by a megabyte', template: "{{ ('x ' * 400000) | wordwrap(1, wrapstring='y' * 1000000) }}" },
  { name: 'replace by a megabyte', template: "{{ ('x' * 1000000) | replace('x', 'y' * 1000000) }}" },
  { name: 'regex_replace by 300,000 whole matches', template: "{{ ('x' * 200000) | regex_replace('x', '\\\\g<0>' * 300000) }}" },
  { name: 'slugify with a $` separator', template: "{{ ('x ' * 400000) | slugify('$`') }}" },
  { name: 'str.format to a width of 900 million', template: "{{ '{:>900000000}'.format('x') }}" },
  { name: '% to a width of 900 million', template: "{{ '%*s' % (900000000, 'x') }}" },
  { name: 'the repr of a megabyte of control characters', template: "{{ ['\\x01' * 1000000] | string }}" },
];

/** Work without a value: the steps or the time stop it. */
const LOOP: Bomb = { name: 'a loop of 10^10 steps', template: '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}' };

/** The bombs the issue names, also sent through the WebSocket and a phone's webhook. */
const NAMED = BOMBS.slice(0, 5);

const status = (r: HttpOutcome) => ('status' in r ? `${r.status} ${r.body.toString().slice(0, 200)}` : r.error);
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The problems of an answer given in `ms`: a bound's error (or the bomb's text), in time. */
function answerProblems(bomb: Bomb, answer: { error?: unknown; text?: unknown } | undefined, ms: number, what: string): string[] {
  const problems: string[] = [];
  if (!answer) return [`${what}: no answer within ${HANG_MS} ms`];
  if (bomb.text !== undefined) {
    if (String(answer.text) !== bomb.text) problems.push(`${what}: expected ${bomb.text}, got ${JSON.stringify(answer).slice(0, 200)}`);
  } else if (typeof answer.error !== 'string' || !LIMIT.test(answer.error)) problems.push(`${what}: expected the error of a bound, got ${JSON.stringify(answer).slice(0, 200)}`);
  if (ms > WITHIN_MS) problems.push(`${what}: answered after ${Math.round(ms)} ms (limit ${DEFAULT_LIMITS.timeMs} ms)`);
  return problems;
}

/**
 * Sends the bomb, and a moment later another client's GET /api/ on a connection of its own:
 * that must be served within the time limit too, while the bomb renders or right after.
 */
async function withBystander(target: FuzzTarget, send: () => Promise<string[]>): Promise<string[]> {
  const bystander = delay(100).then(() => target.http({ method: 'GET', path: '/api/', timeoutMs: HANG_MS }));
  const [problems, other] = await Promise.all([send(), bystander]);
  if (!('status' in other) || other.status !== 200) problems.push(`another client's GET /api/ was not served: ${status(other)}`);
  else if (other.ms > WITHIN_MS) problems.push(`another client's GET /api/ waited ${other.ms} ms`);
  return problems;
}

async function viaRest(target: FuzzTarget, bomb: Bomb): Promise<string[]> {
  return withBystander(target, async () => {
    const res = await target.http({ method: 'POST', path: '/api/template', body: JSON.stringify({ template: bomb.template }), timeoutMs: HANG_MS });
    if (!('status' in res)) return [`POST /api/template: no answer (${res.error})`];
    const body = res.body.toString();
    const answer = res.status === 200 ? { text: body } : res.status === 400 ? { error: JSON.parse(body).message.replace(/^Error rendering template: /, '') } : { status: res.status, body: body.slice(0, 200) };
    return answerProblems(bomb, answer, res.ms, 'POST /api/template');
  });
}

/** render_template with report_errors (and `extra`, such as a timeout): its first event answers, or the command's own error (a render that runs past a timeout). */
async function viaWebSocket(target: FuzzTarget, bomb: Bomb, extra: Record<string, unknown> = {}): Promise<string[]> {
  const ws = await WsClient.authed(target.port, target.token);
  try {
    return await withBystander(target, async () => {
      const started = performance.now();
      const id = ws.nextId();
      ws.sendJson({ id, type: 'render_template', template: bomb.template, report_errors: true, ...extra });
      const answer = await ws.take((m) => m.id === id && (m.type === 'event' || (m.type === 'result' && m.success === false)), HANG_MS);
      const ms = performance.now() - started;
      const pong = await ws.ping(HANG_MS);
      const seen = answer && (answer.type === 'event' ? { error: answer.event.error, text: answer.event.result } : { error: answer.error.message });
      const problems = answerProblems(bomb, seen, ms, 'render_template');
      if (pong?.type !== 'pong') problems.push('the WebSocket no longer answers a ping');
      return problems;
    });
  } finally {
    ws.close();
  }
}

const webhooks = new WeakMap<FuzzTarget, string>();

/** A phone registered on this server: its webhook id. */
async function phone(target: FuzzTarget): Promise<string> {
  let id = webhooks.get(target);
  if (id) return id;
  const res = await target.http({ method: 'POST', path: '/api/mobile_app/registrations', body: JSON.stringify(REGISTRATION) });
  if (!('status' in res) || res.status !== 201) throw new Error(`registering a phone failed: ${status(res)}`);
  id = JSON.parse(res.body.toString()).webhook_id as string;
  webhooks.set(target, id);
  return id;
}

/** Renders `bombs` in one render_template webhook call: each is answered on its own key. */
async function viaWebhook(target: FuzzTarget, bombs: Bomb[]): Promise<string[]> {
  const id = await phone(target);
  return withBystander(target, async () => {
    const data = Object.fromEntries(bombs.map((b, i) => [`t${i}`, { template: b.template }]));
    const res = await target.http({ method: 'POST', path: `/api/webhook/${id}`, body: JSON.stringify({ type: 'render_template', data }), auth: false, timeoutMs: HANG_MS * bombs.length });
    if (!('status' in res) || res.status !== 200) return [`webhook render_template: ${status(res)}`];
    const answers = JSON.parse(res.body.toString());
    // each template may take the time limit: the whole call as many times
    return bombs.flatMap((b, i) => answerProblems(b, typeof answers[`t${i}`] === 'object' ? answers[`t${i}`] : { text: answers[`t${i}`] }, res.ms / bombs.length, `webhook render_template ${b.name}`));
  });
}

/** The server's resident memory now and at its peak (Linux's /proc), in bytes; undefined once it is gone. */
function memoryOf(pid: number): { rss: number; peak: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

const CASES: FixedCase[] = [
  ...BOMBS.map((b): FixedCase => ({ name: `REST: ${b.name}`, input: b.template, run: (target) => viaRest(target, b) })),
  ...NAMED.map((b): FixedCase => ({ name: `WebSocket: ${b.name}`, input: b.template, run: (target) => viaWebSocket(target, b) })),
  ...[NAMED[0], LOOP].map((b): FixedCase => ({ name: `WebSocket with a timeout of 5 s: ${b.name}`, input: b.template, run: (target) => viaWebSocket(target, b, { timeout: 5 }) })),
  ...NAMED.map((b): FixedCase => ({ name: `webhook: ${b.name}`, input: b.template, run: (target) => viaWebhook(target, [b]) })),
  {
    name: 'webhook: every bomb in one call',
    input: BOMBS.map((b) => b.template).join('\n'),
    run: (target) => viaWebhook(target, BOMBS),
  },
];

t.test('templates that grow without end are stopped by their bounds', async (t) => {
  let server: { pid: number; baseline: number } | undefined;
  const growth = () => {
    const now = server && memoryOf(server.pid);
    return now && server ? now.peak - server.baseline : undefined;
  };
  // the server's peak memory, past its size when it started, is checked after each case
  const withMemory = CASES.map((c): FixedCase => ({
    ...c,
    async run(target) {
      const problems = await c.run(target);
      const grown = growth();
      if (grown !== undefined && grown > GROWTH_MIB * 2 ** 20) problems.push(`the server's memory grew by ${Math.round(grown / 2 ** 20)} MiB at its peak (bound ${GROWTH_MIB} MiB)`);
      return problems;
    },
  }));
  await runFixedCases(t, FILE, 'template bomb', withMemory, (target) => {
    const pid = target.proc.child.pid!;
    server = { pid, baseline: memoryOf(pid)!.rss };
  });
  const grown = growth();
  if (grown !== undefined) t.comment(`the server's memory peaked ${Math.round(grown / 2 ** 20)} MiB above its size at the start`);
});
