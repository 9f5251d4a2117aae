// A WebSocket message refused before it is read is answered under its own id when one end of
// it names the id, and otherwise ends the connection (the original ends it on invalid JSON).
import t from 'tap';
import { refusedMessageId } from '../../gateway/ws/refused-message-id.ts';
import { MAX_JSON_DEPTH } from '../../gateway/body.ts';
import { startTestHearth, onboard } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const tooDeep = deep(MAX_JSON_DEPTH + 1);

t.test('the id is read from either end of the top-level object, nowhere else', async (t) => {
  const cases: Array<[string, number | undefined]> = [
    [`{"id":7,"type":"ping","x":${tooDeep}}`, 7],
    [` \n{ "id" : 12 , "type":"ping"`, 12],
    [`{"type":"ping","x":${tooDeep},"id":9}`, 9],
    [`{"type":"ping","x":${tooDeep}, "id": 9 }\n`, 9],
    [`{"id":1,"x":${tooDeep},"id":2}`, 2],
    [`{"type":"ping","x":${tooDeep}}`, undefined],
    [`[{"id":7,"type":"ping"},${tooDeep}]`, undefined],
    [`{"x":{"id":7,"y":${tooDeep}}}`, undefined],
    [`{"x":${tooDeep},"y":{"id":7}}`, undefined],
    [`{"id":0,"x":${tooDeep}}`, undefined],
    [`{"id":-3,"x":${tooDeep}}`, undefined],
    [`{"id":07,"x":${tooDeep}}`, undefined],
    [`{"id":"7","x":${tooDeep}}`, undefined],
    [`{"id":7.5,"x":${tooDeep}}`, undefined],
    [`{"id":99999999999999999,"x":${tooDeep}}`, undefined],
    [`{"x":"${' '.repeat(100)}","id":7`, undefined],
    [`${' '.repeat(80)}{"id":7,"x":1`, undefined],
    ['', undefined],
  ];
  for (const [text, id] of cases) t.equal(refusedMessageId(Buffer.from(text)), id, text.length > 80 ? `${text.slice(0, 40)}…${text.slice(-30)}` : text);
});

t.test('WebSocket messages refused before they are read', async (t) => {
  const { base } = await startTestHearth(t);
  const tokens = await onboard(base);

  t.test('a message nested too deep is answered under its own id, and the connection stays', async (t) => {
    const c = await authedClient(base, tokens.access_token);
    c.send(`{"id":7,"type":"ping","x":${tooDeep}}`);
    const answer = await c.next();
    t.same(answer, {
      id: 7,
      type: 'result',
      success: false,
      error: { code: 'invalid_format', message: `Message incorrectly formatted: JSON nested deeper than ${MAX_JSON_DEPTH} levels` },
    });
    c.send(`{"type":"ping","x":${tooDeep},"id":8}`);
    t.equal((await c.next()).id, 8, 'an id the message ends with is read too');
    c.send({ id: 9, type: 'ping' });
    t.same(await c.next(), { id: 9, type: 'pong' }, 'the connection is still usable');
    c.ws.close();
  });

  t.test('text that is not JSON, with its id readable, is answered under that id', async (t) => {
    const c = await authedClient(base, tokens.access_token);
    c.send('{"id":3,"type":"ping",}');
    t.same(await c.next(), { id: 3, type: 'result', success: false, error: { code: 'invalid_format', message: 'Message incorrectly formatted.' } });
    c.ws.close();
  });

  t.test('a message refused unread whose id cannot be read ends the connection', async (t) => {
    for (const frame of [`{"type":"ping","x":${tooDeep}}`, `[${tooDeep}]`, '{"type":"ping",', '']) {
      const c = await authedClient(base, tokens.access_token);
      c.send({ id: 1, type: 'ping' });
      c.send(frame);
      t.same(await c.next(), { id: 1, type: 'pong' }, 'what was answered before goes out first');
      t.equal(await c.closed, 1000, `closed after ${frame.slice(0, 30) || 'an empty message'}`);
      t.equal(c.frames.length, 3, 'and nothing else was sent');
    }
  });
});
