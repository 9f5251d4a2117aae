import type { Router } from '../router.ts';
import type { HttpStream } from '../replies.ts';
import type { ReadDeps } from '../core.ts';
import { eventJson } from '../../streams/event-json.ts';
import type { EventRecord } from '../../store/types.ts';

const chunks = new WeakMap<EventRecord, Buffer>();

/** A record as one SSE message, in bytes, made once and written to every stream. */
function sseChunk(r: EventRecord): Buffer {
  let chunk = chunks.get(r);
  if (!chunk) chunks.set(r, (chunk = Buffer.from(`data: ${eventJson(r)}\n\n`)));
  return chunk;
}

/** How long the stream may stay silent before a ping. */
export const STREAM_PING_MS = 50_000;

/** The event a stream always listens to, so it ends when Hearth stops. */
export const STOP_EVENT = 'core_stop';

/** GET /api/stream: bus events as Server-Sent Events (admin), optionally restricted by type. */
export function registerStreamRoute(root: Router, deps: ReadDeps, options: { pingMs?: number; stopEvent?: string | null } = {}): void {
  const router = root.of('api');
  const pingMs = options.pingMs ?? STREAM_PING_MS;
  // a replica passes on the primary's core_stop without ending its own streams (null)
  const stopEvent = options.stopEvent === undefined ? STOP_EVENT : options.stopEvent;
  router.get('/api/stream', { access: 'admin' }, (req): HttpStream => {
    const restrict = req.query.get('restrict');
    const types = restrict ? new Set([...restrict.split(',').map((s) => s.trim()).filter(Boolean), ...(stopEvent ? [stopEvent] : [])]) : undefined;
    return {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
      open(sink) {
        const releases = (types ? [...types] : ['*']).map((type) => deps.bus.countListener(type));
        let timer: NodeJS.Timeout;
        const arm = () => {
          clearTimeout(timer);
          timer = setTimeout(() => {
            if (sink.write('data: ping\n\n')) arm();
          }, pingMs);
        };
        const source = types ? deps.bus.events$ : deps.bus.ofType('*');
        const sub = source.subscribe(deps.bus.contained(`/api/stream of ${req.remoteIp}`, (r) => {
          if (types && !types.has(r.type)) return;
          if (r.type === stopEvent) return sink.end();
          // false: the router dropped the stream (the client is too far behind) or it is gone
          if (!sink.write(sseChunk(r))) return deps.log(`Closed /api/stream of ${req.remoteIp}: the client cannot keep up with the events`);
          arm();
        }));
        sink.write('data: ping\n\n');
        arm();
        return () => {
          clearTimeout(timer);
          sub.unsubscribe();
          releases.forEach((release) => release());
        };
      },
    };
  });
}
