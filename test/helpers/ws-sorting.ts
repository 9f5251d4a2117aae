// A WebSocket client that keeps results and subscription events apart, and a non-admin's token.
import type { RawClient } from './ws.ts';
import { authedClient } from './ws.ts';
import { exchange, login } from '../auth/harness.ts';

/**
 * A client that sorts what arrives: `ask` sends a command (ids increase) and resolves to its
 * result; `eventsOf` subscribes and hands out that subscription's events in order.
 */
export function sorting(c: RawClient) {
  let id = 0;
  const results = new Map<number, (m: any) => void>();
  const events = new Map<number, { queue: any[]; waiting: ((e: any) => void)[] }>();
  c.ws.on('message', (data) => {
    const parsed = JSON.parse(data.toString());
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (m.type === 'result') results.get(m.id)?.(m);
      else if (m.type === 'event') {
        const sub = events.get(m.id);
        if (!sub) continue;
        const w = sub.waiting.shift();
        if (w) w(m.event);
        else sub.queue.push(m.event);
      }
    }
  });
  const ask = (msg: Record<string, unknown>) =>
    new Promise<any>((resolve, reject) => {
      const mine = ++id;
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(msg)}`)), 5000);
      results.set(mine, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      c.send({ id: mine, ...msg });
    });
  const eventsOf = async (eventType: string) => {
    const sub = { queue: [] as any[], waiting: [] as ((e: any) => void)[] };
    events.set(id + 1, sub);
    const answer = await ask({ type: 'subscribe_events', event_type: eventType });
    if (!answer.success) throw new Error(`subscribe failed: ${JSON.stringify(answer)}`);
    return {
      next: () =>
        new Promise<any>((resolve, reject) => {
          if (sub.queue.length) return resolve(sub.queue.shift());
          const timer = setTimeout(() => reject(new Error(`no ${eventType} event`)), 5000);
          sub.waiting.push((e) => {
            clearTimeout(timer);
            resolve(e);
          });
        }),
      /** events received and not yet taken */
      pending: () => sub.queue.length,
    };
  };
  return { ask, eventsOf };
}

let users = 0;

/** A non-admin user's token (in `group`): created by the owner, logged in through the login flow. */
export async function userToken(base: string, ownerToken: string, group = 'system-users') {
  const c = await authedClient(base, ownerToken);
  const { ask } = sorting(c);
  const username = `user${++users}`;
  const created = await ask({ type: 'config/auth/create', name: username, group_ids: [group] });
  await ask({ type: 'config/auth_provider/homeassistant/create', user_id: created.result.user.id, username, password: 'user pass 123' });
  c.ws.close();
  const step = await login(base, username, 'user pass 123');
  const tokens = (await exchange(base, step.json.result)).json;
  return tokens.access_token as string;
}
