// Fuzzes the WebSocket API of a real Hearth: the auth handshake and every command.
// Seeded: HEARTH_FUZZ_SEED=<seed> replays a run, HEARTH_FUZZ_CASE=<case id> one case of it.
import t from 'tap';
import { caseRng, type Rng } from './rng.ts';
import { MEMBER_NAMES, genValue, malformedJson, mutateJson, preview, withBadUtf8, type Body, type FuzzContext } from './generators.ts';
import { WS_COMMANDS } from './routes-and-commands.ts';
import { FuzzTarget, type CaseChecks } from './harness.ts';
import { budget, selected } from './report.ts';
import { WsClient } from './ws-client.ts';
import { readJson } from '../../gateway/body.ts';

const FILE = 'test/fuzz/ws.test.ts';

interface Frame {
  data: Body;
  binary?: boolean;
}

interface WsCase {
  route: string;
  frames: Frame[];
  what: string;
  /** the server may close the connection (a text frame that is not UTF-8: close code 1007) */
  closeOk: boolean;
  /** one text frame the server refuses before reading it (not JSON, not UTF-8, nested too deep) */
  unread?: boolean;
  checks: CaseChecks;
  /** for checks: the single message sent, as the server parses it */
  single?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(data: Body): unknown {
  try {
    const text = typeof data === 'string' ? data : new TextDecoder('utf-8', { fatal: true }).decode(data);
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const HOSTILE_TYPES = [
  ...MEMBER_NAMES, '', ' ', 'auth', 'result', 'pong', 'event', 'get_states ', 'GET_STATES', 'subscribe_events/x', 'auth/',
  'auth/current_user/x', 'call_service\u0000', 'é', 'x'.repeat(20_000), 'ping'.repeat(3),
];

/** A message (or frame) from a valid command, changed in one way. */
function buildCase(rng: Rng, ctx: FuzzContext, kind: string, nextId: () => number, only?: (typeof WS_COMMANDS)[number]): WsCase {
  const big = rng.chance(0.05);
  const command = only ?? rng.pick(WS_COMMANDS);
  const message = () => ({ id: nextId(), type: command.type, ...command.valid(rng, ctx) });
  const text = (data: string, what: string, closeOk = false): WsCase => ({ route: command.type, frames: [{ data }], what, closeOk, checks: {} });
  let c: WsCase;
  switch (kind) {
    case 'valid':
      c = text(JSON.stringify(message()), 'valid');
      break;
    case 'mutate': {
      const g = mutateJson(rng, message(), { big });
      c = text(g.value, `valid message with ${g.what}`);
      break;
    }
    case 'type': {
      const type = rng.pick(HOSTILE_TYPES);
      const m = rng.chance(0.5) ? { ...message(), type } : { id: nextId(), type };
      c = { ...text(JSON.stringify(m), `type ${JSON.stringify(type.slice(0, 40))}`), route: 'hostile type' };
      break;
    }
    case 'id': {
      const g = genValue(rng, { big });
      const m = message();
      c = text(JSON.stringify(m).replace(/^\{"id":\d+/, `{"id":${g.value}`), `id ${g.what}`);
      break;
    }
    case 'value': {
      const g = genValue(rng, { big });
      c = { ...text(g.value, `message ${g.what}`), route: 'any JSON' };
      break;
    }
    case 'malformed': {
      const g = malformedJson(rng, JSON.stringify(message()));
      c = { route: command.type, frames: [{ data: g.value }], what: `malformed: ${g.what}`, closeOk: typeof g.value !== 'string', checks: {} };
      break;
    }
    case 'utf8': {
      const g = withBadUtf8(rng, JSON.stringify(message()));
      c = { route: command.type, frames: [{ data: g.value }], what: `not UTF-8: ${g.what}`, closeOk: true, checks: {} };
      break;
    }
    case 'batch': {
      const n = rng.range(2, 5);
      const parts = Array.from({ length: n }, () => (rng.chance(0.5) ? JSON.stringify(message()) : mutateJson(rng, message()).value));
      c = { ...text(`[${parts.join(',')}]`, `${n} messages in one frame`), route: 'batch' };
      break;
    }
    default: {
      c = { route: command.type, frames: [{ data: Buffer.from(JSON.stringify(message())), binary: true }], what: 'binary frame', closeOk: false, checks: {} };
    }
  }
  // refused unread, it is answered under the id one of its ends names, or the connection ends
  if (c.frames.length === 1 && !c.frames[0].binary) {
    const bytes = typeof c.frames[0].data === 'string' ? Buffer.from(c.frames[0].data) : c.frames[0].data;
    const read = readJson(bytes);
    c.unread = !read.ok || read.value === undefined;
    c.closeOk ||= c.unread;
  }
  // what a refused command must not have done
  const parsed = c.frames.length === 1 && !c.frames[0].binary ? parse(c.frames[0].data) : undefined;
  if (isObject(parsed)) {
    c.single = parsed;
    const spec = WS_COMMANDS.find((w) => w.type === parsed.type);
    if (spec && Object.prototype.hasOwnProperty.call(parsed, 'type')) {
      c.checks = { watch: spec.watch?.(parsed), fires: spec.fires?.(parsed) };
    }
  }
  return c;
}

/** How many answers (results or pongs) the frames must get. */
function expectedAnswers(c: WsCase): number {
  let n = 0;
  for (const f of c.frames) {
    if (f.binary) continue;
    const v = parse(f.data);
    n += Array.isArray(v) ? v.length : 1;
  }
  return n;
}

/** The largest integer id among the messages, so the fence's id comes after it. */
function largestId(c: WsCase): number {
  let max = 0;
  for (const f of c.frames) {
    const v = parse(f.data);
    for (const m of Array.isArray(v) ? v : [v]) if (isObject(m) && Number.isInteger(m.id)) max = Math.max(max, m.id);
  }
  return max;
}

function describe(c: WsCase): string {
  return `${c.frames.map((f) => `${f.binary ? 'binary' : 'text'} frame ${preview(f.data)}`).join(' + ')} — ${c.what}`;
}

class FuzzSession {
  client!: WsClient;
  private used = 0;
  constructor(private readonly target: FuzzTarget) {}

  async fresh(): Promise<void> {
    this.client?.close();
    this.client = await WsClient.authed(this.target.port, this.target.token);
    this.used = 0;
  }

  /** Sends the case, then a ping as a fence; returns what was wrong with the answers. */
  async run(c: WsCase): Promise<{ problems: string[]; refused: boolean }> {
    // a new connection now and then: subscriptions pile up, and ids may have been used up
    if (!this.client?.isOpen || ++this.used > 100) await this.fresh();
    const client = this.client;
    const problems: string[] = [];
    client.inbox.length = 0;
    const expected = expectedAnswers(c);
    const biggest = largestId(c);
    for (const f of c.frames) client.send(f.data, f.binary);
    client.skipIdsTo(Math.min(biggest, 2 ** 40));
    const fenceId = client.nextId();
    client.sendJson({ id: fenceId, type: 'ping' });
    const fence = await client.take((m) => m?.id === fenceId && (m.type === 'pong' || m.type === 'result'), 10_000);
    const answers = () => client.inbox.filter((m) => m?.type === 'result' || m?.type === 'pong');
    if (!fence) {
      if (!client.isOpen || client.closeCode !== undefined) {
        const code = client.closeCode;
        await this.fresh();
        // uWS ends a connection whose frame passes maxPayloadLength (16 MiB)
        const tooBig = c.frames.some((f) => Buffer.byteLength(f.data) > 16 << 20);
        // more answers than a client may have pending (the original's 4096): it is dropped, as there
        const tooMany = expected > 4096;
        if (!c.closeOk && !tooBig && !tooMany) problems.push(`the server closed the connection (code ${code}) instead of answering`);
        return { problems, refused: true };
      }
      problems.push('the fence ping after the case got no answer within 10 s');
    }
    // past this the server's last id cannot be followed: start over on a new connection
    if (biggest >= 2 ** 40) this.used = Infinity;
    // commands that write answer after their commit, possibly after the fence
    const deadline = Date.now() + 10_000;
    // a frame refused unread (too deep, say) gets one invalid_format answer, however many messages it holds
    const wholeFrameRefused = () => c.unread === true && answers().some((m) => m.error?.code === 'invalid_format');
    const settled = Date.now() + 200;
    while (answers().length < expected && !(wholeFrameRefused() && Date.now() > settled) && Date.now() < deadline && client.isOpen) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const got = answers();
    if (got.length < expected && !wholeFrameRefused()) problems.push(`${expected - got.length} of ${expected} messages got no answer within 10 s`);
    for (const m of got) {
      if (m.success === false && m.error?.code === 'unknown_error') problems.push(`answered unknown_error: ${JSON.stringify(m.error).slice(0, 300)}`);
      if (m.type === 'result' && m.success === false && typeof m.error?.code !== 'string') problems.push(`an error result without a code: ${JSON.stringify(m).slice(0, 200)}`);
    }
    if (client.badFrames.length) problems.push(`the server sent frames that are not JSON: ${client.badFrames.splice(0).join(' | ').slice(0, 300)}`);
    // refused unless the one message sent was answered with success
    const id = c.single?.id;
    const own = got.find((m) => m.id === id);
    return { problems, refused: !(own && own.success !== false && own.type === 'result') };
  }
}

/** An auth message of the handshake, changed in one way. */
function buildAuthCase(rng: Rng, token: string): { frames: Frame[]; what: string } {
  const valid = { type: 'auth', access_token: token };
  return rng.weighted<() => { frames: Frame[]; what: string }>([
    [5, () => {
      const g = mutateJson(rng, valid, { big: rng.chance(0.05) });
      return { frames: [{ data: g.value }], what: `auth message with ${g.what}` };
    }],
    [2, () => {
      const g = genValue(rng);
      return { frames: [{ data: g.value }], what: `auth message ${g.what}` };
    }],
    [2, () => {
      const g = malformedJson(rng, JSON.stringify(valid));
      return { frames: [{ data: g.value }], what: `malformed: ${g.what}` };
    }],
    [1, () => ({ frames: [{ data: JSON.stringify(valid), binary: true }], what: 'auth in a binary frame' })],
    [1, () => ({ frames: [{ data: `[${JSON.stringify(valid)},${JSON.stringify(valid)}]` }], what: 'auth twice in an array' })],
    [1, () => ({ frames: [{ data: JSON.stringify(valid) }, { data: JSON.stringify({ id: 1, type: 'ping' }) }], what: 'auth and a command at once' })],
    [1, () => {
      const type = rng.pick(HOSTILE_TYPES);
      return { frames: [{ data: JSON.stringify({ type, access_token: token }) }], what: `type ${JSON.stringify(type.slice(0, 30))}` };
    }],
  ])();
}

/** True when the first frame is exactly `{type: "auth", access_token: <the valid token>}`. */
function validAuth(frames: Frame[], token: string): boolean {
  if (frames[0].binary) return false;
  const m = parse(frames[0].data);
  return isObject(m) && m.type === 'auth' && m.access_token === token && Object.keys(m).every((k) => k === 'type' || k === 'access_token');
}

t.test('WebSocket fuzz', async (t) => {
  const target = await FuzzTarget.start(t, FILE);
  t.teardown(() => target.stop());
  const seed = target.seed;
  t.comment(`fuzz seed ${seed} (replay: HEARTH_FUZZ_SEED=${seed} npm test -- ${FILE})`);
  const { cases, deadline } = budget(3000, 45);
  const session = new FuzzSession(target);
  await session.fresh();
  const nextId = () => session.client.nextId();
  let ran = 0;

  // every command once, valid
  for (const command of WS_COMMANDS) {
    const id = `valid ${command.type}`;
    if (target.dead || !selected(id)) continue;
    const c = buildCase(caseRng(seed, id), target.ctx, 'valid', nextId, command);
    ran++;
    await target.runCase(id, c.route, describe(c), c.checks, () => session.run(c));
  }

  // the handshake: each case on a connection of its own
  const authCases = Math.min(150, Math.floor(cases / 10));
  for (let i = 0; i < authCases && !target.dead && Date.now() < deadline; i++) {
    const id = `auth#${i}`;
    if (!selected(id)) continue;
    const a = buildAuthCase(caseRng(seed, id), target.token);
    ran++;
    await target.runCase(id, 'auth handshake', `${a.frames.map((f) => preview(f.data)).join(' + ')} — ${a.what}`, {}, async () => {
      const problems: string[] = [];
      const c = await WsClient.open(target.port);
      try {
        const first = await c.take(() => true, 5000);
        if (first?.type !== 'auth_required') return { problems: [`expected auth_required, got ${JSON.stringify(first)}`], refused: true };
        for (const f of a.frames) c.send(f.data, f.binary);
        const answer = await c.take((m) => m?.type === 'auth_ok' || m?.type === 'auth_invalid' || m?.id !== undefined, 5000);
        if (!answer && c.closeCode === undefined) {
          // closing without a word is allowed (invalid JSON); silence is not
          await c.closed.then(() => {}, () => {});
          if (c.closeCode === undefined) problems.push('neither answered nor closed within 5 s');
        }
        if (answer?.type === 'auth_ok' && !validAuth(a.frames, target.token)) problems.push('auth_ok for a message that is not a valid auth message');
        if (answer && answer.type !== 'auth_ok' && answer.type !== 'auth_invalid') problems.push(`answered ${JSON.stringify(answer).slice(0, 200)} before auth`);
        if (c.badFrames.length) problems.push(`frames that are not JSON: ${c.badFrames.join(' | ').slice(0, 200)}`);
      } finally {
        c.close();
      }
      return { problems, refused: true };
    });
  }

  const kinds: ReadonlyArray<readonly [number, string]> = [
    [1, 'valid'], [8, 'mutate'], [3, 'type'], [2, 'id'], [3, 'value'], [3, 'malformed'], [1, 'utf8'], [2, 'batch'], [1, 'binary'],
  ];
  for (let i = 0; i < cases && Date.now() < deadline && !target.dead; i++) {
    const id = `ws#${i}`;
    if (!selected(id)) continue;
    const rng = caseRng(seed, id);
    const c = buildCase(rng, target.ctx, rng.weighted(kinds), nextId);
    ran++;
    await target.runCase(id, c.route, describe(c), c.checks, () => session.run(c));
  }
  session.client.close();
  t.comment(`ran ${ran} cases with seed ${seed}; slowest liveness answer ${target.slowestLiveness.toFixed(0)} ms`);
  if (target.dead) t.fail(`[seed ${seed}] the server is gone, the remaining cases did not run: ${target.dead}`, { at: null });

  await target.compareStates(t);
  await target.restartAndCompare(t);
  target.report.finish();
  if (target.report.failures === 0) t.pass(`${ran} WebSocket cases: no unknown_error, no crash, no stall, no refused command with effects`);
});
