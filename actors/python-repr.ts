// Python's repr() of a str: the original's messages quote values the way Python prints them
// (templates' errors, the supervisor's option messages).

const NAMED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', "'": "\\'", '"': '\\"' };

const escape = (ch: string) => NAMED[ch] ?? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;

/** Python's repr() of a str, in one pass of the engine's replace: a value can be a megabyte long. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  const special = quote === "'" ? /[\\'\x00-\x1f\x7f]/g : /[\\"\x00-\x1f\x7f]/g;
  return quote + s.replace(special, escape) + quote;
}
