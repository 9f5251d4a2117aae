import t from 'tap';
import { readJson, nestedDeeperThan, MAX_JSON_DEPTH } from '../../gateway/body.ts';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

t.test('a JSON body is read as its value', async (t) => {
  t.same(readJson(bytes('{"state":"on","attributes":{"a":[1,2]}}')), { ok: true, value: { state: 'on', attributes: { a: [1, 2] } } });
  t.same(readJson(bytes('')), { ok: true, value: undefined }, 'an empty body is no value');
  t.same(readJson(bytes('"°C ✓"')), { ok: true, value: '°C ✓' }, 'multi-byte UTF-8 is kept');
});

t.test('invalid JSON is a syntax problem', async (t) => {
  const r = readJson(bytes('{"state":'));
  t.equal(r.ok, false);
  t.equal(!r.ok && r.problem, 'syntax');
});

t.test('invalid UTF-8 is refused, not replaced', async (t) => {
  for (const raw of [[0x22, 0xff, 0xfe, 0x22], [0x22, 0xc3, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22]]) {
    const r = readJson(Buffer.from(raw));
    t.equal(!r.ok && r.problem, 'encoding', `bytes ${Buffer.from(raw).toString('hex')}`);
  }
});

t.test('nesting is limited before parsing', async (t) => {
  t.equal(readJson(bytes(nested(MAX_JSON_DEPTH))).ok, true, `${MAX_JSON_DEPTH} levels are read`);
  const deep = readJson(bytes(nested(MAX_JSON_DEPTH + 1)));
  t.equal(!deep.ok && deep.problem, 'depth', `${MAX_JSON_DEPTH + 1} levels are refused`);
  t.match(!deep.ok && deep.message, /nested deeper than 512 levels/);
  const objects = `${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`;
  t.equal(!readJson(bytes(objects)).ok && (readJson(bytes(objects)) as { problem: string }).problem, 'depth', 'objects count as arrays do');
  t.equal(!readJson(bytes(nested(100_000))).ok, true, '100,000 levels are refused without a stack overflow');
});

t.test('brackets inside strings do not count', async (t) => {
  const text = JSON.stringify({ a: '['.repeat(5000), b: 'x\\"[[[' });
  t.equal(nestedDeeperThan(bytes(text), 10), false);
  t.equal(readJson(bytes(text)).ok, true);
  t.equal(nestedDeeperThan(bytes(`["\\\\",${nested(11)}]`), 11), true, 'an escaped backslash ends its escape');
});

t.test('a key named __proto__ stays an own data property', async (t) => {
  const r = readJson(bytes('{"__proto__":{"polluted":"yes"},"a":1}'));
  t.equal(r.ok, true);
  const value = (r as { value: Record<string, unknown> }).value;
  t.same(Object.keys(value), ['__proto__', 'a']);
  t.equal(Object.getPrototypeOf(value), Object.prototype, 'the prototype is untouched');
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'nothing leaked into Object.prototype');
});
