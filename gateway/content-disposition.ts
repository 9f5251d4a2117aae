/**
 * `Content-Disposition` of a download named `fileName` (RFC 6266): a quoted ASCII stand-in for
 * clients that know only `filename`, and the exact name as UTF-8 percent-encoded (RFC 5987
 * `filename*`). Whatever the name holds, the header is one line of printable ASCII.
 */
export function attachment(fileName: string): string {
  // printable ASCII but the quoted string's own `"` and `\`, and `%` that some clients decode
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  let encoded = '';
  for (const byte of Buffer.from(fileName, 'utf8')) {
    const char = String.fromCharCode(byte);
    encoded += ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** RFC 5987's attr-char: what goes unencoded in an extended value. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;
