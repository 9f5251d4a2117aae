// Times the log's readers are given as text (the replay tool's `--at`, the explorer, history).
// Writing them is Python's isoformat(), in machines/python/isoformat.ts.

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
