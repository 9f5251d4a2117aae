// What the fuzz suites send: hostile JSON text, malformed bodies, mutations of valid requests,
// form bodies and path segments. Where they are sent, every REST route and WebSocket command,
// is routes-and-commands.ts.
import type { Rng } from './rng.ts';

export type Body = string | Buffer;

/** A generated piece of input and a short account of it for failure messages. */
export interface Gen<T = string> {
  value: T;
  what: string;
}

/** Names every plain object answers to; as keys and as command types. */
export const MEMBER_NAMES = [
  '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf',
  'propertyIsEnumerable', 'toLocaleString', '__defineGetter__', '__defineSetter__', '__lookupGetter__',
  '__lookupSetter__', 'then', 'toJSON', 'length', 'call', 'apply', 'bind',
] as const;

/** Field names the routes and commands read, so generated keys hit real code paths. */
const FIELD_NAMES = [
  'state', 'attributes', 'force_update', 'entity_id', 'new_state', 'old_state', 'last_changed', 'last_updated',
  'last_reported', 'context', 'id', 'type', 'event_type', 'event_data', 'domain', 'service', 'service_data', 'target',
  'return_response', 'features', 'coalesce_messages', 'subscription', 'entity_ids', 'include', 'exclude', 'domains',
  'entity_globs', 'entities', 'access_token', 'api_password', 'client_id', 'handler', 'redirect_uri', 'username',
  'password', 'name', 'language', 'grant_type', 'code', 'refresh_token', 'token', 'action', 'latitude', 'longitude',
  'elevation', 'value', 'option', 'options', 'device_id', 'area_id', 'parent_id', 'user_id',
  'template', 'variables', 'timeout', 'strict', 'report_errors',
];

// JSON number texts that JavaScript reads oddly: overflow to Infinity, -0, beyond 2^53
const NUMBERS = [
  '0', '-0', '1', '-1', '1.5', '0.1', '1e309', '-1e309', '1e-400', '2e308', '9007199254740993', '-9007199254740993',
  '123456789012345678901234567890', '1e21', '4294967296', '-2147483649', '1E2', '1.0', '0e0', '5e-324', '1e-7',
];

// string contents, already escaped for JSON
const STRINGS = [
  '', ' ', 'on', 'off', 'x', 'X', 'sensor.x', 'input_boolean.x', 'all', 'none', '*', '?', 'true', '0', 'None', 'null',
  '\\u0000', '\\ud800', '\\udfff\\ud800', '\\ud83d\\udca1', 'caf\\u00e9', '\\u202e', '{{ states(\\"x\\") }}',
  '{% if true %}', '%s%s%s%n', '../../etc/passwd', '\\n\\r\\t', '<script>', '[object Object]', 'NaN', 'Infinity',
  '1e309', '2024-01-01T00:00:00+00:00', '2024-13-45T99:99:99', 'garbage', 'a,b,,c', '\\"', '\\\\', 'sensor.*',
  '*a*a*a*a*a*a*a*b', 'homeassistant', 'core', 'turn_on', 'state_changed', 'Bearer x', '\\u0085',
];

const str = (contents: string) => `"${contents}"`;

/** A JSON string of about `n` bytes, varied so encoders and parsers take different paths. */
function longString(rng: Rng, n: number): Gen {
  const kind = rng.pick(['ascii', 'multibyte', 'escapes', 'astral'] as const);
  const unit = { ascii: 'a', multibyte: 'é', escapes: '\\n', astral: '\\ud83d\\udca1' }[kind];
  const count = Math.max(1, Math.floor(n / Buffer.byteLength(unit)));
  return { value: str(unit.repeat(count)), what: `${kind} string of ${count} × ${JSON.stringify(unit)} (${n} bytes)` };
}

/** Arrays, objects or both nested `depth` levels deep. */
export function deepJson(kind: 'array' | 'object' | 'mixed', depth: number, leaf = '"x"'): string {
  if (kind === 'array') return '['.repeat(depth) + leaf + ']'.repeat(depth);
  if (kind === 'object') return '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);
  const half = Math.ceil(depth / 2);
  return '[{"a":'.repeat(half) + leaf + '}]'.repeat(half);
}

const PROTO_OBJECTS = [
  '{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}', '{"__proto__":null}',
  '{"__proto__":[]}', '{"__proto__":"x"}', '{"toString":false}', '{"toString":{"toString":false}}',
  '{"valueOf":1,"toString":2}', '{"toJSON":"x"}', '{"then":1}', '{"hasOwnProperty":true}', '{"length":1e309}',
  '{"__proto__":{"toString":null,"valueOf":null}}', '{"a":1,"a":2}',
];

export interface GenOptions {
  /** allow megabyte strings, 10,000 levels, 100,000 elements */
  big?: boolean;
}

/** A key: a field a handler reads, an object member name, or something odd. */
export function genKey(rng: Rng, opts: GenOptions = {}): Gen {
  return rng.weighted<() => Gen>([
    [4, () => ({ value: rng.pick(FIELD_NAMES), what: 'field name' })],
    [4, () => ({ value: rng.pick(MEMBER_NAMES), what: 'member name' })],
    [1, () => ({ value: '', what: 'empty key' })],
    [1, () => ({ value: 'k'.repeat(opts.big ? 20_000 : 300), what: 'long key' })],
    [1, () => ({ value: rng.pick(['\u0000', 'é', '💡', '\ud800', 'a.b', 'a b', '$', '0', '-1']), what: 'odd key' })],
  ])();
}

/** A JSON value as text; any type, often the wrong one. */
export function genValue(rng: Rng, opts: GenOptions = {}, level = 0): Gen {
  const small = () => genValue(rng, { big: false }, level + 1);
  const choices: Array<readonly [number, () => Gen]> = [
    [10, () => ({ value: rng.pick(['null', 'true', 'false']), what: 'literal' })],
    [10, () => {
      const n = rng.pick(NUMBERS);
      return { value: n, what: `number ${n}` };
    }],
    [14, () => {
      const s = rng.pick(STRINGS);
      return { value: str(s), what: `string ${str(s)}` };
    }],
    [6, () => {
      const m = rng.pick(MEMBER_NAMES);
      return { value: str(m), what: `string "${m}"` };
    }],
    [3, () => longString(rng, rng.pick([256, 300, 20_000, 70_000]))],
    [6, () => {
      const p = rng.pick(PROTO_OBJECTS);
      return { value: p, what: `object ${p}` };
    }],
    [4, () => {
      const kind = rng.pick(['array', 'object', 'mixed'] as const);
      const depth = rng.pick([10, 100, 1000]);
      return { value: deepJson(kind, depth), what: `${kind} nested ${depth} deep` };
    }],
  ];
  if (level < 3) {
    choices.push(
      [6, () => {
        const items = Array.from({ length: rng.int(4) }, small);
        return { value: `[${items.map((i) => i.value).join(',')}]`, what: `array [${items.map((i) => i.what).join(', ')}]` };
      }],
      [8, () => {
        const entries = Array.from({ length: rng.range(1, 3) }, () => [genKey(rng), small()] as const);
        return {
          value: `{${entries.map(([k, v]) => `${JSON.stringify(k.value)}:${v.value}`).join(',')}}`,
          what: `object {${entries.map(([k, v]) => `${JSON.stringify(k.value.slice(0, 20))}: ${v.what}`).join(', ')}}`,
        };
      }],
    );
  }
  if (opts.big) {
    choices.push(
      [6, () => longString(rng, rng.pick([1 << 20, 3 << 20]))],
      [6, () => {
        const kind = rng.pick(['array', 'object', 'mixed'] as const);
        const depth = rng.pick([6000, 10_000, 100_000]);
        return { value: deepJson(kind, depth), what: `${kind} nested ${depth} deep` };
      }],
      [2, () => ({ value: `{${Array.from({ length: 10_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`, what: 'object of 10,000 keys' })],
      [2, () => ({ value: `[${'0,'.repeat(99_999)}0]`, what: 'array of 100,000 numbers' })],
    );
  }
  return rng.weighted(choices)();
}

// bytes that are not UTF-8: stray continuation, overlong, surrogates, beyond U+10FFFF, truncated
const BAD_UTF8: ReadonlyArray<readonly [string, number[]]> = [
  ['ff fe', [0xff, 0xfe]], ['ff', [0xff]], ['80', [0x80]], ['c0 af (overlong /)', [0xc0, 0xaf]],
  ['ed a0 80 (surrogate)', [0xed, 0xa0, 0x80]], ['f4 90 80 80 (> U+10FFFF)', [0xf4, 0x90, 0x80, 0x80]],
  ['e2 82 (truncated)', [0xe2, 0x82]], ['f8 88 80 80 80', [0xf8, 0x88, 0x80, 0x80, 0x80]], ['c3 28', [0xc3, 0x28]],
];

/** A text with bytes that are not UTF-8 put inside one of its strings (or at the end). */
export function withBadUtf8(rng: Rng, text: string): Gen<Buffer> {
  const [name, bytes] = rng.pick(BAD_UTF8);
  const quotes = [...text.matchAll(/"/g)].map((m) => m.index!);
  const at = quotes.length ? quotes[rng.int(quotes.length)] + 1 : text.length;
  const value = Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at))]);
  return { value, what: `bytes ${name} inserted at ${at}` };
}

const MALFORMED = [
  '{', '[', '}', '{"a":}', '{"a" 1}', "{'a':1}", '{a:1}', 'NaN', 'Infinity', '-', '01', '1.', '.5', '+1', '{"a":1,}', '[1,]',
  '"unterminated', '"\\x"', '"\\u12"', 'tru', 'nul', '/* c */{}', '{}//', '\ufeff{}', '\u0000', ' ', '\n', 'undefined',
  '{"a":"\n"}', '{"a":"\t"}', '{}{}', '{} x', '[]]', '{"a":1}}', '"\\', '{"\\ud800":1}x', '\u00a0{}',
];

/** A body that is not valid JSON, often derived from a valid one. */
export function malformedJson(rng: Rng, valid: string): Gen<Body> {
  return rng.weighted<() => Gen<Body>>([
    [3, () => {
      const at = rng.int(Math.max(1, valid.length));
      return { value: valid.slice(0, at), what: `valid body cut at ${at}` };
    }],
    [2, () => {
      const junk = rng.pick(['x', ',', '}', ']', '\u0000', '{}', ' 1', '"']);
      return { value: valid + junk, what: `valid body + ${JSON.stringify(junk)}` };
    }],
    [2, () => {
      const at = rng.int(Math.max(1, valid.length));
      const c = rng.pick(['"', '{', '}', '[', ']', ',', ':', '\\', '\u0000']);
      return { value: valid.slice(0, at) + c + valid.slice(at + 1), what: `char ${at} of a valid body set to ${JSON.stringify(c)}` };
    }],
    [4, () => {
      const m = rng.pick(MALFORMED);
      return { value: m, what: `malformed ${JSON.stringify(m)}` };
    }],
    [4, () => withBadUtf8(rng, valid)],
    [1, () => ({ value: Buffer.from(valid, 'utf16le'), what: 'valid body in UTF-16LE' })],
    [1, () => ({ value: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(valid)]), what: 'valid body after a UTF-8 BOM' })],
    [1, () => ({ value: '', what: 'empty body' })],
  ])();
}

// ---- mutations of valid JSON bodies ----------------------------------------------------------

type Path = Array<string | number>;
type Op =
  | { kind: 'replace'; path: Path; raw: string }
  | { kind: 'delete'; path: Path }
  | { kind: 'insert'; path: Path; key: string; raw: string }
  | { kind: 'rename'; path: Path; key: string }
  | { kind: 'duplicate'; path: Path; raw: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const samePath = (a: Path, b: Path) => a.length === b.length && a.every((x, i) => x === b[i]);
const pathText = (p: Path) => (p.length ? p.map((x) => (typeof x === 'number' ? `[${x}]` : `.${x}`)).join('') : '(root)');

function paths(v: unknown, here: Path = [], out: Path[] = []): Path[] {
  out.push(here);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...here, i], out));
  else if (isObject(v)) for (const k of Object.keys(v)) paths(v[k], [...here, k], out);
  return out;
}

/** JSON text of `v` with one operation applied; keys are written as given, `__proto__` too. */
function serialize(v: unknown, op: Op, here: Path = []): string {
  if (op.kind === 'replace' && samePath(here, op.path)) return op.raw;
  if (Array.isArray(v)) {
    const parts: string[] = [];
    v.forEach((x, i) => {
      const p = [...here, i];
      if (op.kind === 'delete' && samePath(p, op.path)) return;
      parts.push(serialize(x, op, p));
      if (op.kind === 'duplicate' && samePath(p, op.path)) parts.push(op.raw);
    });
    if (op.kind === 'insert' && samePath(here, op.path)) parts.push(op.raw);
    return `[${parts.join(',')}]`;
  }
  if (isObject(v)) {
    const parts: string[] = [];
    if (op.kind === 'insert' && samePath(here, op.path)) parts.push(`${JSON.stringify(op.key)}:${op.raw}`);
    for (const k of Object.keys(v)) {
      const p = [...here, k];
      if (op.kind === 'delete' && samePath(p, op.path)) continue;
      const key = op.kind === 'rename' && samePath(p, op.path) ? op.key : k;
      parts.push(`${JSON.stringify(key)}:${serialize(v[k], op, p)}`);
      if (op.kind === 'duplicate' && samePath(p, op.path)) parts.push(`${JSON.stringify(k)}:${op.raw}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A valid JSON value with one field replaced, inserted, deleted, renamed or duplicated. */
export function mutateJson(rng: Rng, template: unknown, opts: GenOptions = {}): Gen {
  const all = paths(template);
  const containers = all.filter((p) => {
    const v = p.reduce<any>((node, k) => node[k], template);
    return Array.isArray(v) || isObject(v);
  });
  const inner = all.filter((p) => p.length > 0);
  const objectKeys = inner.filter((p) => typeof p[p.length - 1] === 'string');
  const kind = rng.weighted<Op['kind']>([
    [6, 'replace'],
    [inner.length ? 2 : 0, 'delete'],
    [containers.length ? 3 : 0, 'insert'],
    [objectKeys.length ? 1 : 0, 'rename'],
    [inner.length ? 1 : 0, 'duplicate'],
  ]);
  let op: Op;
  let what: string;
  if (kind === 'replace') {
    // the leaves more often than the root
    const path = inner.length && rng.chance(0.85) ? rng.pick(inner) : [];
    const g = genValue(rng, opts);
    op = { kind, path, raw: g.value };
    what = `${pathText(path)} replaced by ${g.what}`;
  } else if (kind === 'delete') {
    const path = rng.pick(inner);
    op = { kind, path };
    what = `${pathText(path)} deleted`;
  } else if (kind === 'insert') {
    const path = rng.pick(containers);
    const k = genKey(rng, opts);
    const g = genValue(rng, opts);
    op = { kind, path, key: k.value, raw: g.value };
    const intoArray = Array.isArray(path.reduce<any>((node, p) => node[p], template));
    what = intoArray
      ? `${g.what} appended to ${pathText(path)}`
      : `${JSON.stringify(k.value.slice(0, 40))} (${k.what}) inserted in ${pathText(path)} as ${g.what}`;
  } else if (kind === 'rename') {
    const path = rng.pick(objectKeys);
    const k = genKey(rng, opts);
    op = { kind, path, key: k.value };
    what = `key ${pathText(path)} renamed to ${JSON.stringify(k.value.slice(0, 40))}`;
  } else {
    const path = rng.pick(inner);
    const g = genValue(rng, opts);
    op = { kind: 'duplicate', path, raw: g.value };
    what = `${pathText(path)} repeated as ${g.what}`;
  }
  return { value: serialize(template, op), what };
}

// ---- form bodies -------------------------------------------------------------------------------

const FORM_VALUES = ['', '%', '%zz', '%ff', '%00', '%C0%AF', '+', '&', '=', 'a'.repeat(300), 'refresh_token', 'authorization_code', 'revoke', 'http://127.0.0.1/', 'https://evil.example/'];

/** An application/x-www-form-urlencoded body from a valid one with one change. */
export function mutateForm(rng: Rng, template: Record<string, string>, opts: GenOptions = {}): Gen {
  const enc = (pairs: Array<[string, string]>) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const pairs = Object.entries(template);
  const i = rng.int(Math.max(1, pairs.length));
  const rawValue = () =>
    rng.weighted<() => Gen>([
      [4, () => {
        const v = rng.pick(FORM_VALUES);
        return { value: v, what: `raw ${JSON.stringify(v.slice(0, 30))}` };
      }],
      [3, () => {
        const v = rng.pick([...STRINGS, ...MEMBER_NAMES]);
        return { value: encodeURIComponent(v), what: `value ${JSON.stringify(v)}` };
      }],
      [opts.big ? 1 : 0, () => ({ value: 'a'.repeat(3 << 20), what: '3 MB value' })],
    ])();
  return rng.weighted<() => Gen>([
    [4, () => {
      const v = rawValue();
      const body = pairs.map(([k, x], j) => `${encodeURIComponent(k)}=${j === i ? v.value : encodeURIComponent(x)}`).join('&');
      return { value: body, what: `${pairs[i]?.[0]} set to ${v.what}` };
    }],
    [2, () => ({ value: enc(pairs.filter((_, j) => j !== i)), what: `${pairs[i]?.[0]} left out` })],
    [2, () => {
      const k = rng.pick([...MEMBER_NAMES, ...FIELD_NAMES]);
      const v = rawValue();
      return { value: `${enc(pairs)}&${encodeURIComponent(k)}=${v.value}`, what: `${k} added as ${v.what}` };
    }],
    [1, () => ({ value: `${enc(pairs)}&${enc([pairs[i] ?? ['a', 'b']])}`, what: `${pairs[i]?.[0]} given twice` })],
    [1, () => {
      const junk = rng.pick(['&&&', '=', '==', '&=&', '%', 'a=%', '%ff=1', '\u0000']);
      return { value: `${enc(pairs)}${junk}`, what: `junk ${JSON.stringify(junk)} appended` };
    }],
  ])();
}

// ---- path segments -----------------------------------------------------------------------------

/** A path segment (URL-encoded) and what the router decodes it to, when it can. */
export interface Segment {
  raw: string;
  decoded?: string;
  what: string;
}

/** A path segment of `decoded` text, URI-encoded. */
export const segment = (decoded: string, what: string): Segment => ({ raw: encodeURIComponent(decoded), decoded, what });

/** Segments no route expects: member names, bad escapes, 20,000 characters... */
export function hostileSegment(rng: Rng, prefix = ''): Segment {
  return rng.weighted<() => Segment>([
    [4, () => segment(prefix + rng.pick(MEMBER_NAMES), 'member name')],
    [2, () => segment(`${prefix}${'a'.repeat(20_000)}`, '20,000 characters')],
    [1, () => segment(`${prefix}${'a'.repeat(rng.pick([64, 65, 255, 256]))}`, 'long')],
    [3, () => {
      const raw = prefix + rng.pick(['%ff', '%', '%zz', '%C0%AF', '%E2%82', '%ED%A0%80']);
      return { raw, what: `bad escape ${raw}` };
    }],
    [3, () => segment(prefix + rng.pick(['\u0000', '..', '.', ' ', 'a/b', 'a?b', 'a#b', 'é', '💡', '\u202e', 'A.B', '*', '%']), 'odd characters')],
  ])();
}

/** Entity ids: existing, new, upper-case, invalid, member names, over-long. */
export function entityIdSegment(rng: Rng, ctx: FuzzContext): Segment {
  return rng.weighted<() => Segment>([
    [4, () => segment(rng.pick(ctx.entityIds), 'existing entity')],
    [3, () => segment(`sensor.fuzz_${rng.int(30)}`, 'fuzz entity')],
    [1, () => segment(rng.pick(ctx.entityIds).toUpperCase(), 'upper-case entity')],
    [2, () => segment(rng.pick(['bad', 'sensor.', '.x', 'sensor..x', 'sensor._x', 'sensor.x_', 'a.b.c', 'Sensor.X', 'sensor.x y', 'sensor.é', '_.x']), 'invalid entity id')],
    [2, () => segment(`sensor.${rng.pick(MEMBER_NAMES).toLowerCase().replace(/^_+|_+$/g, '') || 'x'}`, 'member-named entity')],
    [1, () => segment(`sensor.${'a'.repeat(20_000)}`, 'entity id of 20,007 characters')],
    [3, () => hostileSegment(rng, rng.chance(0.5) ? 'sensor.' : '')],
  ])();
}

/** Event types: valid, 64/65 characters, member names, over-long. */
export function eventTypeSegment(rng: Rng): Segment {
  return rng.weighted<() => Segment>([
    [4, () => segment(rng.pick(['fuzz_event', 'other_event', 'state_changed']), 'event type')],
    [1, () => segment('e'.repeat(rng.pick([64, 65])), 'event type at the length limit')],
    [4, () => hostileSegment(rng)],
  ])();
}

/** What the generators may refer to in the server under test. */
export interface FuzzContext {
  /** entities that exist (at least at the start) */
  entityIds: string[];
  /** a refresh token the fuzz may spend (not the one the suite authenticates with) */
  refreshToken: string;
  clientId: string;
  /** a login flow started for the fuzz */
  flowId: string;
}

/** Printable, bounded preview of a body or path for failure messages. */
export function preview(b: Body | undefined, max = 240): string {
  if (b === undefined) return '(none)';
  const bytes = typeof b === 'string' ? Buffer.from(b) : b;
  const text = bytes.toString('latin1').replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  if (text.length <= max) return `"${text}" (${bytes.length} bytes)`;
  return `"${text.slice(0, max - 60)}…${text.slice(-40)}" (${bytes.length} bytes)`;
}
