import type { HttpResponse as UwsResponse } from '@trufflesuite/uws-js-unofficial';

/** What ends a header line early: after it, the rest of a value would be read as lines of its own. */
const LINE_BREAKING = /[\r\n\0]/;

export type HeaderLine = readonly [name: string, value: string];

/**
 * Writes an answer's status line and headers: every answer goes through here, the router's
 * and the proxies'. uWS writes header values as they are, so a value carrying CR, LF or NUL
 * (a file name from an upload, an upstream's header) would add lines of the caller's choosing;
 * such an answer is dropped for a bare 500, the connection closed, and `log` names the header.
 * Returns whether the answer may go on. Call it inside `res.cork`.
 */
export function writeHead(res: UwsResponse, status: string, headers: readonly HeaderLine[], log: (line: string) => void): boolean {
  const broken = LINE_BREAKING.test(status) ? 'the status line' : headers.find(([name, value]) => LINE_BREAKING.test(name) || LINE_BREAKING.test(value));
  if (broken !== undefined) {
    const which = typeof broken === 'string' ? broken : `the header ${JSON.stringify(broken[0])}`;
    log(`answer dropped for a 500: ${which} holds CR, LF or NUL`);
    res.writeStatus('500 Internal Server Error');
    res.writeHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('500: Internal Server Error', true);
    return false;
  }
  res.writeStatus(status);
  for (const [name, value] of headers) res.writeHeader(name, value);
  return true;
}

/** A header record as lines. */
export function headerLines(headers: Record<string, string> | undefined): HeaderLine[] {
  const lines: HeaderLine[] = [];
  for (const name in headers) lines.push([name, headers[name]]);
  return lines;
}
