import { createReadStream } from 'node:fs';
import type { HttpResponse as UwsResponse } from '@trufflesuite/uws-js-unofficial';
import type { HttpFile } from './replies.ts';
import type { Answering } from './request.ts';

/**
 * Sends a file in chunks: each goes out with `tryEnd` against the whole size; what the socket
 * cannot take is retried from `onWritable`, and the file is not read further until it is taken.
 * `head` writes the status line and headers (false: the answer was dropped).
 */
export function sendFile(res: UwsResponse, state: Answering, reply: HttpFile, head: () => boolean): void {
  const stream = createReadStream(reply.file, { highWaterMark: 256 * 1024 });
  const finish = () => {
    state.aborted = true;
    stream.destroy();
  };
  state.cleanup = () => stream.destroy();
  let written = false;
  res.cork(() => {
    written = head();
  });
  if (!written) return finish();
  if (reply.size === 0) {
    finish();
    return void res.cork(() => res.end());
  }
  stream.on('data', (data) => {
    const chunk = data as Buffer;
    if (state.aborted) return void stream.destroy();
    const start = res.getWriteOffset();
    let ok = false;
    let done = false;
    res.cork(() => {
      [ok, done] = res.tryEnd(chunk, reply.size);
    });
    if (done) return finish();
    if (ok) return;
    stream.pause();
    res.onWritable((offset) => {
      if (state.aborted) return true;
      const [sent, over] = res.tryEnd(chunk.subarray(offset - start), reply.size);
      if (over) finish();
      else if (sent) stream.resume();
      return sent;
    });
  });
  // the file changed size or could not be read: the client sees a cut answer, not a wrong one
  const cut = () => {
    if (state.aborted) return;
    state.aborted = true;
    res.close();
  };
  stream.on('error', cut);
  stream.on('end', () => setImmediate(cut));
}
