import t from 'tap';
import {
  parseSchema,
  validateOptions,
  optionsValidateAnswer,
  invalidOptionsMessage,
  mergeOptions,
  uiSchema,
  type HardwareDevice,
  type Schema,
  type ValidateContext,
} from '../../../../actors/supervisor/apps/options-schema.ts';

const APP = { name: 'Mock Add-on', slug: 'mock_addon' };
const TAIL = 'Mock Add-on (mock_addon)';
const SIMPLE = { name: 'str', password: 'password', fires: 'bool', alias: 'str?' };

const DEVICES: HardwareDevice[] = [
  { path: '/dev/ttyACM0', sysfs: '/sys/bus/usb/002', links: [], subsystem: 'tty' },
  { path: '/dev/ttyUSB0', sysfs: '/sys/bus/usb/001', links: ['/dev/ttyS1', '/dev/serial/by-id/xyx'], subsystem: 'tty' },
  { path: '/dev/ttyS0', sysfs: '/sys/bus/usb/003', links: [], subsystem: 'tty' },
  { path: '/dev/video1', sysfs: '/sys/bus/usb/004', links: [], subsystem: 'misc' },
];

function check(schema: unknown, options: unknown, ctx?: ValidateContext) {
  return validateOptions(parseSchema(schema), options, APP, ctx);
}
function value(schema: unknown, options: unknown, ctx?: ValidateContext) {
  const r = check(schema, options, ctx);
  if (!r.ok) throw new Error(`unexpected failure: ${r.message}`);
  return r.value;
}
function reason(schema: unknown, options: unknown, ctx?: ValidateContext) {
  const r = check(schema, options, ctx);
  return r.ok ? 'ok' : r.reason;
}

t.test('parseSchema: types, nesting, false, and clear errors for bad schemas', async (t) => {
  const good = {
    a: 'str', b: 'str?', c: 'str(1,32)', d: 'password(8,)', e: 'int', f: 'int(,10)', g: 'int(-5,0)', h: 'float(0.0,10.5)',
    i: 'float(-5.0,-.5)', j: 'email', k: 'url', l: 'port', m: 'match(^\\d+$)', n: 'list(a|b|c)', o: 'device', p: 'device(subsystem=tty)',
    q: ['str'], r: [{ name: 'str' }], s: { user: 'str', pass: 'password', more: [{ x: 'int?' }] }, u: 'bool?',
  };
  t.same(parseSchema(good), good);
  t.same(parseSchema(undefined), {});
  t.equal(parseSchema(false), false);
  t.throws(() => parseSchema({ a: 'integer' }), /Invalid schema for option 'a': unknown type 'integer'/);
  t.throws(() => parseSchema({ a: 'int(a,b)' }), /unknown type 'int\(a,b\)'/);
  t.throws(() => parseSchema({ a: 'float(-1.0,-.)' }), /unknown type/);
  t.throws(() => parseSchema({ a: [['str']] }), /Invalid schema for option 'a\[0\]': a list may not directly contain a list/);
  t.throws(() => parseSchema({ a: { b: 5 } }), /Invalid schema for option 'a.b': expected a type string, a list or a dict, got 5/);
  t.throws(() => parseSchema('str'), /Invalid schema: expected a dict of option types or false, got 'str'/);
  t.throws(() => parseSchema(true), /got True/);
});

t.test('simple schema: the original test_simple_schema', async (t) => {
  t.same(value(SIMPLE, { name: 'Pascal', password: '1234', fires: true, alias: 'test' }), { name: 'Pascal', password: '1234', fires: true, alias: 'test' });
  t.same(value(SIMPLE, { name: 'Pascal', password: '1234', fires: true }), { name: 'Pascal', password: '1234', fires: true });
  const bad = check(SIMPLE, { name: 'Pascal', password: '1234', fires: 'hah' });
  t.same(bad, { ok: false, reason: 'expected boolean', message: "expected boolean. Got {'name': 'Pascal', 'password': '1234', 'fires': 'hah'}", pwned: ['7110eda4d09e062aa5e4a390b0a572ac0d2c0220'] });
  const missing = check(SIMPLE, { name: 'Pascal', fires: true });
  t.same(missing.ok ? null : missing.message, `Missing option 'password' in root in ${TAIL}. Got {'name': 'Pascal', 'fires': True}`);
  t.same(reason({ message: 'str' }, { message: true }), 'expected str');
  t.equal((check({ message: 'str' }, { message: true }) as { message: string }).message, "expected str. Got {'message': True}");
});

t.test('null, unknown keys dropped and warned, not a dict', async (t) => {
  t.equal(reason(SIMPLE, { name: null, password: 'x', fires: true }), `Missing required option 'name' in ${TAIL}`);
  t.equal(reason(SIMPLE, { name: 'a', password: 'x', fires: true, alias: null }), `Missing required option 'alias' in ${TAIL}`);
  const warnings: string[] = [];
  t.same(value({}, { test: 'str' }, { warn: (m) => warnings.push(m) }), {});
  t.same(warnings, [`Option 'test' does not exist in the schema for ${TAIL}`]);
  warnings.length = 0;
  t.same(value({ extend: { test: 'int' } }, { extend: { test: 1, other: 2 }, x: 1 }, { warn: (m) => warnings.push(m) }), { extend: { test: 1 } });
  t.same(warnings, [`Unknown option 'other' for ${TAIL}`, `Option 'x' does not exist in the schema for ${TAIL}`]);
  t.same(value(false, { anything: 1 }), {}, 'schema false acts as an empty schema');
  const notDict = check(SIMPLE, ['a']);
  t.same(notDict.ok ? null : notDict.message, "expected dict. Got ['a']");
  const long = check({ a: 'int' }, { a: 'x'.repeat(600) });
  t.equal(long.ok ? '' : long.message, `expected int. Got {'a': '${'x'.repeat(490)}...`);
  t.equal(reason({ a: 'str' }, { a: "it's" }), 'ok');
  t.equal((check({ a: 'int' }, { a: "it's" }) as { message: string }).message, `expected int. Got {'a': "it's"}`);
});

t.test('str and password: strings only, length bounds', async (t) => {
  const s = { name: 'str(1,32)', password: 'password(8,)' };
  t.same(value(s, { name: 'Pascal', password: '12345678' }), { name: 'Pascal', password: '12345678' });
  t.equal(reason(s, { name: '', password: '12345678' }), 'length of value must be at least 1.0');
  t.equal(reason(s, { name: 'x'.repeat(33), password: '12345678' }), 'length of value must be at most 32.0');
  t.equal(reason(s, { name: 'Pascal', password: '1234' }), 'length of value must be at least 8.0');
  t.equal(reason({ a: 'str(,3)' }, { a: 'abcd' }), 'length of value must be at most 3.0');
  t.equal(reason({ a: 'str' }, { a: 12 }), 'expected str');
  t.equal(reason({ a: 'password' }, { a: 12 }), 'expected str');
});

t.test('int, float and port: coerced with bounds', async (t) => {
  const s = { pos: 'int(0,10)', neg: 'int(-5,0)' };
  t.same(value(s, { pos: 5, neg: '-4' }), { pos: 5, neg: -4 });
  t.equal(reason(s, { pos: 11, neg: -4 }), 'value must be at most 10.0');
  t.equal(reason(s, { pos: 1, neg: '-6' }), 'value must be at least -5.0');
  t.equal(reason({ a: 'int(,10)' }, { a: 11 }), 'value must be at most 10.0');
  t.same(value({ a: 'int' }, { a: ' 12 ' }), { a: 12 });
  t.same(value({ a: 'int' }, { a: 7.9 }), { a: 7 }, 'a float is truncated like Python int()');
  t.same(value({ a: 'int' }, { a: true }), { a: 1 });
  t.equal(reason({ a: 'int' }, { a: '12.5' }), 'expected int');
  t.equal(reason({ a: 'int' }, { a: [1] }), 'expected int');
  const f = { pos: 'float(0.0,10.5)', neg: 'float(-5.0,-.5)' };
  t.same(value(f, { pos: 5.0, neg: '-4.0' }), { pos: 5, neg: -4 });
  t.equal(reason(f, { pos: 11.0, neg: '-4.0' }), 'value must be at most 10.5');
  t.equal(reason(f, { pos: 1, neg: '-6.0' }), 'value must be at least -5.0');
  t.equal(reason(f, { pos: 1, neg: 0 }), 'value must be at most -0.5');
  t.same(value({ a: 'float' }, { a: '1e3' }), { a: 1000 });
  t.equal(reason({ a: 'float' }, { a: 'abc' }), 'expected float');
  t.equal(reason({ a: 'float' }, { a: {} }), 'expected float');
  t.equal(
    (validateOptions({ float: 'float(-1.0,-.)' } as Schema, { float: '0.0' }, APP) as { reason: string }).reason,
    `Unknown type 'float(-1.0,-.)' in ${TAIL}`,
  );
  t.same(value({ p: 'port' }, { p: '8080' }), { p: 8080 });
  t.equal(reason({ p: 'port' }, { p: 0 }), 'value must be at least 1');
  t.equal(reason({ p: 'port' }, { p: 65536 }), 'value must be at most 65535');
  t.equal(reason({ p: 'port' }, { p: 'http' }), 'expected int');
});

t.test('bool, email, url, match, list', async (t) => {
  for (const [v, b] of [['true', true], ['YES', true], ['on', true], ['enable', true], ['1', true], ['false', false], ['Off', false], ['no', false], ['disable', false], ['0', false], [1, true], [0, false], [false, false]] as const)
    t.same(value({ b: 'bool' }, { b: v }), { b }, `bool from ${JSON.stringify(v)}`);
  t.equal(reason({ b: 'bool' }, { b: 'maybe' }), 'expected boolean');
  t.same(value({ e: 'email' }, { e: 't@x.com' }), { e: 't@x.com' });
  for (const e of ['a.com', 'a@.com', 'a@b', '', 5]) t.equal(reason({ e: 'email' }, { e }), 'expected an email address', `email ${JSON.stringify(e)}`);
  t.same(value({ u: 'url' }, { u: 'http://w3.org' }), { u: 'http://w3.org' });
  t.same(value({ u: 'url' }, { u: 'mqtt://broker:1883/x' }), { u: 'mqtt://broker:1883/x' });
  for (const u of ['w3.org', 'http:/w3.org', 'http://', 1]) t.equal(reason({ u: 'url' }, { u }), 'expected a URL', `url ${JSON.stringify(u)}`);
  t.same(value({ m: 'match(^\\d+$)' }, { m: 42 }), { m: '42' }, 'the value as text is matched and kept as text');
  t.same(value({ m: 'match([a-z]+)' }, { m: 'abc123' }), { m: 'abc123' }, 'anchored at the start only, like re.match');
  t.equal(reason({ m: 'match([a-z]+)' }, { m: '1abc' }), 'does not match regular expression [a-z]+');
  t.same(value({ m: 'match((?P<x>a)(?P=x))' }, { m: 'aa' }), { m: 'aa' }, 'Python named groups');
  t.same(value({ l: 'list(a|b|c)' }, { l: 'b' }), { l: 'b' });
  t.same(value({ l: 'list(1|2)' }, { l: 2 }), { l: '2' });
  t.equal(reason({ l: 'list(c|a|b)' }, { l: 'd' }), "value must be one of ['a', 'b', 'c']");
  t.equal(reason({ l: 'list(a|b)' }, { l: true }), "value must be one of ['a', 'b']");
});

t.test('lists and dicts: the original test_complex_schema_* and optional lists', async (t) => {
  const l = { name: 'str', password: 'password', extend: ['str'] };
  t.same(value(l, { name: 'Pascal', password: '1234', extend: ['test', 'blu'] }), { name: 'Pascal', password: '1234', extend: ['test', 'blu'] });
  t.equal(reason(l, { name: 'Pascal', password: '1234', extend: ['test', 1] }), 'expected str');
  t.equal(reason(l, { name: 'Pascal', password: '1234', extend: 'test' }), `Invalid list for option 'extend' in ${TAIL}`);
  t.equal(reason(l, { name: 'Pascal', password: '1234', extend: null }), `Invalid list for option 'extend' in ${TAIL}`);
  t.equal(reason(l, { name: 'Pascal', password: '1234' }), `Missing option 'extend' in root in ${TAIL}`);
  t.same(value(l, { name: 'Pascal', password: '1234', extend: [] }), { name: 'Pascal', password: '1234', extend: [] });
  const opt = { name: 'str', password: 'password', extend: ['str?'] };
  t.same(value(opt, { name: 'Pascal', password: '1234' }), { name: 'Pascal', password: '1234' });
  t.same(value(opt, { name: 'Pascal', password: '1234', extend: [] }), { name: 'Pascal', password: '1234', extend: [] });
  const d = { name: 'str', password: 'password', extend: { test: 'int' } };
  t.same(value(d, { name: 'Pascal', password: '1234', extend: { test: '1' } }), { name: 'Pascal', password: '1234', extend: { test: 1 } });
  t.equal(reason(d, { name: 'Pascal', password: '1234', extend: { wrong: 1 } }), `Missing option 'test' in extend in ${TAIL}`);
  t.equal(reason(d, { name: 'Pascal', password: '1234', extend: 'x' }), `Invalid dict for option 'extend' in ${TAIL}`);
  t.equal(reason(d, { name: 'Pascal', password: '1234' }), `Missing option 'extend' in root in ${TAIL}`, 'a dict is never optional');
  const nested = { name: 'str', packages: [{ name: 'str', options: { optional: 'bool' }, dependencies: [{ name: 'str' }] }] };
  const good = { name: 'Pascal', packages: [{ name: 'core', options: { optional: false }, dependencies: [{ name: 'supervisor' }, { name: 'audio' }] }] };
  t.same(value(nested, good), good);
  const wrong = { name: 'Pascal', packages: [{ name: 'core', options: { optional: false }, dependencies: [{ name: 'supervisor' }, 'wrong'] }] };
  t.equal(reason(nested, wrong), `Invalid dict for option 'dependencies' in ${TAIL}`);
  t.equal(reason({ a: [] }, { a: [1] }), `Type error for option 'a' in ${TAIL}`, 'an empty list type');
  t.equal(reason({ a: [] }, {}), `Missing option 'a' in root in ${TAIL}`);
  t.equal(reason({ a: '' }, { a: 'x' }), `Fatal error for option 'a' with type '' in ${TAIL}`);
});

t.test('devices and secrets', async (t) => {
  const s = { name: 'str', password: 'password', input: 'device' };
  const ok = check(s, { name: 'Pascal', password: '1234', input: '/dev/ttyUSB0' }, { devices: DEVICES });
  t.same(ok.ok && ok.value['input'], '/dev/ttyUSB0');
  t.same(ok.ok && ok.devices, [DEVICES[1]]);
  t.same(value(s, { name: 'Pascal', password: '1234', input: '/dev/serial/by-id/xyx' }, { devices: DEVICES })['input'], '/dev/serial/by-id/xyx');
  const tty = { name: 'str', password: 'password', input: 'device(subsystem=tty)' };
  t.same(value(tty, { name: 'Pascal', password: '1234', input: '/dev/ttyACM0' }, { devices: DEVICES })['input'], '/dev/ttyACM0');
  t.equal(reason(s, { name: 'Pascal', password: '1234', input: '/dev/not_exists' }, { devices: DEVICES }), `Device '/dev/not_exists' does not exist in ${TAIL}`);
  t.equal(reason(tty, { name: 'Pascal', password: '1234', input: '/dev/video1' }, { devices: DEVICES }), `Device '/dev/video1' don't match the filter subsystem=tty! in ${TAIL}`);
  t.equal(reason({ name: 'str', input: 'device(subsystem=tty)' }, { name: 'Pascal', input: { baudrate: 115200 } }, { devices: DEVICES }), `Expected a string for option 'input' in ${TAIL}`);
  t.equal(reason({ name: 'str', input: 'device' }, { name: 'Pascal', input: 12345 }), `Expected a string for option 'input' in ${TAIL}`);
  const secrets = (n: string) => ({ mqtt_pass: 'hunter2', port: 1883 })[n];
  t.same(value({ p: 'password', port: 'port' }, { p: '!secret mqtt_pass', port: '!secret port' }, { secrets }), { p: 'hunter2', port: 1883 });
  t.equal(reason({ p: 'password' }, { p: '!secret nope' }, { secrets }), `Unknown secret 'nope' in ${TAIL}`);
  t.equal(reason({ p: 'password' }, { p: '!secret nope' }), `Unknown secret 'nope' in ${TAIL}`);
});

t.test('password hashes and the /options/validate answer', async (t) => {
  const r = check(SIMPLE, { name: 'Pascal', password: '1234', fires: true, alias: 'test' });
  t.same(r.pwned, ['7110eda4d09e062aa5e4a390b0a572ac0d2c0220']);
  t.same(check(SIMPLE, { name: 'Pascal', password: '', fires: true, alias: 'test' }).pwned, []);
  const schema = parseSchema(SIMPLE);
  const opts = { name: 'Pascal', password: '1234', fires: true };
  t.same(await optionsValidateAnswer(schema, opts, APP, { pwned: false, force: false }), { message: '', valid: true, pwned: false });
  t.same(await optionsValidateAnswer(schema, opts, APP, { pwned: true, force: false }), { message: '', valid: true, pwned: null }, 'no network: null');
  t.same(await optionsValidateAnswer(schema, opts, APP, { pwned: true, force: true }), { message: 'Error happening on pwned secrets check!', valid: false, pwned: null });
  const leaked = async (h: string) => h === '7110eda4d09e062aa5e4a390b0a572ac0d2c0220';
  t.same(await optionsValidateAnswer(schema, opts, APP, { pwned: true, force: false, checkSecret: leaked }), { message: '', valid: true, pwned: true });
  t.same(await optionsValidateAnswer(schema, opts, APP, { pwned: true, force: true, checkSecret: leaked }), { message: 'App uses pwned secrets!', valid: false, pwned: true });
  t.same(await optionsValidateAnswer(schema, { ...opts, password: 'fine' }, APP, { pwned: true, force: true, checkSecret: leaked }), { message: '', valid: true, pwned: false });
  t.same(await optionsValidateAnswer(schema, { name: 'Pascal', fires: true }, APP, { pwned: false, force: false }), {
    message: `Missing option 'password' in root in ${TAIL}. Got {'name': 'Pascal', 'fires': True}`, valid: false, pwned: false,
  });
});

t.test('UI schema: the original test_ui_* cases', async (t) => {
  t.same(uiSchema(parseSchema(SIMPLE)), [
    { name: 'name', required: true, type: 'string' },
    { format: 'password', name: 'password', required: true, type: 'string' },
    { name: 'fires', required: true, type: 'boolean' },
    { name: 'alias', optional: true, type: 'string' },
  ]);
  t.same(uiSchema(parseSchema({ ...SIMPLE, extended: { name: 'str', data: ['str'], path: 'str?' } }))?.[4], {
    multiple: false, name: 'extended', optional: true, type: 'schema',
    schema: [
      { name: 'name', required: true, type: 'string' },
      { multiple: true, name: 'data', required: true, type: 'string' },
      { name: 'path', optional: true, type: 'string' },
    ],
  });
  t.same(uiSchema(parseSchema({ ...SIMPLE, extended: [{ name: 'str', data: ['str?'], path: 'str?' }] }))?.[4], {
    multiple: true, name: 'extended', optional: true, type: 'schema',
    schema: [
      { name: 'name', required: true, type: 'string' },
      { multiple: true, name: 'data', optional: true, type: 'string' },
      { name: 'path', optional: true, type: 'string' },
    ],
  });
  const tty = uiSchema(parseSchema({ ...SIMPLE, input: 'device(subsystem=tty)' }), DEVICES)!.at(-1)!;
  t.equal(tty['type'], 'select');
  t.same([...(tty['options'] as string[])].sort(), ['/dev/serial/by-id/xyx', '/dev/ttyACM0', '/dev/ttyS0']);
  const any = uiSchema(parseSchema({ ...SIMPLE, input: 'device' }), DEVICES)!.at(-1)!;
  t.same([...(any['options'] as string[])].sort(), ['/dev/serial/by-id/xyx', '/dev/ttyACM0', '/dev/ttyS0', '/dev/video1']);
  // key order as the original builds each node
  const other = uiSchema(parseSchema({ n: 'int(1,10)?', m: 'str(,5)', e: 'email', u: 'url', p: 'port', r: 'match(x)', l: 'list(a|b)', f: 'float', ps: ['password(8,)'], z: [] }))!;
  t.same(other.map((n) => JSON.stringify(n)), [
    '{"name":"n","lengthMin":1,"lengthMax":10,"optional":true,"type":"integer"}',
    '{"name":"m","lengthMax":5,"required":true,"type":"string"}',
    '{"name":"e","required":true,"type":"string","format":"email"}',
    '{"name":"u","required":true,"type":"string","format":"url"}',
    '{"name":"p","required":true,"type":"integer"}',
    '{"name":"r","required":true,"type":"string"}',
    '{"name":"l","required":true,"type":"select","options":["a","b"]}',
    '{"name":"f","required":true,"type":"float"}',
    '{"name":"ps","multiple":true,"lengthMin":8,"required":true,"type":"string","format":"password"}',
  ]);
  t.equal(uiSchema(false), null);
  t.same(uiSchema({}), []);
});

t.test('defaults merged with the stored options; the refusal message', async (t) => {
  const defaults = { name: 'x', ports: [1, 2], nested: { a: 1, b: { c: 2 } }, keep: true };
  t.same(mergeOptions(defaults, {}), defaults);
  t.same(mergeOptions(defaults, { ports: [3], nested: { b: { d: 4 } }, extra: 'y' }), {
    name: 'x', ports: [3], nested: { a: 1, b: { c: 2, d: 4 } }, keep: true, extra: 'y',
  });
  t.same(mergeOptions(defaults, { nested: null, keep: false }), { name: 'x', ports: [1, 2], nested: null, keep: false });
  t.same(mergeOptions(undefined, { a: 1 }), { a: 1 });
  t.same(defaults.nested, { a: 1, b: { c: 2 } }, 'the defaults are not changed');
  const r = check({ message: 'str' }, { message: true });
  t.equal(invalidOptionsMessage('local_example', r.ok ? '' : r.message), "App local_example has invalid options: expected str. Got {'message': True}");
});
