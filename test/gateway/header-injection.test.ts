// A header value with CR, LF or NUL never reaches the wire: whichever way an answer is written
// (a whole answer, a file, an event stream, a proxy hop's refusal) it is dropped for a 500, the
// log names the header, and the raw bytes hold no line of the value's making.
import t from 'tap';
import { writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../../gateway/router.ts';
import { json, plainError } from '../../gateway/replies.ts';
import { serveProxy } from '../../gateway/proxy/relay.ts';
import { rawExchange } from '../fuzz/http-clients.ts';

const INJECTED = 'a\r\nSet-Cookie: session=stolen';

t.test('answers whose headers would split a line are dropped for a 500', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-headers-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'f.txt');
  await writeFile(file, 'file body');
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const router = new Router({ authenticator: { authenticate: () => undefined } as never, log });
  router.get('/fine', { access: 'none' }, () => json(200, { ok: true }, { 'X-Name': 'plain value' }));
  router.get('/value-crlf', { access: 'none' }, () => json(200, { ok: true }, { 'X-Name': INJECTED }));
  router.get('/value-lf', { access: 'none' }, () => json(200, { ok: true }, { 'X-Name': 'a\nSet-Cookie: session=stolen' }));
  router.get('/value-nul', { access: 'none' }, () => json(200, { ok: true }, { 'X-Name': 'a\u0000b' }));
  router.get('/name-crlf', { access: 'none' }, () => json(200, { ok: true }, { 'X-Name\r\nSet-Cookie': 'session=stolen' }));
  router.get('/file', { access: 'none' }, () => ({ status: 200, headers: { 'Content-Disposition': `attachment; filename=${INJECTED}` }, file, size: 9 }));
  router.get('/stream', { access: 'none' }, () => ({ status: 200, headers: { 'X-Name': INJECTED }, open: () => () => {} }));

  const uWS = (await import('@trufflesuite/uws-js-unofficial')).default;
  const app = uWS.App();
  serveProxy(app, {
    pattern: '/hop/*',
    matches: () => true,
    plan: () => ({ refuse: plainError(401, { 'WWW-Authenticate': INJECTED }) }),
    log,
    name: 'test hop',
  });
  router.mount(app);
  const socket = await new Promise<any>((ok, fail) => app.listen('127.0.0.1', 0, (s) => (s ? ok(s) : fail(new Error('cannot listen')))));
  t.teardown(() => uWS.us_listen_socket_close(socket));
  const port = uWS.us_socket_local_port(socket);
  const get = (path: string) => rawExchange(port, [`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`]);

  const fine = await get('/fine');
  t.same(fine.statuses, [200], 'a plain value goes out');
  t.match(fine.data.toString('latin1'), /\r\nX-Name: plain value\r\n/);

  for (const [path, header] of [
    ['/value-crlf', '"X-Name"'],
    ['/value-lf', '"X-Name"'],
    ['/value-nul', '"X-Name"'],
    ['/name-crlf', '"X-Name\\r\\nSet-Cookie"'],
    ['/file', '"Content-Disposition"'],
    ['/stream', '"X-Name"'],
    ['/hop/x', '"WWW-Authenticate"'],
  ]) {
    lines.length = 0;
    const answer = await get(path);
    const text = answer.data.toString('latin1');
    t.same(answer.statuses, [500], `${path}: 500`);
    t.notMatch(text, /set-cookie/i, `${path}: no injected line`);
    t.notMatch(text, /\u0000/, `${path}: no NUL`);
    t.match(text, /\r\n\r\n500: Internal Server Error$/, `${path}: the bare 500`);
    t.ok(answer.closed, `${path}: the connection is closed`);
    t.same(lines, [`answer dropped for a 500: the header ${header} holds CR, LF or NUL`], `${path}: one log line naming the header`);
  }
});
