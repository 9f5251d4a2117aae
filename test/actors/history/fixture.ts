// A real Hearth with a day of recorded states, written through the REST API on a manual clock so
// every time in the answers is known. Tokens are long-lived ones: the clock moves by hours.
import { manualClock } from '../../../actors/clock.ts';
import { startTestHearth, onboard, api, type TestHearth } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { exchange, login } from '../auth/harness.ts';

export const T0 = Date.UTC(2026, 0, 1);
export const H = 3_600_000;
/** `T0 + hours` as the original prints it */
export const iso = (hours: number) => new Date(T0 + hours * H).toISOString().replace(/\.000Z$/, '+00:00').replace(/Z$/, '+00:00');
/** `T0 + hours` in epoch seconds (the compressed rows' times) */
export const secs = (hours: number) => (T0 + hours * H) / 1000;

export const CONFIG = `core:
  time_zone: Europe/Amsterdam
  auth_groups:
    - id: sensors_only
      policy:
        entities:
          domains:
            sensor:
              read: true
`;

let nextId = 1_000;
/** A message id above every one used before (a connection refuses ids that do not grow). */
export const freshId = () => nextId++;

/** Sends a command and waits for its result. */
export async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

async function longLived(base: string, accessToken: string): Promise<string> {
  const ws = await authedClient(base, accessToken);
  const r = await ask(ws, { type: 'auth/long_lived_access_token', client_name: `history ${nextId}`, lifespan: 3650 });
  ws.ws.close();
  if (!r.success) throw new Error(`no long-lived token: ${JSON.stringify(r.error)}`);
  return r.result;
}

export interface HistoryHearth extends TestHearth {
  clock: ReturnType<typeof manualClock>;
  ownerToken: string;
  /** a user of the group that reads sensors only */
  readerToken: string;
  owner: ReturnType<typeof api>;
  reader: ReturnType<typeof api>;
  /** sets the clock to `T0 + hours` and writes a state as the owner */
  post(hours: number, entityId: string, state: string, attributes?: Record<string, unknown>): Promise<void>;
}

/**
 * The recorded day (hours after T0):
 * - sensor.temp: 1h "20" {unit}, 2h "21", 3h "21" with an extra attribute (attributes only), 4h "22"
 * - light.kitchen: 1.5h "on", 2.5h "off"
 * - climate.hall (a significant domain): 1h "heat" {t: 20}, 2h "heat" {t: 21}
 * - sensor.gone: 1h "1", removed at 5h
 */
export async function historyHearth(t: Parameters<typeof startTestHearth>[0], options: { dataDir?: string } = {}): Promise<HistoryHearth> {
  const clock = manualClock(T0);
  const th = await startTestHearth(t, { config: CONFIG, clock, ...options });
  const tokens = await onboard(th.base);
  const ownerToken = await longLived(th.base, tokens.access_token);
  const owner = api(th.base, ownerToken);
  const ws = await authedClient(th.base, ownerToken);
  const created = await ask(ws, { type: 'config/auth/create', name: 'reader', group_ids: ['sensors_only'] });
  await ask(ws, { type: 'config/auth_provider/homeassistant/create', user_id: created.result.user.id, username: 'reader', password: 'reader-password' });
  ws.ws.close();
  const step = await login(th.base, 'reader', 'reader-password');
  const readerToken = await longLived(th.base, (await exchange(th.base, step.json.result)).json.access_token);
  const post = async (hours: number, entityId: string, state: string, attributes: Record<string, unknown> = {}) => {
    clock.set(T0 + hours * H);
    const r = await owner('POST', `/api/states/${entityId}`, { state, attributes });
    if (r.status >= 300) throw new Error(`POST ${entityId}: ${r.status} ${r.text}`);
  };
  await post(1, 'sensor.temp', '20', { unit: '°C' });
  await post(2, 'sensor.temp', '21', { unit: '°C' });
  await post(3, 'sensor.temp', '21', { unit: '°C', trend: 'flat' });
  await post(4, 'sensor.temp', '22', { unit: '°C', trend: 'up' });
  await post(1.5, 'light.kitchen', 'on');
  await post(2.5, 'light.kitchen', 'off');
  await post(1, 'climate.hall', 'heat', { t: 20 });
  await post(2, 'climate.hall', 'heat', { t: 21 });
  await post(1, 'sensor.gone', '1');
  clock.set(T0 + 5 * H);
  await owner('DELETE', '/api/states/sensor.gone');
  clock.set(T0 + 26 * H);
  return { ...th, clock, ownerToken, readerToken, owner, reader: api(th.base, readerToken), post };
}
