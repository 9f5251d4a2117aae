// A WebSocket client that keeps results and subscription events apart, and a non-admin's token.
import type { RawClient } from './ws.ts';
import { authedClient } from './ws.ts';
import { exchange, login } from '../actors/auth/harness.ts';

/**
 * A client that sorts what arrives: `ask` sends a command (ids increase) and resolves to its
 * result; `next(id)` hands out the events of the subscription made by command `id`, in order
 * (any subscription: `subscribe_events`, `conversation/chat_log/subscribe`...); `eventsOf`
 * subscribes to an event type and wraps the two.
 */
export function sorting(c: RawClient) {
  let id = 0;
  const results = new Map<number, (m: any) => void>();
  const events = new Map<number, { queue: any[]; waiting: ((e: any) => void)[] }>();
  const subOf = (subId: number) => {
    let sub = events.get(subId);
    if (!sub) events.set(subId, (sub = { queue: [], waiting: [] }));
    return sub;
  };
  c.ws.on('message', (data) => {
    const parsed = JSON.parse(data.toString());
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      if (m.type === 'result') results.get(m.id)?.(m);
      else if (m.type === 'event') {
        const sub = subOf(m.id);
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
  const next = (subId: number, what = `event on ${subId}`) =>
    new Promise<any>((resolve, reject) => {
      const sub = subOf(subId);
      if (sub.queue.length) return resolve(sub.queue.shift());
      const timer = setTimeout(() => reject(new Error(`no ${what}`)), 5000);
      sub.waiting.push((e) => {
        clearTimeout(timer);
        resolve(e);
      });
    });
  /** events of a subscription received and not yet taken */
  const pending = (subId: number) => events.get(subId)?.queue.length ?? 0;
  const eventsOf = async (eventType: string) => {
    const answer = await ask({ type: 'subscribe_events', event_type: eventType });
    if (!answer.success) throw new Error(`subscribe failed: ${JSON.stringify(answer)}`);
    return { next: () => next(answer.id, `${eventType} event`), pending: () => pending(answer.id) };
  };
  /** the result of a command; a refusal throws, naming the command and its error */
  const result = async (msg: Record<string, unknown>) => {
    const answer = await ask(msg);
    if (!answer.success) throw new Error(`${msg.type}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  return { ask, result, next, pending, eventsOf };
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
