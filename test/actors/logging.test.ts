// Logging on a real Hearth: `logger:` levels per module, logger.set_level at runtime, the system
// log's capture (system_log/list, system_log_event, clear, write), GET /api/error_log and the
// log file, and a bad `logger:` refused at start.
import t from 'tap';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startHearth } from '../../bin/instance.ts';
import { startTestHearth, dataDirWith, onboard, api, type TestHearth } from '../helpers/hearth.ts';
import { authedClient, type RawClient } from '../helpers/ws.ts';
import { exchange, login } from './auth/harness.ts';
import { eventually } from '../helpers/wait.ts';

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

/** A request with a token nobody issued: a failed login, which hearth.http.ban warns about. */
async function badLogin(h: TestHearth): Promise<void> {
  const before = await failedLogins(h);
  const res = await fetch(`${h.base}/api/`, { headers: { Authorization: 'Bearer not-a-token' } });
  t.equal(res.status, 401);
  // the warning is written before its record is appended: once the record is there, so is the line
  await eventually('the failed login record', async () => (await failedLogins(h)) > before);
}

async function failedLogins(h: TestHearth): Promise<number> {
  let n = 0;
  for await (const r of h.hearth.log.read()) if (r.type === 'login_attempt_failed') n++;
  return n;
}

const BAN_WARNING = /^Login attempt or request with invalid authentication from/;

/** A user of `groups`, made by the owner and logged in. */
async function userIn(base: string, owner: RawClient, name: string, groupIds: string[]) {
  const created = await ask(owner, { type: 'config/auth/create', name, group_ids: groupIds });
  const id = created.result.user.id as string;
  await ask(owner, { type: 'config/auth_provider/homeassistant/create', user_id: id, username: name, password: `${name}-password` });
  const step = await login(base, name, `${name}-password`);
  const tokens = (await exchange(base, step.json.result)).json;
  return { token: tokens.access_token as string, rest: api(base, tokens.access_token) };
}

t.test('levels per logger from configuration.yaml decide what is written', async (t) => {
  const h = await startTestHearth(t, {
    config: 'logger:\n  default: warning\n  logs:\n    hearth.http.ban: error\n    hearth.custom: DEBUG\n',
  });
  const owner = api(h.base, (await onboard(h.base)).access_token);
  await badLogin(h);
  t.notOk(h.lines.some((l) => BAN_WARNING.test(l)), 'hearth.http.ban at error: its warning is not written');

  const write = (logger: string, level: string, message: string) => owner('POST', '/api/services/system_log/write', { logger, level, message });
  t.equal((await write('hearth.custom.deeper', 'debug', 'child of a debug logger')).status, 200);
  t.equal((await write('hearth.other', 'info', 'info under the warning default')).status, 200);
  t.equal((await write('hearth.other', 'warning', 'warning under the warning default')).status, 200);
  t.ok(h.lines.includes('child of a debug logger'), 'a logger takes the level of its nearest configured parent');
  t.notOk(h.lines.includes('info under the warning default'), 'the default refuses info');
  t.ok(h.lines.includes('warning under the warning default'));

  const file = (await owner('GET', '/api/error_log')).text;
  t.match(file, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} DEBUG \(MainThread\) \[hearth\.custom\.deeper\] child of a debug logger$/m, 'the file names time, level and logger');
  t.match(file, /WARNING \(MainThread\) \[hearth\.other\] warning under the warning default$/m);
  t.notMatch(file, /info under the warning default/);
});

t.test('without a logger: section, info and above are written', async (t) => {
  const h = await startTestHearth(t);
  const owner = api(h.base, (await onboard(h.base)).access_token);
  await badLogin(h);
  t.ok(h.lines.some((l) => BAN_WARNING.test(l)), 'the ban warning is written');
  await owner('POST', '/api/services/system_log/write', { level: 'info', message: 'an info line' });
  await owner('POST', '/api/services/system_log/write', { level: 'debug', message: 'a debug line' });
  t.ok(h.lines.includes('an info line'));
  t.notOk(h.lines.includes('a debug line'), 'debug is not');
});

t.test('logger.set_level and set_default_level at runtime', async (t) => {
  const h = await startTestHearth(t);
  const tokens = await onboard(h.base);
  const owner = api(h.base, tokens.access_token);
  const ws = await authedClient(h.base, tokens.access_token);
  const sub = await ask(ws, { type: 'subscribe_events', event_type: 'logging_changed' });
  t.ok(sub.success);

  t.same((await owner('POST', '/api/services/logger/set_level', { 'hearth.http.ban': 'error' })).json, []);
  const changed = await ws.until((m) => m.type === 'event');
  t.equal(changed.event.event_type, 'logging_changed', 'a change of levels fires logging_changed');
  await badLogin(h);
  t.notOk(h.lines.some((l) => BAN_WARNING.test(l)), 'the ban warning is silenced at once');

  await owner('POST', '/api/services/logger/set_level', { 'hearth.http.ban': 'notset' });
  await badLogin(h);
  t.ok(h.lines.some((l) => BAN_WARNING.test(l)), 'NOTSET hands the logger back to the default');

  await owner('POST', '/api/services/logger/set_default_level', { level: 'critical' });
  await owner('POST', '/api/services/system_log/write', { message: 'an error under a critical default' });
  t.notOk(h.lines.includes('an error under a critical default'));
  await owner('POST', '/api/services/logger/set_level', { hearth: 'DEBUG' });
  await owner('POST', '/api/services/system_log/write', { level: 'debug', message: 'debug under hearth' });
  t.ok(h.lines.includes('debug under hearth'), 'a level on `hearth` covers every hearth.* logger');

  const bad = await ask(ws, { type: 'call_service', domain: 'logger', service: 'set_level', service_data: { 'hearth.auth': 'loud' } });
  t.same(bad.error, {
    code: 'invalid_format',
    message: "value must be one of ['CRITICAL', 'DEBUG', 'ERROR', 'FATAL', 'INFO', 'NOTSET', 'WARN', 'WARNING'] for dictionary value @ data['hearth.auth']. Got 'loud'",
  });
  const noLevel = await ask(ws, { type: 'call_service', domain: 'logger', service: 'set_default_level', service_data: {} });
  t.equal(noLevel.error.code, 'invalid_format');
  t.match(noLevel.error.message, /required key not provided @ data\['level'\]/);
  t.equal((await owner('POST', '/api/services/logger/set_default_level', { level: 7 })).status, 400, 'REST: a plain 400');

  const { rest: plain } = await userIn(h.base, ws, 'plain', ['system-users']);
  t.equal((await plain('POST', '/api/services/logger/set_level', { hearth: 'debug' })).status, 401, 'logger services are admin services');
});

t.test('warnings are captured: system_log/list, system_log_event, clear; GET /api/error_log', async (t) => {
  const h = await startTestHearth(t, { config: 'system_log:\n  fire_event: true\n' });
  const tokens = await onboard(h.base);
  const owner = api(h.base, tokens.access_token);
  const ws = await authedClient(h.base, tokens.access_token);
  t.ok((await ask(ws, { type: 'subscribe_events', event_type: 'system_log_event' })).success);

  await badLogin(h);
  const fired = await ws.until((m) => m.type === 'event');
  t.equal(fired.event.event_type, 'system_log_event');
  t.equal(fired.event.data.name, 'hearth.http.ban');
  await badLogin(h);

  const list = await ask(ws, { type: 'system_log/list' });
  t.ok(list.success);
  const ban = list.result.find((e: any) => e.name === 'hearth.http.ban');
  t.same(Object.keys(ban).sort(), ['count', 'exception', 'first_occurred', 'level', 'message', 'name', 'source', 'timestamp'], "the original's entry fields");
  t.equal(ban.level, 'WARNING');
  t.equal(ban.count, 2, 'the same warning from the same place is one entry');
  t.equal(ban.message.length, 1, 'an identical message is kept once');
  t.match(ban.message[0], BAN_WARNING);
  t.equal(ban.source[0], 'actors/auth/ip-bans.ts', 'source: the file that logged, relative to the source tree');
  t.type(ban.source[1], 'number');
  t.equal(ban.exception, '');
  t.ok(ban.timestamp >= ban.first_occurred && ban.first_occurred > 1e9 && ban.first_occurred < 1e11, 'epoch seconds');

  t.equal((await owner('POST', '/api/services/system_log/write', { message: 'written by a client' })).status, 200);
  const written = (await ask(ws, { type: 'system_log/list' })).result[0];
  t.match(written, { name: 'hearth.system_log.external', level: 'ERROR', message: ['written by a client'], count: 1 }, 'newest first; write defaults to error');
  t.equal(written.source[0], 'actors/logging/services.ts');
  const bad = await ask(ws, { type: 'call_service', domain: 'system_log', service: 'write', service_data: { message: 'x', level: 'loud' } });
  t.same(bad.error, { code: 'invalid_format', message: "value must be one of ['critical', 'debug', 'error', 'info', 'warning'] for dictionary value @ data['level']. Got 'loud'" });

  const log = await owner('GET', '/api/error_log');
  t.equal(log.status, 200);
  t.match(log.headers.get('content-type'), /^text\/plain/);
  t.match(log.text, /WARNING \(MainThread\) \[hearth\.http\.ban\] Login attempt or request with invalid authentication from/);
  t.match(log.text, /ERROR \(MainThread\) \[hearth\.system_log\.external\] written by a client/);
  t.equal(log.text, await readFile(join(h.dataDir, 'hearth.log'), 'utf8'), 'it is <data>/hearth.log');

  // cleared before the 401s below: each is a failed login the ban keeper logs only after a
  // reverse lookup of the address, which could land after the clear
  await owner('POST', '/api/services/system_log/clear', {});
  t.same((await ask(ws, { type: 'system_log/list' })).result, [], 'clear empties the capture');

  const { rest: plain, token } = await userIn(h.base, ws, 'plain', ['system-users']);
  t.equal((await plain('GET', '/api/error_log')).status, 401, 'error_log is for admins');
  const plainWs = await authedClient(h.base, token);
  t.same((await ask(plainWs, { type: 'system_log/list' })).error, { code: 'unauthorized', message: 'Unauthorized' });
  t.equal((await fetch(`${h.base}/api/error_log`)).status, 401, 'and never without a token');
});

t.test('the capture keeps max_entries, dropping the oldest; filters drop records', async (t) => {
  const h = await startTestHearth(t, { config: "system_log:\n  max_entries: 2\nlogger:\n  default: info\n  filters:\n    hearth.noisy:\n      - '^chatter'\n" });
  const tokens = await onboard(h.base);
  const owner = api(h.base, tokens.access_token);
  for (const logger of ['hearth.a', 'hearth.b', 'hearth.c']) await owner('POST', '/api/services/system_log/write', { logger, message: `from ${logger}` });
  const ws = await authedClient(h.base, tokens.access_token);
  t.same((await ask(ws, { type: 'system_log/list' })).result.map((e: any) => e.name), ['hearth.c', 'hearth.b']);
  await owner('POST', '/api/services/system_log/write', { logger: 'hearth.noisy', message: 'chatter, chatter' });
  await owner('POST', '/api/services/system_log/write', { logger: 'hearth.noisy', message: 'something that matters' });
  t.notOk(h.lines.includes('chatter, chatter'), 'a filtered message is not written');
  t.ok(h.lines.includes('something that matters'));
  t.same((await ask(ws, { type: 'system_log/list' })).result.map((e: any) => e.message), [['something that matters'], ['from hearth.c']], 'nor captured');
});

t.test('a bad logger: or system_log: section is refused at start, naming the problem', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['logger:\n  default: loud\n', /configuration\.yaml: logger: default: value must be one of \['CRITICAL', 'DEBUG', 'ERROR', 'FATAL', 'INFO', 'NOTSET', 'WARN', 'WARNING'\] \(got "loud"\)/],
    ['logger:\n  logs:\n    hearth.auth: [debug]\n', /logger: logs: hearth\.auth: value must be one of \[.*\] \(got \["debug"\]\)/],
    ['logger:\n  level: debug\n', /logger: extra keys not allowed @ data\['level'\]/],
    ['logger:\n  logs: debug\n', /logger: logs: expected a dictionary \(got "debug"\)/],
    ["logger:\n  filters:\n    hearth.auth: ['(unclosed']\n", /logger: filters: hearth\.auth: invalid regular expression: .* \(got "\(unclosed"\)/],
    ['system_log:\n  max_entries: -1\n', /system_log: max_entries: expected a positive integer \(got -1\)/],
    ['system_log:\n  fire_event: perhaps\n', /system_log: fire_event: invalid boolean value \(got "perhaps"\)/],
  ];
  for (const [config, message] of cases) {
    const dataDir = await dataDirWith(config);
    await t.rejects(startHearth({ dataDir, port: 0, host: '127.0.0.1', log: () => {} }), { message }, config.trim());
    await t.rejects(stat(join(dataDir, 'log')), { code: 'ENOENT' }, 'nothing was opened');
  }
});

t.test('the log file: the last run kept as hearth.log.1; none at all without a file', async (t) => {
  const dataDir = await dataDirWith();
  const first = await startHearth({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  const owner = api(`http://127.0.0.1:${first.port}`, (await onboard(`http://127.0.0.1:${first.port}`)).access_token);
  await owner('POST', '/api/services/system_log/write', { message: 'from the first run' });
  await first.stop();
  t.match(await readFile(join(dataDir, 'hearth.log'), 'utf8'), /from the first run/, 'flushed at stop');

  const second = await startHearth({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  t.teardown(() => second.stop());
  t.match(await readFile(join(dataDir, 'hearth.log.1'), 'utf8'), /from the first run/, 'the previous run moved aside');
  t.notMatch(await readFile(join(dataDir, 'hearth.log'), 'utf8'), /from the first run/);

  const none = await startTestHearth(t, { logFile: false });
  const noneOwner = api(none.base, (await onboard(none.base)).access_token);
  t.equal((await noneOwner('GET', '/api/error_log')).status, 404, 'no file: no route, as the original without a log file');
  await t.rejects(stat(join(none.dataDir, 'hearth.log')));
});

t.test('empty logger: and system_log: sections: DEBUG lets everything through; both are loaded components', async (t) => {
  const h = await startTestHearth(t, { config: 'logger:\nsystem_log:\n' });
  const owner = api(h.base, (await onboard(h.base)).access_token);
  await owner('POST', '/api/services/system_log/write', { level: 'debug', message: 'debug with an empty logger section' });
  t.ok(h.lines.includes('debug with an empty logger section'), "an empty logger: lets DEBUG through (the original's default)");
  const components = (await owner('GET', '/api/components')).json;
  t.ok(components.includes('logger') && components.includes('system_log'));
});
