// The frontend's per-user data over a real Hearth WebSocket: the original's get/set/subscribe
// shapes, each user seeing only their own data, subscriptions hearing writes from another
// connection, records in the log that survive a restart, and clear errors for bad input.
import t from 'tap';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { userToken } from '../../helpers/ws-sorting.ts';
import { USER_DATA_LIMITS } from '../../../actors/frontend/user-data.ts';

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

t.test('frontend user data', async (t) => {
  const h = await startTestHearth(t);
  const tokens = await onboard(h.base);
  const owner = await authedClient(h.base, tokens.access_token);
  const ownerAgain = await authedClient(h.base, tokens.access_token);
  // a connection that only listens: ask() skips the events that come before its answers
  const listener = await authedClient(h.base, tokens.access_token);
  const other = await authedClient(h.base, await userToken(h.base, tokens.access_token));
  t.teardown(() => [owner, ownerAgain, listener, other].forEach((c) => c.ws.close()));

  t.test('get before any set: null for a key, {} for all', async (t) => {
    t.same(await ask(owner, { type: 'frontend/get_user_data', key: 'language' }), { id: nextId - 1, type: 'result', success: true, result: { value: null } });
    t.same((await ask(owner, { type: 'frontend/get_user_data' })).result, { value: {} });
  });

  t.test('set, then get one key and all of them', async (t) => {
    const set = await ask(owner, { type: 'frontend/set_user_data', key: 'language', value: { language: 'de', number_format: 'language' } });
    t.equal(set.success, true);
    t.equal(set.result, null);
    t.same((await ask(owner, { type: 'frontend/set_user_data', key: 'sidebar', value: { panelOrder: ['log'] } })).success, true);
    t.same((await ask(owner, { type: 'frontend/get_user_data', key: 'language' })).result, { value: { language: 'de', number_format: 'language' } });
    t.same((await ask(owner, { type: 'frontend/get_user_data' })).result, { value: { language: { language: 'de', number_format: 'language' }, sidebar: { panelOrder: ['log'] } } });
    // any JSON value, null and scalars included
    for (const value of [null, true, 3.5, 'x', [1, 'two']]) {
      t.equal((await ask(owner, { type: 'frontend/set_user_data', key: 'misc', value })).success, true);
      t.same((await ask(owner, { type: 'frontend/get_user_data', key: 'misc' })).result, { value });
    }
  });

  t.test("another user's data is not seen, and theirs is their own", async (t) => {
    t.same((await ask(other, { type: 'frontend/get_user_data', key: 'language' })).result, { value: null });
    t.same((await ask(other, { type: 'frontend/get_user_data' })).result, { value: {} });
    t.equal((await ask(other, { type: 'frontend/set_user_data', key: 'language', value: { language: 'en', number_format: 'language' } })).success, true);
    t.same((await ask(owner, { type: 'frontend/get_user_data', key: 'language' })).result.value.language, 'de', "the owner's stays");
  });

  t.test('subscribe: the value at once, then every change, from another connection too', async (t) => {
    const id = nextId++;
    owner.send({ id, type: 'frontend/subscribe_user_data', key: 'language' });
    const first = await owner.until((m) => m.id === id);
    t.same(first, { id, type: 'event', event: { value: { language: 'de', number_format: 'language' } } }, 'the current value comes first');
    t.same(await owner.until((m) => m.id === id), { id, type: 'result', success: true, result: null });

    const allId = nextId++;
    listener.send({ id: allId, type: 'frontend/subscribe_user_data' });
    t.same(Object.keys((await listener.until((m) => m.id === allId)).event.value).sort(), ['language', 'misc', 'sidebar']);
    await listener.until((m) => m.id === allId && m.type === 'result');

    // written on the second connection, heard on the first
    t.equal((await ask(ownerAgain, { type: 'frontend/set_user_data', key: 'language', value: { language: 'en', number_format: 'none' } })).success, true);
    t.same((await owner.until((m) => m.id === id)).event, { value: { language: 'en', number_format: 'none' } });
    t.same((await listener.until((m) => m.id === allId)).event.value.language, { language: 'en', number_format: 'none' }, 'a subscription to all keys hears it too');

    // another key does not wake a subscription to one key; another user's write wakes neither
    t.equal((await ask(other, { type: 'frontend/set_user_data', key: 'language', value: { language: 'de', number_format: 'language' } })).success, true);
    t.equal((await ask(ownerAgain, { type: 'frontend/set_user_data', key: 'sidebar', value: {} })).success, true);
    t.equal((await ask(ownerAgain, { type: 'frontend/set_user_data', key: 'language', value: { language: 'de', number_format: 'language' } })).success, true);
    t.same((await owner.until((m) => m.id === id)).event.value, { language: 'de', number_format: 'language' }, 'the next event is the next change of this key');

    const unsub = await ask(owner, { type: 'unsubscribe_events', subscription: id });
    t.equal(unsub.success, true);
  });

  t.test('bad input: a clear error, never a crash', async (t) => {
    const missing = await ask(owner, { type: 'frontend/set_user_data', key: 'language' });
    t.equal(missing.success, false);
    t.equal(missing.error.code, 'invalid_format');
    const badKey = await ask(owner, { type: 'frontend/get_user_data', key: 5 });
    t.equal(badKey.error.code, 'invalid_format');
    const extra = await ask(owner, { type: 'frontend/subscribe_user_data', key: 'x', other: 1 });
    t.equal(extra.error.code, 'invalid_format');
    const big = await ask(owner, { type: 'frontend/set_user_data', key: 'big', value: 'x'.repeat(USER_DATA_LIMITS.valueBytes + 10) });
    t.equal(big.success, false);
    t.equal(big.error.code, 'invalid_format');
    t.match(big.error.message, /bytes as JSON; at most \d+ are kept/);
    const longKey = await ask(owner, { type: 'frontend/set_user_data', key: 'k'.repeat(USER_DATA_LIMITS.keyLength + 1), value: 1 });
    t.match(longKey.error, { code: 'invalid_format', message: /key is longer/ });
    const empty = await ask(owner, { type: 'frontend/set_user_data', key: '', value: 1 });
    t.match(empty.error, { code: 'invalid_format', message: /must not be empty/ });
    t.same((await ask(owner, { type: 'frontend/get_user_data', key: 'big' })).result, { value: null }, 'nothing refused was kept');
  });

  t.test('the data survives a restart', async (t) => {
    await h.hearth.stop();
    const again = await startTestHearth(t, { dataDir: h.dataDir });
    const c = await authedClient(again.base, tokens.access_token);
    t.teardown(() => c.ws.close());
    t.same((await ask(c, { type: 'frontend/get_user_data', key: 'language' })).result, { value: { language: 'de', number_format: 'language' } });
    t.same((await ask(c, { type: 'frontend/get_user_data', key: 'sidebar' })).result, { value: {} });
    // and after a snapshot too
    await again.hearth.snapshot();
    await again.hearth.stop();
    const third = await startTestHearth(t, { dataDir: h.dataDir });
    const c3 = await authedClient(third.base, tokens.access_token);
    t.teardown(() => c3.ws.close());
    t.same((await ask(c3, { type: 'frontend/get_user_data' })).result.value.language, { language: 'de', number_format: 'language' });
  });
});
