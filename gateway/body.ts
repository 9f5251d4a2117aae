import { isUtf8 } from 'node:buffer';

/**
 * Deepest nesting of arrays and objects a client may send. Far beyond any real payload, and
 * shallow enough that every recursive step after parsing (schema checks, clones, the log's
 * JSON encoding, the wire's) stays well inside the stack.
 */
export const MAX_JSON_DEPTH = 512;

/** Why a body or a message was refused before it was parsed into a value. */
export type JsonProblem = 'syntax' | 'encoding' | 'depth';

/** A JSON text read from a client: the value, or why it was refused. `undefined` when empty. */
export type JsonRead = { ok: true; value: unknown } | { ok: false; problem: JsonProblem; message: string };

/**
 * The one reader of client JSON, for REST bodies and WebSocket messages alike: strict UTF-8,
 * a nesting limit checked before parsing, and JSON.parse, which defines every key (even
 * `__proto__`) as an own data property, so no prototype is reached through a parsed value.
 */
export function readJson(bytes: Uint8Array): JsonRead {
  if (bytes.length === 0) return { ok: true, value: undefined };
  if (!isUtf8(bytes)) return { ok: false, problem: 'encoding', message: 'the text is not valid UTF-8' };
  if (nestedDeeperThan(bytes, MAX_JSON_DEPTH)) {
    return { ok: false, problem: 'depth', message: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  const text = (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, problem: 'syntax', message: (err as Error).message };
  }
}

/** A request's body read as JSON: the value (`undefined` when empty), or why not. */
export function parseJson(req: { body: Buffer }): JsonRead {
  return readJson(req.body);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * True when brackets outside strings nest deeper than `max`. One pass over the bytes: every
 * structural character is ASCII, and no byte of a multi-byte UTF-8 sequence is.
 */
export function nestedDeeperThan(bytes: Uint8Array, max: number): boolean {
  // deeper than `max` needs more than `max` opening brackets
  if (bytes.length <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** A plain object of client data (not an array, not null). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
