// The log endpoints of /core (the core container's logs on the real engine) and /supervisor (its
// own log file). The core is a tiny busybox container that prints known lines at each start.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, mkdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestSupervisor, type TestSupervisor } from '../../../helpers/supervisor.ts';

/** A shared image kept between runs: busybox-static in an otherwise empty root (nothing can be pulled). */
const IMAGE = 'hearth-test/busybox:1';
const ACCEPT_ERROR = 'Invalid content type requested. Only text/plain and text/x-log supported for now.';

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function ensureImage(): void {
  try {
    docker('image', 'inspect', IMAGE);
    return;
  } catch {}
  if (!existsSync('/usr/bin/busybox')) throw new Error(`the image ${IMAGE} is built from /usr/bin/busybox: apt-get install -y busybox-static`);
  const root = mkdtempSync(join(tmpdir(), 'hearth-busybox-'));
  try {
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'tmp'));
    copyFileSync('/usr/bin/busybox', join(root, 'bin/busybox'));
    symlinkSync('busybox', join(root, 'bin/sh'));
    execFileSync('sh', ['-c', `tar -C '${root}' -c . | docker import - ${IMAGE}`], { stdio: 'ignore' });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// each start prints 120 numbered lines and a red one, then sleeps; `/count` numbers the starts
const SCRIPT = [
  'n=$(busybox cat /count 2>/dev/null || echo 0); n=$((n+1)); echo $n > /count',
  'i=1; while [ $i -le 120 ]; do echo "start $n line $i"; i=$((i+1)); done',
  'printf "\\033[31mred $n\\033[0m\\n"',
  'exec busybox sleep 1000000',
].join('; ');

function logCount(name: string): number {
  return Number(execFileSync('sh', ['-c', `docker logs ${name} 2>&1 | wc -l`], { encoding: 'utf8' }).trim());
}

async function waitForLines(name: string, count: number): Promise<void> {
  for (let i = 0; i < 200 && logCount(name) < count; i++) await new Promise((r) => setTimeout(r, 50));
}

const expectedLast = (n: number, start = 1) => {
  const lines: string[] = [];
  for (let i = 1; i <= 120; i++) lines.push(`start ${start} line ${i}`);
  lines.push(`\x1B[31mred ${start}\x1B[0m`);
  return lines.slice(-n);
};

const bodyLines = async (res: Response) => {
  const text = await res.text();
  // every line ends with a newline: a body without one has a line too many (an empty one)
  return text === '' ? [] : (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n').concat(text.endsWith('\n') ? [] : ['<no newline at the end>']);
};

ensureImage();
const name = `hearth-logs-test-${randomBytes(4).toString('hex')}`;
docker('run', '-d', '--name', name, IMAGE, '/bin/busybox', 'sh', '-c', SCRIPT);
t.teardown(() => {
  try {
    docker('rm', '-f', name);
  } catch {}
});
await waitForLines(name, 121);

let s: TestSupervisor;
t.before(async () => {
  s = await startTestSupervisor(t, { coreContainer: name });
});

t.test('GET /core/logs: the last 100 lines, plain, with the stream headers and the first cursor', async (t) => {
  const res = await s.call('GET', '/core/logs');
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain/);
  t.equal(res.headers.get('x-accel-buffering'), 'no');
  t.match(res.headers.get('x-first-cursor'), /^s=\d+;i=\d+$/);
  t.same(await bodyLines(res), expectedLast(100));
});

t.test('lines: N lines, non-integer means 100, fewer than 2 means 2; it overrides Range', async (t) => {
  t.same(await bodyLines(await s.call('GET', '/core/logs?lines=3')), expectedLast(3));
  t.same(await bodyLines(await s.call('GET', '/core/logs?lines=abc')), expectedLast(100));
  t.same(await bodyLines(await s.call('GET', '/core/logs?lines=1')), expectedLast(2));
  t.same(await bodyLines(await s.call('GET', '/core/logs?lines=-5')), expectedLast(2));
  t.same(await bodyLines(await s.call('GET', '/core/logs?lines=4', { headers: { Range: 'entries=:0:1' } })), expectedLast(4));
});

t.test('no_colors strips ANSI colors', async (t) => {
  const lines = await bodyLines(await s.call('GET', '/core/logs?lines=2&no_colors'));
  t.same(lines, ['start 1 line 120', 'red 1']);
});

t.test('verbose, and Accept text/x-log, use the verbose formatter; other types are a text 400', async (t) => {
  const shape = new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\S+ ${name}: start 1 line 120$`);
  const verbose = await bodyLines(await s.call('GET', '/core/logs?lines=2&verbose'));
  t.match(verbose[0], shape);
  t.ok(verbose[1].endsWith(`${name}: \x1B[31mred 1\x1B[0m`));
  const xlog = await bodyLines(await s.call('GET', '/core/logs?lines=2', { headers: { Accept: 'text/x-log' } }));
  t.match(xlog[0], shape);
  // the time is the engine's, in UTC
  const stamp = docker('logs', '-t', '--tail', '2', name).split('\n')[0].slice(0, 23).replace('T', ' ');
  t.equal(xlog[0].slice(0, 23), stamp);
  for (const accept of ['*/*', 'text/plain']) {
    t.same(await bodyLines(await s.call('GET', '/core/logs?lines=2', { headers: { Accept: accept } })), expectedLast(2), accept);
  }
  const json = await s.call('GET', '/core/logs', { headers: { Accept: 'application/json' } });
  t.equal(json.status, 400);
  t.match(json.headers.get('content-type'), /^text\/plain/);
  t.equal(await json.text(), ACCEPT_ERROR);
});

t.test('Range pages by the cursor of X-First-Cursor', async (t) => {
  const three = await s.call('GET', '/core/logs?lines=4');
  const cursor = three.headers.get('x-first-cursor')!;
  t.same(await bodyLines(three), expectedLast(4));
  const range = async (value: string) => {
    const res = await s.call('GET', '/core/logs', { headers: { Range: value } });
    t.equal(res.status, 200, value);
    return { cursor: res.headers.get('x-first-cursor'), lines: await bodyLines(res) };
  };
  t.same((await range(`entries=${cursor}:0:2`)).lines, expectedLast(4).slice(0, 2));
  const skipped = await range(`entries=${cursor}:1:2`);
  t.same(skipped.lines, expectedLast(4).slice(1, 3));
  // the second page's cursor pages on from there
  t.same((await range(`entries=${skipped.cursor}:2:5`)).lines, expectedLast(4).slice(3));
  t.same((await range(`entries=${cursor}:`)).lines, expectedLast(4), 'an empty count is unbounded');
  t.same((await range(`entries=${cursor}:-1:2`)).lines, expectedLast(5).slice(0, 2), 'a negative skip goes back');
  t.same((await range('entries=:0:2')).lines, ['start 1 line 1', 'start 1 line 2'], 'no cursor, from the first line');
  t.same((await range('entries=:-2:3')).lines, expectedLast(3), 'no cursor, from the last line back');
  const empty = await s.call('GET', '/core/logs', { headers: { Range: `entries=${cursor}:10:5` } });
  t.equal(empty.status, 200);
  t.equal(empty.headers.get('x-first-cursor'), null, 'no first cursor without a line');
  t.equal(await empty.text(), '');
  for (const bad of ['bytes=0-10', 'entries=a:b:c', `entries=${cursor}:x:1`, 'entries=zzz:0:1']) {
    const res = await s.call('GET', '/core/logs', { headers: { Range: bad } });
    t.equal(res.status, 400, bad);
    t.match(res.headers.get('content-type'), /^text\/plain/);
    t.match(await res.text(), /Range header/);
  }
});

/** Open Unix sockets of this process: the engine's (the supervisor runs in the test's process). */
const engineSockets = () => process.getActiveResourcesInfo().filter((r) => r === 'PipeWrap').length;

t.test('/logs/follow streams the lines written after the request began, until the client leaves', async (t) => {
  const controller = new AbortController();
  const res = await fetch(`${s.base}/core/logs/follow?lines=2`, { headers: { Authorization: `Bearer ${s.supervisor.adminToken}` }, signal: controller.signal });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-accel-buffering'), 'no');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const until = async (text: string) => {
    while (!seen.includes(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
  };
  await until('red 1');
  t.equal(seen, `${expectedLast(2).join('\n')}\n`, 'the last two lines first');
  docker('exec', name, '/bin/busybox', 'sh', '-c', 'echo "followed line" > /proc/1/fd/1');
  await until('followed line\n');
  t.equal(seen, `${[...expectedLast(2), 'followed line'].join('\n')}\n`);
  // the engine's follow stream is one more socket to the engine while the client stays
  const during = engineSockets();
  controller.abort();
  await reader.cancel().catch(() => {});
  for (let i = 0; i < 40 && engineSockets() >= during; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(engineSockets() < during, 'the engine stream is closed when the client leaves');
  // the stream ended, and the supervisor still answers
  t.equal((await s.call('GET', '/core/logs?lines=2')).status, 200);
});

t.test('/logs/boots/0 and the current boot id read this boot; other boots are a text 400', async (t) => {
  const lines = await bodyLines(await s.call('GET', '/core/logs/boots/0?lines=3&no_colors'));
  t.same(lines, await bodyLines(await s.call('GET', '/core/logs?lines=3&no_colors')));
  t.equal(lines.length, 3);
  const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  t.same(await bodyLines(await s.call('GET', `/core/logs/boots/${bootId.replace(/-/g, '')}?lines=3&no_colors`)), lines);
  for (const other of ['-1', '1', '2', 'abcdef']) {
    const res = await s.call('GET', `/core/logs/boots/${other}`);
    t.equal(res.status, 400, other);
    t.match(res.headers.get('content-type'), /^text\/plain/);
  }
  t.equal(await (await s.call('GET', '/core/logs/boots/-1')).text(), 'Logs only contain the current boot: boot offset -1 is out of range');
});

t.test('/logs/latest holds only the lines since the last start, colors stripped; legacy prefix too', async (t) => {
  docker('restart', '-t', '0', name);
  await waitForLines(name, 242);
  const expected = expectedLast(121, 2).map((l) => l.replace(/\x1B\[[0-9;]*m/g, ''));
  const res = await s.call('GET', '/core/logs/latest');
  t.equal(res.status, 200);
  t.match(res.headers.get('x-first-cursor'), /^s=\d+;i=\d+$/);
  t.same(await bodyLines(res), expected);
  t.same(await bodyLines(await s.call('GET', '/homeassistant/logs/latest')), expected, '/homeassistant alias');
  // /logs still reads across starts
  const all = await bodyLines(await s.call('GET', '/core/logs?lines=123'));
  t.same(all.slice(0, 2), [expectedLast(1, 1)[0], 'followed line']);
});

t.test('an app of role core reads the core logs, not the supervisor logs', async (t) => {
  const context = { id: '01JTESTCONTEXT0000000000000', parent_id: null, user_id: null };
  const { token } = await s.supervisor.tokens.issue({ name: 'reader', kind: 'app', role: 'core' }, context);
  t.equal((await s.call('GET', '/core/logs?lines=2', { token })).status, 200);
  t.equal((await s.call('GET', '/supervisor/logs', { token })).status, 403);
});

t.test('/supervisor/logs reads the supervisor log file', async (t) => {
  const res = await s.call('GET', '/supervisor/logs');
  t.equal(res.status, 200);
  t.match(res.headers.get('x-first-cursor'), /^f=\d+;n=\d+$/);
  const lines = await bodyLines(res);
  t.ok(lines.some((l) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} INFO \(MainThread\) \[hearth\.supervisor\] supervisor running on port \d+$/.test(l)), 'the start line');
  const verbose = await bodyLines(await s.call('GET', '/supervisor/logs?verbose&lines=2'));
  t.match(verbose[0], new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} \\S+ hearth_supervisor\\[${process.pid}\\]: `));
  const latest = await bodyLines(await s.call('GET', '/supervisor/logs/latest'));
  t.ok(latest.some((l) => l.includes('supervisor running on port')));

  // paging by line cursors
  for (const n of [1, 2, 3]) s.supervisor.logs.get('hearth.test').info(`page line ${n}`);
  await new Promise((r) => setImmediate(r));
  const page = await s.call('GET', '/supervisor/logs?lines=3');
  const cursor = page.headers.get('x-first-cursor')!;
  const three = await bodyLines(page);
  t.same(three.map((l) => l.replace(/^.* \[hearth\.test\] /, '')), ['page line 1', 'page line 2', 'page line 3']);
  t.same(await bodyLines(await s.call('GET', '/supervisor/logs', { headers: { Range: `entries=${cursor}:1:1` } })), [three[1]]);
  t.same(await bodyLines(await s.call('GET', '/supervisor/logs', { headers: { Range: `entries=${cursor}:-1:2` } })).then((l) => l[1]), three[0]);

  // following sees a line the supervisor logs after the request began
  const controller = new AbortController();
  const follow = await fetch(`${s.base}/supervisor/logs/follow`, { headers: { Authorization: `Bearer ${s.supervisor.adminToken}` }, signal: controller.signal });
  t.equal(follow.status, 200);
  const reader = follow.body!.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  const marker = `marker ${randomBytes(4).toString('hex')}`;
  s.supervisor.logs.get('hearth.test').warning(marker);
  while (!seen.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  t.match(seen, new RegExp(`WARNING \\(MainThread\\) \\[hearth\\.test\\] ${marker}\\n`));
  controller.abort();
  await reader.cancel().catch(() => {});
});

t.test('a core container that does not exist is a text 400 on every variant', async (t) => {
  const other = await startTestSupervisor(t, { coreContainer: `hearth-logs-test-missing-${randomBytes(4).toString('hex')}` });
  for (const path of ['/core/logs', '/core/logs/follow', '/core/logs/latest', '/core/logs/boots/0', '/homeassistant/logs']) {
    const res = await other.call('GET', path);
    t.equal(res.status, 400, path);
    t.match(res.headers.get('content-type'), /^text\/plain/);
    t.match(await res.text(), /^Core is not installed: there is no container hearth-logs-test-missing-/);
  }
});
