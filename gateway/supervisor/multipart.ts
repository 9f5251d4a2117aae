/**
 * The first part of a multipart/form-data body (the backup upload sends the tar as its only
 * part). Undefined when the body is not multipart or has no complete part.
 */
export function firstMultipartPart(contentType: string | undefined, body: Buffer): Buffer | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  if (!/^multipart\/form-data/i.test(contentType ?? '') || !match) return undefined;
  const delimiter = Buffer.from(`--${match[1] ?? match[2]}`);
  const first = body.indexOf(delimiter);
  if (first < 0) return undefined;
  // the part's headers end with an empty line
  const headersEnd = body.indexOf('\r\n\r\n', first + delimiter.length);
  if (headersEnd < 0) return undefined;
  const start = headersEnd + 4;
  const end = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), start);
  if (end < 0) return undefined;
  return body.subarray(start, end);
}
