// Unknown WebSocket commands and refused requests leave a line each in the operator's log
// (what was asked, by whom, from where), a bounded number of them however many arrive.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient, type RawClient } from '../helpers/ws.ts';
import { userToken } from '../helpers/ws-sorting.ts';

const LIMIT = { lines: 5, windowMs: 1000 };

/** The log as GET /api/error_log serves it, line by line. */
async function logLines(base: string, ownerToken: string): Promise<string[]> {
  const res = await api(base, ownerToken)('GET', '/api/error_log');
  if (res.status !== 200) throw new Error(`error_log answered ${res.status}`);
  return res.text.split('\n');
}

/** The id of the user a token belongs to. */
async function userIdOf(base: string, token: string): Promise<string> {
  const c = await authedClient(base, token);
  c.send({ id: 1, type: 'auth/current_user' });
  const { result } = await c.next();
  c.ws.close();
  return result.id;
}

async function ask(c: RawClient, msg: Record<string, unknown>) {
  c.send(msg);
  return c.until((m) => m.id === msg.id);
}

t.test('refusals are logged with what, who and where', async (t) => {
  const { base } = await startTestHearth(t, { refusalLineLimit: LIMIT });
  const owner = (await onboard(base)).access_token;
  const plain = await userToken(base, owner);
  const [ownerId, plainId] = [await userIdOf(base, owner), await userIdOf(base, plain)];

  const ownerWs = await authedClient(base, owner);
  t.equal((await ask(ownerWs, { id: 2, type: 'no_such_command' })).error.code, 'unknown_command');
  t.equal((await ask(ownerWs, { id: 3, type: 'bad\n2026-01-01 00:00:00.000 ERROR (MainThread) [hearth.core] forged' })).error.code, 'unknown_command');
  ownerWs.ws.close();
  const plainWs = await authedClient(base, plain);
  t.equal((await ask(plainWs, { id: 2, type: 'config/auth/list' })).error.code, 'unauthorized');
  plainWs.ws.close();
  const unreadable = await authedClient(base, owner);
  unreadable.send('{"type":"ping",');
  await unreadable.closed;

  t.equal((await fetch(`${base}/api/nothing-here`)).status, 404);
  t.equal((await fetch(`${base}/api/states`, { method: 'PUT' })).status, 405);
  t.equal((await fetch(`${base}/api/states`)).status, 401);
  t.equal((await api(base, plain)('GET', '/api/error_log')).status, 401, 'an admin route, for a user who is not one');
  const preflight = await fetch(`${base}/api/states`, { method: 'OPTIONS', headers: { Origin: 'http://elsewhere.example', 'Access-Control-Request-Method': 'GET' } });
  t.equal(preflight.status, 403);
  t.equal((await api(base, owner)('GET', '/api/')).status, 200);

  const lines = await logLines(base, owner);
  const has = (pattern: RegExp, what: string) => t.ok(lines.some((l) => pattern.test(l)), what);
  const at = String.raw`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} INFO \(MainThread\) `;
  has(new RegExp(`${at}\\[hearth\\.websocket\\] Refused unknown_command for WebSocket command "no_such_command" from 127\\.0\\.0\\.1 \\(user ${ownerId}\\)$`), 'an unknown command');
  has(new RegExp(`${at}\\[hearth\\.websocket\\] Refused unauthorized for WebSocket command "config/auth/list" from 127\\.0\\.0\\.1 \\(user ${plainId}\\)$`), 'an admin command of a user who is not one');
  has(new RegExp(`${at}\\[hearth\\.http\\] Refused 404 for GET "/api/nothing-here" from 127\\.0\\.0\\.1 \\(no user\\)$`), 'an unknown path');
  has(new RegExp(`${at}\\[hearth\\.http\\] Refused 405 for PUT "/api/states" from 127\\.0\\.0\\.1 \\(no user\\)$`), 'a method the path does not take');
  has(new RegExp(`${at}\\[hearth\\.http\\] Refused 401 for GET "/api/states" from 127\\.0\\.0\\.1 \\(no user\\)$`), 'no token');
  has(new RegExp(`${at}\\[hearth\\.http\\] Refused 401 for GET "/api/error_log" from 127\\.0\\.0\\.1 \\(user ${plainId}\\)$`), 'not an admin');
  has(new RegExp(`${at}\\[hearth\\.http\\] Refused 403 for OPTIONS "/api/states" from 127\\.0\\.0\\.1 \\(no user\\)$`), 'a preflight from an origin not allowed');
  has(new RegExp(`${at}\\[hearth\\.websocket\\] Closed the WebSocket connection of 127\\.0\\.0\\.1 \\(user ${ownerId}\\): a message that could not be read, with no id to answer it under$`), 'a connection closed for a message without an id');
  has(/Refused unknown_command for WebSocket command "bad\\n2026-01-01 00:00:00\.000 ERROR \(MainThread\) \[hearth\.core\] forged"/, "a client's line break stays inside its quotes");
  t.notOk(lines.some((l) => / ERROR \(MainThread\) \[hearth\.core\] forged/.test(l) && !/Refused/.test(l)), 'no line of the client making');
  t.notOk(lines.some((l) => /Refused 200|"\/api\/"/.test(l)), 'an answered request leaves no line');
});

t.test('a flood of unknown commands leaves a bounded number of lines, and a count of the rest', async (t) => {
  const { base } = await startTestHearth(t, { refusalLineLimit: LIMIT });
  const owner = (await onboard(base)).access_token;
  const c = await authedClient(base, owner);
  const FLOOD = 10_000;
  let id = 1;
  // in rounds, each answered before the next: a client must read its answers to be kept
  while (id <= FLOOD) {
    const round = Array.from({ length: Math.min(500, FLOOD - id + 1) }, () => ({ id: id++, type: 'flood_command' }));
    c.send(round);
    await c.until((m) => m.id === id - 1, 10_000);
  }
  c.ws.close();

  const counted = (lines: string[]) => {
    const refused = lines.filter((l) => /Refused unknown_command for WebSocket command "flood_command"/.test(l)).length;
    const suppressed = lines.map((l) => /(\d+) more refused WebSocket commands \(unknown_command\) suppressed \(at most 5 lines of them every 1 s\)$/.exec(l)).filter((m) => m !== null);
    return { refused, suppressions: suppressed.length, more: suppressed.reduce((n, m) => n + Number(m[1]), 0), total: lines.length };
  };
  // the count of a window is told when the window ends
  const deadline = Date.now() + 10_000;
  let seen = counted(await logLines(base, owner));
  while (seen.refused + seen.more < FLOOD && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    seen = counted(await logLines(base, owner));
  }
  t.equal(seen.refused + seen.more, FLOOD, 'every unknown command is either a line or counted in one');
  t.ok(seen.suppressions >= 1, `${seen.suppressions} lines count what was left out`);
  t.ok(seen.refused <= LIMIT.lines * (seen.suppressions + 1), `${seen.refused} lines, at most ${LIMIT.lines} a window`);
  t.ok(seen.total < 200, `the whole log is ${seen.total} lines`);
});
