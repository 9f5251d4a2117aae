// A Hearth instance connected to a test Mosquitto, a device's side of the broker, and ways to
// wait for what a client sees.
import { connectAsync, type MqttClient } from 'mqtt';
import { startTestHearth, onboard, api, type TestHearth } from './hearth.ts';
import { startMosquitto, type TestBroker } from './mosquitto.ts';
import { authedClient, type RawClient } from './ws.ts';

export interface MqttScene {
  broker: TestBroker;
  h: TestHearth;
  /** the devices' side of the broker: publishes discovery and states, sees commands */
  peer: MqttClient;
  /** messages the device saw, `topic=payload` */
  seen: string[];
  call: ReturnType<typeof api>;
  token: string;
  state(entityId: string): Promise<any>;
  /** the id for a WebSocket message sent by hand (ids must grow) */
  nextId(): number;
  /** a WebSocket command's result (throws on an error answer) */
  ws(type: string, extra?: Record<string, unknown>): Promise<any>;
  client: RawClient;
  /** publishes as the device, retained unless told otherwise */
  publish(topic: string, payload: unknown, retain?: boolean): Promise<void>;
  /** waits until an entity's state passes `check` */
  until(entityId: string, check: (s: any) => boolean, what?: string): Promise<any>;
  /** waits until entities exist (their discovery handled and their topics subscribed) */
  exist(...entityIds: string[]): Promise<void>;
  /** the device registry entry with this identifier (`['mqtt', id]`) */
  device(identifier: string): Promise<any>;
  /** the entity registry entry of an entity id */
  entry(entityId: string): Promise<any>;
}

/** Polls until `check` gives something other than undefined/false. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** Mosquitto, Hearth with `mqtt: broker: ...` (plus `extraYaml` in the section), a device client subscribed to `#`. */
export async function mqttScene(t: { teardown(fn: () => unknown): void }, options: { extraYaml?: string; dataDir?: string; broker?: TestBroker; /** an access token of an instance onboarded before (a restart) */ token?: string } = {}): Promise<MqttScene> {
  const broker = options.broker ?? (await startMosquitto(t));
  const config = `mqtt:\n  broker: 127.0.0.1\n  port: ${broker.port}\n${options.extraYaml ?? ''}`;
  const h = await startTestHearth(t, options.dataDir ? { dataDir: options.dataDir } : { config });
  const peer = await connectAsync(broker.url);
  t.teardown(() => peer.endAsync(true));
  const seen: string[] = [];
  peer.on('message', (topic, payload) => seen.push(`${topic}=${payload.toString()}`));
  await peer.subscribeAsync('#');
  const access_token = options.token ?? (await onboard(h.base)).access_token;
  const call = api(h.base, access_token);
  await eventually(() => h.lines.some((l) => l.startsWith('Connected to MQTT server')), 'Hearth connected');
  const client = await authedClient(h.base, access_token);
  t.teardown(() => client.ws.close());
  let lastId = 0;
  const nextId = () => ++lastId;
  const ws = async (type: string, extra: Record<string, unknown> = {}) => {
    const id = nextId();
    client.send({ id, type, ...extra });
    const m = await client.until((x) => x.id === id && x.type === 'result', 10_000);
    if (!m.success) throw new Error(`${type}: ${JSON.stringify(m.error)}`);
    return m.result;
  };
  const state = async (entityId: string) => {
    const r = await call('GET', `/api/states/${entityId}`);
    return r.status === 200 ? r.json : undefined;
  };
  return {
    broker,
    h,
    peer,
    seen,
    call,
    token: access_token,
    state,
    ws,
    nextId,
    client,
    publish: async (topic, payload, retain = true) => {
      await peer.publishAsync(topic, typeof payload === 'string' ? payload : JSON.stringify(payload), { retain });
    },
    until: (entityId, check, what) => eventually(async () => {
      const st = await state(entityId);
      return st && check(st) ? st : undefined;
    }, what ?? `${entityId} as expected`),
    exist: async (...ids) => {
      for (const id of ids) await eventually(async () => (await state(id)) !== undefined, `${id} to exist`);
      // the broker has the entity's subscriptions once Hearth has had its SUBACK; a ping through them settles it
      await new Promise((r) => setTimeout(r, 150));
    },
    device: async (identifier) => (await ws('config/device_registry/list')).find((d: any) => d.identifiers.some((p: any) => p[0] === 'mqtt' && p[1] === identifier)),
    entry: async (entityId) => ((await ws('config/entity_registry/list')).some((e: any) => e.entity_id === entityId) ? ws('config/entity_registry/get', { entity_id: entityId }) : undefined),
  };
}
