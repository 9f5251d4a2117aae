/**
 * Formats epoch milliseconds as the original's ISO form: `2025-01-02T03:04:05.123456+00:00`,
 * microseconds omitted when zero, offset always `+00:00`.
 */
export function isoTime(ms: number): string {
  // a state carries the same time up to three times, and a write formats it right away
  if (ms === lastMs) return lastIso;
  lastIso = formatIso(ms);
  lastMs = ms;
  return lastIso;
}

let lastMs = NaN;
let lastIso = '';
// writes arrive many to a second: the second's text is made once, the fraction each time
let second = NaN;
let secondText = '';

function formatIso(ms: number): string {
  const whole = Math.floor(ms);
  let micros = Math.round((ms - whole) * 1000);
  let base = whole;
  if (micros >= 1000) {
    base += 1;
    micros -= 1000;
  }
  const millis = ((base % 1000) + 1000) % 1000;
  const s = (base - millis) / 1000;
  if (s !== second) {
    secondText = new Date(base - millis).toISOString().slice(0, 19); // 2025-01-02T03:04:05
    second = s;
  }
  const frac = millis * 1000 + micros;
  if (frac === 0) return `${secondText}+00:00`;
  return `${secondText}.${frac < 100000 ? String(frac).padStart(6, '0') : frac}+00:00`;
}

/** Parses an ISO 8601 time (with offset or Z) to epoch ms with microseconds; NaN when invalid. */
export function parseIsoTime(text: string): number {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!m) return NaN;
  const [, date, hh = '00', mm = '00', ss = '00', frac = '', zone = 'Z'] = m;
  const base = Date.parse(`${date}T${hh}:${mm}:${ss}${zone === 'Z' ? 'Z' : zone.length === 5 ? zone.slice(0, 3) + ':' + zone.slice(3) : zone}`);
  if (Number.isNaN(base)) return NaN;
  const micros = frac ? Number((frac + '000000').slice(0, 6)) : 0;
  return base + micros / 1000;
}
