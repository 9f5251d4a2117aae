// The redactor of `hearth replay` on its own: JSON.stringify's output, secrets hidden, at any depth.
import t from 'tap';
import { Redactor } from '../../../bin/redact.ts';

const TOKEN = 'tok-0123456789abcdefABCDEF';

function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

t.test('writes what JSON.stringify writes, with secret values hidden', async (t) => {
  const r = new Redactor();
  const values: unknown[] = [
    null,
    0,
    -0,
    1e21,
    NaN,
    -Infinity,
    true,
    'text with "quotes", \\ and \u2028 and a lone \ud800',
    [1, undefined, () => 1, Symbol('s'), null, [], {}],
    { a: undefined, b: () => 1, 'k"ey': 'v', nested: { deeper: [1, { x: 'y' }] }, d: new Date(0) },
    { toJSON: (key: string) => `toJSON(${key})` },
    [new Date(1), { inner: { toJSON: () => undefined } }],
  ];
  // by index: some of these would garble a test name
  values.forEach((value, i) => t.equal(r.format(value).text, JSON.stringify(value), `value ${i} as JSON.stringify writes it`));
  t.equal(r.format(undefined).text, undefined);

  const withSecrets = { token: TOKEN, jwt_key: { k: 1 }, password: null, my_password: 5, refresh_token: undefined, code: '', list: [{ api_key: 'x' }] };
  t.equal(r.format(withSecrets).text, '{"token":"***","jwt_key":"***","password":null,"my_password":"***","code":"***","list":[{"api_key":"***"}]}');
});

t.test('learns secrets under secret keys only, at any depth, and scrubs them wherever quoted', async (t) => {
  const r = new Redactor();
  t.equal(r.learn({ plain: TOKEN, huge: 'B'.repeat(1_000_000) }), false, 'no secret key');
  t.equal(r.scrub(`x ${TOKEN} y`), `x ${TOKEN} y`, 'a value under no secret key is not a secret');
  t.equal(r.learn(nested(100_000, { webhook_id: TOKEN })), true, 'a secret key 100,000 levels down');
  t.equal(r.scrub(`/api/webhook/${TOKEN}?x=${TOKEN}1 ${TOKEN}`), `/api/webhook/***?x=${TOKEN}1 ***`, 'whole runs only');
  r.learn({ token: 'short' });
  t.equal(r.scrub('short'), 'short', 'too short to be remembered');

  const big = `${'A'.repeat(10_000_000)}?token=${TOKEN}&${'b-'.repeat(2_000_000)}`;
  const started = performance.now();
  const scrubbed = r.scrub(big);
  t.ok(performance.now() - started < 5_000, 'a 10 MB line is scrubbed in one pass');
  t.equal(scrubbed.length, big.length - TOKEN.length + 3);
  t.ok(scrubbed.includes('?token=***&'));
});

t.test('no depth is too deep, and a limit bounds the work', async (t) => {
  const r = new Redactor();
  const deep = nested(200_000, { token: TOKEN, n: 1 });
  t.throws(() => JSON.stringify(deep), RangeError, 'too deep for JSON.stringify');
  const text = r.format(deep).text!;
  // 100,000 levels of {"a":...} and 100,000 of [...]
  t.equal(text.length, 100_000 * 6 + 100_000 * 2 + '{"token":"***","n":1}'.length);
  t.ok(text.includes('[{"a":{"token":"***","n":1}}]'), 'the secret deep down hidden');
  t.ok(JSON.parse(text)[0].a[0].a !== undefined, 'the text is JSON');
  t.equal(r.json(nested(200_000, 1), false)!.length, 100_000 * 6 + 100_000 * 2 + 1, 'json() falls back to the walk when JSON.stringify gives up');

  const cut = r.format({ s: 'x'.repeat(10_000_000), after: 1 }, 100);
  t.equal(cut.complete, false);
  t.ok(cut.text!.length >= 100 && cut.text!.length < 200, 'a 10 MB string is not written out for a 100-character summary');
  t.same(r.format({ a: 1 }, 100), { text: '{"a":1}', complete: true });
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  t.throws(() => r.format(cyclic), /cyclic/);
  t.equal(r.learn(cyclic), false, 'learning a cycle ends');
  t.throws(() => r.format({ n: 10n }), /BigInt/);
});
