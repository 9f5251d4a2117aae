import { Readable } from 'node:stream';
import type { HttpResponse as UwsResponse } from '@trufflesuite/uws-js-unofficial';

/** A request body that cannot be taken, and the status that says why. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

/**
 * The request body as a stream, uWS paused while nobody reads it (an upload of gigabytes goes
 * at the pace of the disk it is written to). Call it in the uWS handler: uWS hands the body only
 * to an `onData` attached there. `gone` says the response is answered or aborted (uWS must not
 * be touched then). Past `maxBody` bytes the stream fails with a 413 BodyError.
 */
export function requestBody(res: UwsResponse, gone: () => boolean, maxBody = Infinity): Readable {
  let paused = false;
  let size = 0;
  const stream = new Readable({
    read() {
      if (paused && !gone()) {
        paused = false;
        res.resume();
      }
    },
  });
  res.onData((chunk, isLast) => {
    if (stream.destroyed) return;
    size += chunk.byteLength;
    if (size > maxBody) return void stream.destroy(new BodyError(413, `the body is larger than ${maxBody} bytes`));
    // uWS reuses the chunk's memory after this callback returns
    if (chunk.byteLength && !stream.push(Buffer.from(chunk.slice(0))) && !isLast && !gone()) {
      paused = true;
      res.pause();
    }
    if (isLast) stream.push(null);
  });
  return stream;
}
