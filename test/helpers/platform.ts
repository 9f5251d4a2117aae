// A real Hearth with virtual entities, and a client that drives them over REST and WebSocket.
import { startTestHearth, onboard, api, type TestHearth } from './hearth.ts';
import { authedClient, type RawClient } from './ws.ts';
import type { HearthOptions } from '../../bin/instance.ts';

export interface VirtualHome extends TestHearth {
  rest: ReturnType<typeof api>;
  ws: RawClient;
  /** POST /api/services/<domain>/<service> */
  call(domain: string, service: string, data?: Record<string, unknown>): ReturnType<ReturnType<typeof api>>;
  /** call_service over the WebSocket; resolves to its result message */
  wsCall(domain: string, service: string, data?: Record<string, unknown>, target?: Record<string, unknown>): Promise<any>;
  /** GET /api/states/<entity_id> (the JSON, or undefined on 404) */
  state(entityId: string): Promise<any>;
  /**
   * The next state_changed of an entity the WebSocket client sees (the first matching `pred`;
   * that entity's changes before it are passed over).
   */
  changed(entityId: string, pred?: (newState: any) => boolean, timeoutMs?: number): Promise<{ old_state: any; new_state: any; context: any }>;
  /** the state_changed new states of an entity seen and not yet taken */
  pending(entityId: string): any[];
  /** the next bus event of a type the WebSocket client sees */
  event(eventType: string, timeoutMs?: number): Promise<any>;
}

let nextId = 100;

/** Starts Hearth with `config` (configuration.yaml text), onboards, and subscribes a WebSocket client to every event. */
export async function virtualHome(t: { teardown(fn: () => unknown): void }, config: string, options: { dataDir?: string; tokens?: { access_token: string } } & Partial<HearthOptions> = {}): Promise<VirtualHome & { tokens: { access_token: string } }> {
  const started = await startTestHearth(t, { config: options.dataDir ? undefined : config, ...options });
  const tokens = options.tokens ?? (await onboard(started.base));
  const rest = api(started.base, tokens.access_token);
  const ws = await authedClient(started.base, tokens.access_token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'subscribe_events' });
  await ws.until((m) => m.id === 1 && m.type === 'result');
  const seen: any[] = [];
  const waiting: Array<{ pred: (m: any) => boolean; kind: (m: any) => boolean; resolve: (m: any) => void }> = [];
  // the first event of its kind (an entity's changes, a type of event) that matches; the ones of
  // that kind before it are passed over for good, so a later wait never meets a stale one
  const take = async (pred: (m: any) => boolean, timeoutMs: number, kind: (m: any) => boolean = pred) => {
    const i = seen.findIndex(pred);
    if (i >= 0) {
      const match = seen[i];
      for (let j = i; j >= 0; j--) if (kind(seen[j])) seen.splice(j, 1);
      return match;
    }
    for (let j = seen.length - 1; j >= 0; j--) if (kind(seen[j])) seen.splice(j, 1);
    return new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no such event within timeout')), timeoutMs);
      waiting.push({ pred, kind, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  };
  // events are kept until a test asks for them; results go to their caller
  const results = new Map<number, (m: any) => void>();
  ws.ws.on('message', (frame) => {
    const parsed = JSON.parse(frame.toString());
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (m.type === 'result' && results.has(m.id)) {
        results.get(m.id)!(m);
        results.delete(m.id);
        continue;
      }
      if (m.type !== 'event') continue;
      const w = waiting.findIndex((x) => x.pred(m.event));
      if (w >= 0) waiting.splice(w, 1)[0].resolve(m.event);
      // passed over by a wait for its kind: never met again
      else if (!waiting.some((x) => x.kind(m.event))) seen.push(m.event);
    }
  });
  return {
    ...started,
    tokens,
    rest,
    ws,
    call: (domain, service, data = {}) => rest('POST', `/api/services/${domain}/${service}`, data),
    wsCall: (domain, service, data = {}, target) => {
      const id = nextId++;
      const answer = new Promise<any>((resolve) => results.set(id, resolve));
      ws.send({ id, type: 'call_service', domain, service, service_data: data, ...(target ? { target } : {}) });
      return answer;
    },
    state: async (entityId) => {
      const res = await rest('GET', `/api/states/${entityId}`);
      return res.status === 200 ? res.json : undefined;
    },
    changed: async (entityId, pred = () => true, timeoutMs = 5000) => {
      const ofEntity = (ev: any) => ev.event_type === 'state_changed' && ev.data.entity_id === entityId;
      const e = await take((ev) => ofEntity(ev) && pred(ev.data.new_state), timeoutMs, ofEntity);
      return { ...e.data, context: e.context };
    },
    event: (eventType, timeoutMs = 5000) => take((ev) => ev.event_type === eventType, timeoutMs),
    pending: (entityId) => seen.filter((ev) => ev.event_type === 'state_changed' && ev.data.entity_id === entityId).map((ev) => ev.data.new_state),
  };
}

/** Stops a home and starts Hearth again on its data directory (the configuration kept), with the same owner. */
export async function restarted(t: { teardown(fn: () => unknown): void }, home: VirtualHome & { tokens: { access_token: string } }, options: Partial<HearthOptions> = {}) {
  home.ws.ws.close();
  await home.hearth.stop();
  return virtualHome(t, '', { dataDir: home.dataDir, tokens: home.tokens, ...options });
}
