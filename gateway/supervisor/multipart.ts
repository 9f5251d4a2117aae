import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';

/**
 * The first part of a multipart/form-data body (the backup upload sends the tar as its first
 * part), from a buffer or from a spooled body file.
 */

function boundaryOf(contentType: string | undefined): Buffer | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  if (!/^multipart\/form-data/i.test(contentType ?? '') || !match) return undefined;
  return Buffer.from(`--${match[1] ?? match[2]}`);
}

/** Where the first part's data starts and ends in `body`; undefined when there is no complete part. */
function firstPartRange(delimiter: Buffer, head: Buffer): { start: number } | undefined {
  const first = head.indexOf(delimiter);
  if (first < 0) return undefined;
  // the part's headers end with an empty line
  const headersEnd = head.indexOf('\r\n\r\n', first + delimiter.length);
  if (headersEnd < 0) return undefined;
  return { start: headersEnd + 4 };
}

export function firstMultipartPart(contentType: string | undefined, body: Buffer): Buffer | undefined {
  const delimiter = boundaryOf(contentType);
  if (!delimiter) return undefined;
  const range = firstPartRange(delimiter, body);
  if (!range) return undefined;
  const end = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), range.start);
  if (end < 0) return undefined;
  return body.subarray(range.start, end);
}

const WINDOW = 1024 * 1024;

/**
 * Copies the first part of a spooled multipart body into `target`; false when the body is not
 * multipart. Its end is the first delimiter in the body's last MiB (a file part is followed only
 * by the closing delimiter and perhaps small fields), so the file is read twice at most.
 */
export async function firstMultipartPartToFile(contentType: string | undefined, bodyFile: string, target: string): Promise<boolean> {
  const delimiter = boundaryOf(contentType);
  if (!delimiter) return false;
  const size = (await stat(bodyFile)).size;
  const file = await open(bodyFile, 'r');
  let start: number;
  let end: number;
  try {
    const head = Buffer.alloc(Math.min(size, 64 * 1024));
    await file.read(head, 0, head.length, 0);
    const range = firstPartRange(delimiter, head);
    if (!range) return false;
    start = range.start;
    const tailStart = Math.max(start, size - WINDOW);
    const tail = Buffer.alloc(size - tailStart);
    await file.read(tail, 0, tail.length, tailStart);
    const at = tail.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]));
    if (at < 0) return false;
    end = tailStart + at;
  } finally {
    await file.close();
  }
  if (end <= start) {
    await pipeline(async function* () {}, createWriteStream(target));
    return true;
  }
  await pipeline(createReadStream(bodyFile, { start, end: end - 1 }), createWriteStream(target));
  return true;
}
