import { randomBytes, randomUUID } from 'node:crypto';

/** Wall-clock time in epoch milliseconds, with microsecond precision. */
export interface Clock {
  now(): number;
}

/** Generators of the identifiers the original uses. */
export interface Ids {
  /** ULID at the given time (context ids, event ids) */
  ulid(time: number): string;
  /** uuid4 as 32 lower-case hex chars (users, tokens, flows, codes) */
  uuidHex(): string;
  /** `bytes` random bytes as hex (refresh-token secrets, jwt keys, webhook ids) */
  tokenHex(bytes: number): string;
}

/**
 * The system clock. Date.now() has millisecond steps; performance.now() adds the fraction, so
 * two writes in the same millisecond still get distinct, increasing times.
 */
export function systemClock(): Clock {
  const origin = performance.timeOrigin;
  let last = 0;
  return {
    now() {
      let t = Math.round((origin + performance.now()) * 1000) / 1000;
      // wall-clock steps backwards are hidden so times in the log never decrease
      if (t <= last) t = Math.round((last + 0.001) * 1000) / 1000;
      last = t;
      return t;
    },
  };
}

/** A clock that moves only when told (tests over recorded events). */
export function manualClock(start: number, stepMs = 0): Clock & { set(t: number): void; advance(ms: number): void } {
  let t = start;
  return {
    now() {
      const v = t;
      t += stepMs;
      return v;
    },
    set(v: number) {
      t = v;
    },
    advance(ms: number) {
      t += ms;
    },
  };
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function encodeTime(ms: number): string {
  let out = '';
  let t = Math.floor(ms);
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** Random identifiers from node:crypto. */
export function randomIds(): Ids {
  // one call to the CSPRNG serves many ids: a call per id cost more than the rest of a write
  let pool = randomBytes(4096);
  let at = 0;
  // the id is spelled into one buffer and read out as one string: built a character at a
  // time, it cost 26 short-lived strings per write
  const text = Buffer.alloc(26);
  return {
    ulid(time) {
      if (at + 16 > pool.length) {
        pool = randomBytes(4096);
        at = 0;
      }
      let t = Math.floor(time);
      for (let i = 9; i >= 0; i--) {
        text[i] = CODES[t % 32];
        t = Math.floor(t / 32);
      }
      for (let i = 0; i < 16; i++) text[10 + i] = CODES[pool[at + i] & 31];
      at += 16;
      return text.toString('latin1', 0, 26);
    },
    uuidHex: () => randomUUID().replaceAll('-', ''),
    tokenHex: (n) => randomBytes(n).toString('hex'),
  };
}

const CODES = Buffer.from(CROCKFORD, 'latin1');

/** Deterministic identifiers (tests over recorded events). */
export function sequentialIds(prefix = ''): Ids {
  let n = 0;
  const next = () => (++n).toString(16).padStart(8, '0');
  return {
    ulid: (time) => encodeTime(time) + (prefix + next()).toUpperCase().padStart(16, '0').slice(-16),
    uuidHex: () => (prefix + next()).padStart(32, '0').slice(-32),
    tokenHex: (bytes) => (prefix + next()).padStart(bytes * 2, '0').slice(-bytes * 2),
  };
}
