import { SupervisorError } from '../../actors/supervisor/errors.ts';
import { volBoolean } from '../../machines/python/boolean.ts';
import { pyRepr } from '../../machines/python/repr.ts';

/**
 * Nested request bodies (an object of objects and lists) checked the way the original's
 * validation library checks them, with its wording: every failure of the body is found, each
 * written `<reason>[ for dictionary value] @ data['a']['b'][0]. Got <repr>`, the lines sorted
 * and joined by newlines (`expected IPv4Address for dictionary value @ data['ipv4']['gateway']. Got 'invalid'`).
 * A value's own failure says "for dictionary value"; a failure inside it names only its path.
 */

type Path = (string | number)[];

/** One failure: the reason, where, whether it is the value's own, and the offending value. */
interface Failure {
  reason: string;
  path: Path;
  own: boolean;
  value: unknown;
}

class Failures extends Error {
  constructor(readonly list: Failure[]) {
    super('invalid');
  }
}

/** A checker: returns the value as the handler gets it, or throws `reject(reason)`. */
export type Check<T = unknown> = (value: unknown, path: Path) => T;

class Rejected extends Error {}
/** Fails the value being checked with the library's reason (`expected IPv4Address`). */
export const reject = (reason: string): never => {
  throw new Rejected(reason);
};

const where = (path: Path) => (path.length ? ` @ data[${path.map((p) => (typeof p === 'number' ? String(p) : pyRepr(p))).join('][')}]` : '');

function run<T>(check: Check<T>, value: unknown, path: Path): T {
  try {
    return check(value, path);
  } catch (err) {
    if (err instanceof Rejected) throw new Failures([{ reason: err.message, path, own: true, value }]);
    throw err;
  }
}

/** A mapping of the shape's keys, those named in `required` required; unknown keys refused. */
export function object(shape: Record<string, Check>, required: string[] = []): Check<Record<string, unknown>> {
  return (value, path) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return reject('expected a dictionary');
    const out: Record<string, unknown> = {};
    const failures: Failure[] = [];
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      // own keys only: a key such as `constructor` or `__lookupGetter__` is not in the shape
      const check = Object.hasOwn(shape, key) ? shape[key] : undefined;
      const at = [...path, key];
      if (!check) {
        failures.push({ reason: 'extra keys not allowed', path: at, own: false, value: v });
        continue;
      }
      try {
        out[key] = run(check, v, at);
      } catch (err) {
        if (!(err instanceof Failures)) throw err;
        // only the value's own failure is "for dictionary value"; deeper ones keep their words
        for (const f of err.list) failures.push(f.path.length <= at.length && f.own ? { ...f, reason: `${f.reason} for dictionary value` } : f);
      }
    }
    for (const key of required) if (!(key in (value as object))) failures.push({ reason: 'required key not provided', path: [...path, key], own: false, value: null });
    if (failures.length) throw new Failures(failures);
    return out;
  };
}

/** A list whose every item passes `item`. */
export function listOf<T>(item: Check<T>): Check<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) return reject('expected a list');
    const failures: Failure[] = [];
    const out: T[] = [];
    value.forEach((v, i) => {
      try {
        out.push(run(item, v, [...path, i]));
      } catch (err) {
        if (!(err instanceof Failures)) throw err;
        // an item's own failure is not a dictionary value's
        failures.push(...err.list.map((f) => ({ ...f, own: false })));
      }
    });
    if (failures.length) throw new Failures(failures);
    return out;
  };
}

/** The checked body; a 400 with every failure, as the original's humanized message, otherwise. */
export function validateNested(body: unknown, check: Check<Record<string, unknown>>): Record<string, unknown> {
  try {
    return run(check, body, []);
  } catch (err) {
    if (!(err instanceof Failures)) throw err;
    const lines = err.list.map((f) => `${f.reason}${where(f.path)}. Got ${pyRepr(f.value)}`).sort();
    throw new SupervisorError(lines.join('\n'));
  }
}

// ---- the value checkers the network and OS bodies use ----

/** `vol.Coerce(Enum)`: one of the enumeration's values, else `expected <Name> or one of 'a', 'b'`. */
export function coerceEnum(name: string, values: readonly string[]): Check<string> {
  return (v) => (typeof v === 'string' && values.includes(v) ? v : reject(`expected ${name} or one of ${values.map((x) => pyRepr(x)).join(', ')}`));
}

/** `vol.Coerce(int)`: a number (truncated) or a string of digits. */
export const coerceInt: Check<number> = (v) => {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return reject('expected int');
};

/** A JSON string (`str`). */
export const string: Check<string> = (v) => (typeof v === 'string' ? v : reject('expected str'));

/** `vol.Boolean()`: the lenient words, or any other non-string value's truth. */
export const lenientBoolean: Check<boolean> = (v) => volBoolean(v) ?? reject('expected boolean');

/** `vol.Match(re)`. */
export function matching(re: RegExp): Check<string> {
  return (v) => (typeof v !== 'string' ? reject('expected string or buffer') : re.test(v) ? v : reject(`does not match regular expression ${re.source}`));
}

/** `vol.All(int, vol.Range(min, max))`: Python's int, which a boolean is too. */
export function intRange(min: number, max: number): Check<number> {
  return (v) => {
    const n = typeof v === 'boolean' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n)) return reject('expected int');
    if (n < min) return reject(`value must be at least ${min}`);
    if (n > max) return reject(`value must be at most ${max}`);
    return n;
  };
}

/** The original's version field: a string or number taken as a version. */
export const versionTag: Check<string | null> = (v) => (v === null ? null : typeof v === 'string' || typeof v === 'number' ? String(v) : reject('not a valid value'));
