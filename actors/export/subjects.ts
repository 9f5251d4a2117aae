// How a record's stream (and, on the bus, its type) becomes a NATS subject.
//
//   entity/light.kitchen        -> <prefix>.entity.light.kitchen
//   bus + type call_service     -> <prefix>.bus.call_service
//   registry/area/x             -> <prefix>.registry.area.x
//
// `/` and `.` both separate tokens. Inside a token, letters, digits, `_` and `-` stay as they
// are; every other character (space, `*`, `>`, `~`, non-ASCII...) is written as `~` and the two
// hex digits of each of its UTF-8 bytes (`a b` -> `a~20b`), so a subject never holds a wildcard
// or whitespace and the mapping can be undone. An empty token (`a//b`) is written `~`.

const SAFE = /^[A-Za-z0-9_-]+$/;

/** One subject token for `text` (never empty, never a wildcard). */
export function subjectToken(text: string): string {
  if (text === '') return '~';
  if (SAFE.test(text)) return text;
  let out = '';
  for (const ch of text) {
    if (/[A-Za-z0-9_-]/.test(ch)) out += ch;
    else for (const byte of Buffer.from(ch, 'utf8')) out += '~' + byte.toString(16).padStart(2, '0');
  }
  return out;
}

/** The subject of a record of `stream` with `type` under `prefix`. */
export function subjectOf(prefix: string, stream: string, type: string): string {
  const parts = stream.split(/[/.]/);
  if (stream === 'bus') parts.push(type);
  return [prefix, ...parts.map(subjectToken)].join('.');
}

/** Streams never exported: users, credentials, refresh tokens and their keys. */
export function isExported(stream: string): boolean {
  return stream !== 'auth' && !stream.startsWith('auth/');
}

/**
 * subjectOf with the subjects of recent streams kept: an entity's stream is exported again and
 * again, and its subject is the same every time. Bounded: past `limit` streams, it starts over.
 */
export class SubjectCache {
  readonly #prefix: string;
  readonly #limit: number;
  #subjects = new Map<string, string>();

  constructor(prefix: string, limit = 100_000) {
    this.#prefix = prefix;
    this.#limit = limit;
  }

  of(stream: string, type: string): string {
    // the bus's subject is its type's
    if (stream === 'bus') return subjectOf(this.#prefix, stream, type);
    let subject = this.#subjects.get(stream);
    if (subject === undefined) {
      if (this.#subjects.size >= this.#limit) this.#subjects = new Map();
      subject = subjectOf(this.#prefix, stream, type);
      this.#subjects.set(stream, subject);
    }
    return subject;
  }
}
