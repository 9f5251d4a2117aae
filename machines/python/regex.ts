/**
 * Python's regular expressions on JavaScript's RegExp: the syntax where the two differ is
 * translated (`(?P<name>...)`, `(?P=name)`, `\A`, `\Z`, leading inline flags, verbose mode,
 * `{,n}`); what has no translation is refused.
 */

/** A pattern Python would take that has no JavaScript equivalent here. */
export class UnsupportedPattern extends Error {
  override name = 'UnsupportedPattern';
}

/** Python's verbose mode: whitespace and `#` comments outside classes are not part of the pattern. */
function verbose(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      out += c + (src[++i] ?? '');
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') inClass = true;
    if (/\s/.test(c)) continue;
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * A Python pattern as the source and flags of an equivalent RegExp (`ignoreCase` adds `i`, as
 * `re.IGNORECASE`). Throws UnsupportedPattern for scoped inline flags and conditional groups;
 * `new RegExp` may still refuse what Python refuses too.
 */
export function pythonPattern(pattern: string, ignoreCase = false): { source: string; flags: string } {
  let src = pattern;
  let flags = ignoreCase ? 'i' : '';
  const inline = /^\(\?([aiLmsux]+)\)/.exec(src);
  if (inline) {
    src = src.slice(inline[0].length);
    for (const f of inline[1]) if ('ims'.includes(f) && !flags.includes(f)) flags += f;
    if (inline[1].includes('x')) src = verbose(src);
  }
  if (/\(\?[aiLmsux-]+:|\(\?\(/.test(src)) throw new UnsupportedPattern('scoped inline flags and conditional groups are not supported');
  const source = src
    .replace(/\(\?P<(\w+)>/g, '(?<$1>')
    .replace(/\(\?P=(\w+)\)/g, '\\k<$1>')
    // \A and \Z, not an escaped backslash followed by A or Z
    .replace(/(^|[^\\])((?:\\\\)*)\\A/g, '$1$2^')
    .replace(/(^|[^\\])((?:\\\\)*)\\Z/g, '$1$2$(?![\\s\\S])')
    .replace(/\{,(\d+)\}/g, '{0,$1}');
  return { source, flags };
}
