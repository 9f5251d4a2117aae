// Secrets in what `hearth replay` prints. Everything here walks values with an explicit stack:
// a record the server accepted can be nested thousands deep, and one record must never take
// replay down (a recursive walk overflows the call stack at a few thousand levels).

const SECRET_KEYS = new Set([
  'password_hash',
  'jwt_key',
  'token',
  'secret',
  'webhook_id',
  'refresh_token',
  'access_token',
  'code',
  'password',
  'api_key',
  'private_key',
]);
const SECRET_ENDINGS = ['token', 'secret', 'password', 'password_hash'];
const SECRET_SUFFIX = new RegExp(`_(?:${SECRET_ENDINGS.join('|')})$`);
/**
 * Matches wherever JSON text may name a secret key: `"<key>":` for each key of SECRET_KEYS, and
 * `_<ending>":` for the suffixes. JSON.stringify escapes no letter or `_`, and a key's closing
 * quote is never escaped, so every secret key of a value is matched in its JSON text (a quote
 * inside a string is written `\"`, so string contents can match only by chance: a false alarm
 * costs the slow walk, nothing more).
 */
const SECRET_KEY_TEXT = new RegExp(`(?:"(?:${[...SECRET_KEYS].join('|')})|_(?:${SECRET_ENDINGS.join('|')}))":`);

/** False when the JSON text `json` surely holds no secret key (see SECRET_KEY_TEXT). */
export function mayNameSecretKey(json: string): boolean {
  return SECRET_KEY_TEXT.test(json);
}
// secret keys are short; a longer key (even a 10 MB one) is not tested at all
const MAX_KEY = 256;
// Only id-like values are remembered for scrubbing elsewhere: short or free-form ones would
// blank out ordinary words, and a huge one is no id.
const SECRET_SHAPE = /^[A-Za-z0-9_-]+$/;
const MIN_SECRET = 12;
export const MAX_SECRET = 1024;
const HIDDEN = '"***"';

/** A character of SECRET_SHAPE: A-Z a-z 0-9 _ - */
function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45;
}

// the same few keys come back in every record: the regular expression runs once per key
const keyVerdicts = new Map<string, boolean>();
const MAX_VERDICTS = 10_000;

export function isSecretKey(key: string): boolean {
  if (key.length > MAX_KEY) return false;
  let secret = keyVerdicts.get(key);
  if (secret === undefined) {
    secret = SECRET_KEYS.has(key) || SECRET_SUFFIX.test(key);
    if (keyVerdicts.size < MAX_VERDICTS) keyVerdicts.set(key, secret);
  }
  return secret;
}

function isContainer(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

/** What `format` made: the JSON text, cut short (and `complete` false) once it reached the limit. */
export interface Formatted {
  text: string | undefined;
  complete: boolean;
}

/** What JSON.stringify writes for `value`: its toJSON() when it has one. */
function jsonOf(value: unknown, key: string | number): unknown {
  if (isContainer(value) && typeof (value as { toJSON?: unknown }).toJSON === 'function') return (value as { toJSON(k: string): unknown }).toJSON(String(key));
  return value;
}

/** An array or object being written: its members are taken one at a time. */
interface Frame {
  value: object;
  keys: string[] | undefined; // undefined for arrays
  next: number;
  wrote: boolean;
}

/** Hides secret values, and remembers them to hide wherever else they are quoted. */
export class Redactor {
  readonly #seen = new Set<string>();
  #shortest = Infinity;
  #longest = 0;

  /** How many secrets are remembered: what scrub() hides changes only when this does. */
  get learnt(): number {
    return this.#seen.size;
  }

  /**
   * Remembers the id-like values under secret keys anywhere in `value`; true when there are
   * any such keys (with a value to hide). Only keys are tested on the way: strings under other
   * keys are passed over whatever their size.
   */
  learn(value: unknown): boolean {
    if (!isContainer(value)) return false;
    let found = false;
    const pending: unknown[] = [value];
    const visited = new Set<object>();
    while (pending.length > 0) {
      const item = pending.pop();
      if (!isContainer(item) || visited.has(item)) continue;
      visited.add(item);
      if (Array.isArray(item)) {
        for (let i = 0; i < item.length; i++) if (isContainer(item[i])) pending.push(item[i]);
        continue;
      }
      for (const key of Object.keys(item)) {
        const member = (item as Record<string, unknown>)[key];
        if (member === null || member === undefined) continue;
        if (isSecretKey(key)) {
          found = true;
          this.#remember(member);
        } else if (isContainer(member)) pending.push(member);
      }
    }
    return found;
  }

  /**
   * `value` as JSON, secrets hidden. When `learn` found no secret key in it, JSON.stringify
   * itself writes it (several times faster), unless it is nested too deep for it.
   */
  json(value: unknown, secretKeys: boolean): string | undefined {
    if (!secretKeys) {
      try {
        return JSON.stringify(value);
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
      }
    }
    return this.format(value).text;
  }

  /**
   * `text` with every remembered secret replaced. A plain scan rather than a regular
   * expression: a /[...]{12,}/ match over a 10 MB run of letters exhausts the regexp stack.
   */
  scrub(text: string): string {
    if (this.#seen.size === 0 || text.length < this.#shortest) return text;
    let out: string[] | undefined;
    let copied = 0;
    const n = text.length;
    const shortest = this.#shortest;
    // Only runs of token characters at least `shortest` long matter, so the scan probes the
    // last character such a run starting at i would cover: when it is no token character, no
    // such run starts in between and the scan skips past it. text[i - 1] is never a token character.
    for (let i = 0; i + shortest <= n; ) {
      const probe = i + shortest - 1;
      if (!isTokenChar(text.charCodeAt(probe))) {
        i = probe + 1;
        continue;
      }
      let start = probe;
      while (start > i && isTokenChar(text.charCodeAt(start - 1))) start--;
      let end = probe + 1;
      while (end < n && isTokenChar(text.charCodeAt(end))) end++;
      i = end + 1;
      const length = end - start;
      if (length < shortest || length > this.#longest || !this.#seen.has(text.slice(start, end))) continue;
      (out ??= []).push(text.slice(copied, start), '***');
      copied = end;
    }
    if (out === undefined) return text;
    out.push(text.slice(copied));
    return out.join('');
  }

  /**
   * `value` as JSON.stringify writes it, with the value of every secret key written as "***".
   * With a limit, writing stops once the text is that long (the summary of a table row needs
   * only its start, not all of a 10 MB attribute). Throws on what JSON cannot hold (a BigInt,
   * a cycle).
   */
  format(value: unknown, limit = Infinity): Formatted {
    const parts: string[] = [];
    let length = 0;
    let cut = false;
    const emit = (text: string) => {
      parts.push(text);
      length += text.length;
    };
    // a string longer than what is left is cut first, so a 10 MB one is not escaped in full
    const emitString = (s: string) => {
      const room = limit - length;
      const over = s.length > room;
      if (over) cut = true;
      emit(JSON.stringify(over ? s.slice(0, Math.max(0, room + 1)) : s));
    };
    const stack: Frame[] = [];
    const open = new Set<object>();
    /** Starts writing `v` (toJSON already applied); false when it has no JSON form. */
    const begin = (v: unknown): boolean => {
      switch (typeof v) {
        case 'string':
          emitString(v);
          return true;
        case 'number':
          emit(Number.isFinite(v) ? String(v) : 'null');
          return true;
        case 'boolean':
          emit(v ? 'true' : 'false');
          return true;
        case 'bigint':
          throw new TypeError('a BigInt cannot be written as JSON');
        case 'object':
          break;
        default:
          return false; // undefined, a function, a symbol
      }
      if (v === null) {
        emit('null');
        return true;
      }
      if (open.has(v)) throw new TypeError('a cyclic structure cannot be written as JSON');
      open.add(v);
      const array = Array.isArray(v);
      emit(array ? '[' : '{');
      stack.push({ value: v, keys: array ? undefined : Object.keys(v), next: 0, wrote: false });
      return true;
    };

    if (!begin(jsonOf(value, ''))) return { text: undefined, complete: true };
    while (stack.length > 0 && length < limit) {
      const frame = stack[stack.length - 1];
      const keys = frame.keys;
      const size = keys === undefined ? (frame.value as unknown[]).length : keys.length;
      if (frame.next >= size) {
        emit(keys === undefined ? ']' : '}');
        open.delete(frame.value);
        stack.pop();
        continue;
      }
      if (keys === undefined) {
        const i = frame.next++;
        if (frame.wrote) emit(',');
        frame.wrote = true;
        if (!begin(jsonOf((frame.value as unknown[])[i], i))) emit('null');
        continue;
      }
      const key = keys[frame.next++];
      const member = jsonOf((frame.value as Record<string, unknown>)[key], key);
      if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
      if (frame.wrote) emit(',');
      frame.wrote = true;
      emitString(key);
      emit(':');
      if (member !== null && isSecretKey(key)) emit(HIDDEN);
      else begin(member);
    }
    return { text: parts.join(''), complete: stack.length === 0 && !cut };
  }

  /** Remembers the id-like strings of a secret value (a string, or strings inside it). */
  #remember(secret: unknown): void {
    const pending: unknown[] = [secret];
    const visited = new Set<object>();
    while (pending.length > 0) {
      const item = pending.pop();
      if (typeof item === 'string') {
        if (item.length >= MIN_SECRET && item.length <= MAX_SECRET && SECRET_SHAPE.test(item)) {
          this.#seen.add(item);
          this.#shortest = Math.min(this.#shortest, item.length);
          this.#longest = Math.max(this.#longest, item.length);
        }
      } else if (isContainer(item) && !visited.has(item)) {
        visited.add(item);
        for (const member of Object.values(item)) pending.push(member);
      }
    }
  }
}
