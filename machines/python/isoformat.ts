/**
 * Python's `datetime.isoformat()` of a UTC time, which is how the original writes every time on
 * the wire: `2025-01-02T03:04:05.123456+00:00`, the fraction left out when it is zero.
 */

/** Python's `timespec`: `auto` leaves out a zero fraction; the others always print theirs (truncated). */
export type Timespec = 'auto' | 'milliseconds' | 'microseconds';

// a state carries the same time up to three times and writes come many to a second: the last
// answer and the last second's text are kept
let lastMs = NaN;
let lastIso = '';
let second = NaN;
let secondText = '';

function secondOf(epochSeconds: number): string {
  if (epochSeconds !== second) {
    secondText = new Date(epochSeconds * 1000).toISOString().slice(0, 19); // 2025-01-02T03:04:05
    second = epochSeconds;
  }
  return secondText;
}

function format(epochSeconds: number, micros: number, timespec: Timespec): string {
  const base = secondOf(epochSeconds);
  if (timespec === 'milliseconds') return `${base}.${String(Math.floor(micros / 1000)).padStart(3, '0')}+00:00`;
  if (micros === 0 && timespec === 'auto') return `${base}+00:00`;
  return `${base}.${String(micros).padStart(6, '0')}+00:00`;
}

/**
 * An epoch-milliseconds time (the fraction holding the microseconds, rounded to the nearest one)
 * as Python's `isoformat(timespec=...)` of that UTC datetime.
 */
export function isoformat(ms: number, timespec: Timespec = 'auto'): string {
  if (timespec === 'auto' && ms === lastMs) return lastIso;
  let whole = Math.floor(ms);
  let sub = Math.round((ms - whole) * 1000);
  if (sub >= 1000) {
    whole += 1;
    sub -= 1000;
  }
  const millis = ((whole % 1000) + 1000) % 1000;
  const text = format((whole - millis) / 1000, millis * 1000 + sub, timespec);
  if (timespec === 'auto') {
    lastMs = ms;
    lastIso = text;
  }
  return text;
}

/** A time in whole epoch microseconds (exact, where a float of milliseconds would round) as `isoformat()`. */
export function isoformatMicros(epochMicros: bigint, timespec: Timespec = 'auto'): string {
  let seconds = epochMicros / 1_000_000n;
  let micros = epochMicros % 1_000_000n;
  if (micros < 0n) {
    seconds -= 1n;
    micros += 1_000_000n;
  }
  return format(Number(seconds), Number(micros), timespec);
}
