import type { HttpResponse as UwsResponse } from '@trufflesuite/uws-js-unofficial';
import type { OutputBudget, Backlogged } from './output-budget.ts';
import type { HttpStream, StreamSink } from './replies.ts';
import { remoteIpOf, type Answering } from './request.ts';

/** What one event-stream client may have waiting before it is dropped. */
const STREAM_BACKLOG_LIMIT = 4 * 1024 * 1024;

/**
 * Opens a streamed answer (SSE) once `head` has written its status line and headers (false: the
 * answer was dropped). A client more than STREAM_BACKLOG_LIMIT behind, or the furthest behind
 * when `budget` is spent, is closed.
 */
export function openStream(res: UwsResponse, state: Answering, reply: HttpStream, head: () => boolean, budget: OutputBudget): void {
  let written = false;
  res.cork(() => {
    written = head();
  });
  if (!written) return void (state.aborted = true);
  // uWS keeps what the socket cannot take yet and sends it as the socket drains (no onWritable
  // handler here: with one, uWS would leave its buffer to the handler). That is the client's
  // backlog, counted here and in the budget shared by every connection: a write that goes
  // straight out means nothing was left waiting before it
  let backlog = 0;
  const behind: Backlogged = { who: `the event stream of ${remoteIpOf(res)}`, drop: () => drop() };
  const drop = () => {
    if (state.aborted) return;
    state.aborted = true;
    // at once: ending gracefully would keep the backlog until the client reads it
    res.close();
  };
  const sink: StreamSink = {
    write: (chunk) => {
      if (state.aborted) return false;
      let ok = true;
      res.cork(() => {
        ok = res.write(chunk);
      });
      if (ok) {
        if (backlog > 0) budget.set(behind, (backlog = 0));
        return true;
      }
      backlog += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
      if (backlog >= STREAM_BACKLOG_LIMIT) {
        drop();
        return false;
      }
      budget.set(behind, backlog);
      return !state.aborted;
    },
    end: () => {
      if (state.aborted) return;
      state.aborted = true;
      state.cleanup?.();
      res.cork(() => res.end());
    },
  };
  const close = reply.open(sink);
  let closed = false;
  state.cleanup = () => {
    if (closed) return;
    closed = true;
    budget.set(behind, 0);
    close();
  };
  // dropped while it opened (its first write was already too much)
  if (state.aborted) state.cleanup();
}
