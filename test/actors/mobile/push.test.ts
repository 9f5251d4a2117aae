// Push notifications to companion apps (core-wire §6.8, §6.9): the legacy notify service per
// push-capable registration, delivery through a real local HTTP relay and through the app's
// local WebSocket channel with confirmations, the fallback of unconfirmed messages, and the
// clear_notification action. Every notification leaves a record in the log, never the token.
import t, { type Test } from 'tap';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHearth, onboard, api, type TestHearth } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { userToken } from '../../helpers/ws-sorting.ts';
import { register, hook } from './app.ts';
import type { EventRecord } from '../../../store/types.ts';

/** What the relay received. */
interface Received {
  path: string;
  contentType: string | undefined;
  text: string;
  json: any;
}

type Answer = (req: Received, res: ServerResponse) => void;

/** A real HTTP relay on a free port: records each request and answers with the next scripted answer. */
async function startRelay(t: Test) {
  const received: Received[] = [];
  const waiters: Array<(r: Received) => void> = [];
  const answers: Answer[] = [];
  const ok: Answer = (_req, res) => reply(res, 201, { rateLimits: { successful: 12, maximum: 150, errors: 0, resetsAt: '2099-01-01T00:00:00Z' } });
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '', contentType: req.headers['content-type'], text: body, json: JSON.parse(body) };
      received.push(r);
      (answers.shift() ?? ok)(r, res);
      waiters.shift()?.(r);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/push`;
  return {
    url,
    received,
    /** the answers to the next requests, in order (then the default: 201 with rateLimits) */
    answer: (...a: Answer[]) => answers.push(...a),
    /** the next request (already received or still to come) */
    next: (seen = received.length) =>
      new Promise<Received>((resolve) => {
        if (received.length > seen) resolve(received[seen]);
        else waiters.push(resolve);
      }),
  };
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

interface Ids {
  relay: string;
  local: string;
  both: string;
  plain: string;
  other: string;
  old: string;
}

interface Home {
  th: TestHearth;
  call: ReturnType<typeof api>;
  token: string;
  relay: Awaited<ReturnType<typeof startRelay>>;
  ids: Ids;
  records(): Promise<EventRecord[]>;
}

/**
 * A hearth with registrations made through the API: relay only (two, one without os_version),
 * local only, both, no push, and another user's; and a relay.
 */
async function home(t: Test): Promise<Home> {
  const relay = await startRelay(t);
  const th = await startTestHearth(t, { mobilePush: { confirmTimeoutMs: 300, relayTimeoutMs: 300 } });
  const { access_token: token } = await onboard(th.base);
  const call = api(th.base, token);
  const other = api(th.base, await userToken(th.base, token));
  const make = async (c: typeof call, device_name: string, app_data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    (await register(c, { device_name, device_id: `id-${device_name}`, app_data, ...extra })).webhook_id;
  const ids: Ids = {
    relay: await make(call, 'Pixel 7', { push_token: 'tok-relay', push_url: relay.url }, { os_version: '14' }),
    local: await make(call, 'iPad Kitchen', { push_websocket_channel: true }),
    both: await make(call, 'Both Ways', { push_token: 'tok-both', push_url: relay.url, push_websocket_channel: true }),
    plain: await make(call, 'Plain Phone', {}),
    other: await make(other, 'Not Mine', { push_websocket_channel: true }),
    old: await make(call, 'Old Phone', { push_token: 'tok-old', push_url: relay.url }, { os_version: undefined }),
  };
  await th.hearth.mobilePush.settled();
  const records = async () => {
    const out: EventRecord[] = [];
    for await (const r of th.hearth.log.readStreams('mobile_app/push/')) out.push(r);
    return out;
  };
  return { th, call, token, relay, ids, records };
}

const notifyPath = (name: string) => `/api/services/notify/${name}`;

/** Waits for a record of the log matching `pred`, reading as records commit. */
function recordOf(h: Home, pred: (r: EventRecord) => boolean): Promise<EventRecord> {
  return new Promise((resolve) => {
    const stop = h.th.hearth.log.onCommit((batch) => {
      const hit = batch.find(pred);
      if (hit) {
        stop();
        resolve(hit);
      }
    });
    void h.records().then((all) => {
      const hit = all.find(pred);
      if (hit) {
        stop();
        resolve(hit);
      }
    });
  });
}

/** A message a client may receive only if nothing else came before it: the pong of a ping. */
async function nothingPending(c: RawClient, id: number): Promise<any> {
  c.send({ id, type: 'ping' });
  return c.next();
}

t.test('a notify service per registration that supports push; removed with the registration', async (t) => {
  const h = await home(t);
  const services = (await h.call('GET', '/api/services')).json as Array<{ domain: string; services: Record<string, any> }>;
  const notify = services.find((d) => d.domain === 'notify')!;
  t.same(Object.keys(notify.services).sort(), ['mobile_app', 'mobile_app_both_ways', 'mobile_app_ipad_kitchen', 'mobile_app_not_mine', 'mobile_app_old_phone', 'mobile_app_pixel_7']);
  t.ok(notify.services.mobile_app_pixel_7.fields.message.required);

  // an open channel of a deleted registration ends with it
  const c = await authedClient(h.th.base, h.token);
  c.send({ id: 2, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.local });
  await c.next();
  const context = { id: 'del', parent_id: null, user_id: null };
  t.ok(await h.th.hearth.mobile.delete(h.ids.relay, context));
  t.ok(await h.th.hearth.mobile.delete(h.ids.local, context));
  await h.th.hearth.mobilePush.settled();
  c.send({ id: 3, type: 'unsubscribe_events', subscription: 2 });
  t.same(await c.next(), { id: 3, type: 'result', success: false, error: { code: 'not_found', message: 'Subscription not found.' } });
  c.ws.close();
  const after = (await h.call('GET', '/api/services')).json as Array<{ domain: string; services: Record<string, any> }>;
  t.notOk('mobile_app_pixel_7' in after.find((d) => d.domain === 'notify')!.services);
  const res = await h.call('POST', notifyPath('mobile_app_pixel_7'), { message: 'hi' });
  t.equal(res.status, 400, 'a removed service is unknown');
  t.equal(h.relay.received.length, 0);
  const removed = [];
  for await (const r of h.th.hearth.log.read()) if (r.type === 'service_removed') removed.push(r.data);
  t.same(removed, [
    { domain: 'notify', service: 'mobile_app_pixel_7' },
    { domain: 'notify', service: 'mobile_app_ipad_kitchen' },
  ], 'service_removed recorded');
});

t.test('notify.mobile_app: the targets named, else every push registration; templates rendered', async (t) => {
  const h = await home(t);
  // local-only devices without a channel fail the call, after the others were sent
  const all = await h.call('POST', notifyPath('mobile_app'), { message: 'To all' });
  t.equal(all.status, 400);
  t.same(all.json, { message: `Device(s) with webhook id(s) ${h.ids.local}, ${h.ids.other} not connected to local push notifications` });
  t.same(h.relay.received.map((r) => r.json.registration_info.webhook_id).sort(), [h.ids.relay, h.ids.both, h.ids.old].sort());

  const one = await h.call('POST', notifyPath('mobile_app'), { message: 'Lights: {{ 1 + 2 }}', title: '{{ "up" | upper }}', target: [h.ids.both] });
  t.equal(one.status, 200);
  t.equal(h.relay.received.length, 4);
  t.same(h.relay.received[3].json.message, 'Lights: 3');
  t.same(h.relay.received[3].json.title, 'UP');
  t.equal(h.relay.received[3].json.push_token, 'tok-both');

  // a device's own service ignores `target`
  await h.call('POST', notifyPath('mobile_app_pixel_7'), { message: 'mine', target: h.ids.both });
  t.equal(h.relay.received[4].json.registration_info.webhook_id, h.ids.relay);

  const broken = await h.call('POST', notifyPath('mobile_app_pixel_7'), { message: '{{ 1 + }}' });
  t.equal(broken.status, 400);
  t.match(broken.json.message, /^TemplateSyntaxError: /);
  t.equal(h.relay.received.length, 5, 'nothing sent for a broken template');
});

t.test('the relay gets the exact JSON; rate limits are logged; the log records it without the token', async (t) => {
  const h = await home(t);
  const res = await h.call('POST', notifyPath('mobile_app_pixel_7'), { message: 'Door opened', title: 'Alarm', data: { tag: 'door' } });
  t.equal(res.status, 200);
  t.same(res.json, []);
  const got = h.relay.received[0];
  t.equal(got.path, '/push');
  t.match(got.contentType, /^application\/json/);
  t.equal(
    got.text,
    JSON.stringify({
      message: 'Door opened',
      title: 'Alarm',
      data: { tag: 'door' },
      push_token: 'tok-relay',
      registration_info: { app_id: 'io.robbie.HomeAssistant', app_version: '2025.1', webhook_id: h.ids.relay, os_version: '14' },
    }),
  );
  t.ok(
    h.th.lines.some((l) => /mobile_app push notification rate limits for Pixel 7: 12 sent, 150 allowed, 0 errors, resets in \d+:\d\d:\d\d/.test(l)),
    'rate limits logged',
  );

  // the default title is left out, and data when not given; os_version when unknown
  await h.call('POST', notifyPath('mobile_app_old_phone'), { message: 'Plain', title: 'Home Assistant' });
  t.same(h.relay.received[1].json, {
    message: 'Plain',
    push_token: 'tok-old',
    registration_info: { app_id: 'io.robbie.HomeAssistant', app_version: '2025.1', webhook_id: h.ids.old },
  });

  const records = await h.records();
  const sent = records.filter((r) => r.type === 'push_sent');
  t.equal(sent.length, 2);
  t.equal(sent[0].stream, `mobile_app/push/${h.ids.relay}`);
  t.same(sent[0].data, { webhook_id: h.ids.relay, via: 'relay', message: 'Door opened', title: 'Alarm', data: { tag: 'door' } });
  t.notOk(JSON.stringify(records).includes('tok-relay'), 'no push token in the log');
});

t.test('relay failures: 429, an error with a message, an internal error, a timeout', async (t) => {
  const h = await home(t);
  h.relay.answer(
    (_r, res) => reply(res, 429, { message: 'Too many notifications', rateLimits: { successful: 150, maximum: 150, errors: 3, resetsAt: '2099-01-01T00:00:00Z' } }),
    (_r, res) => reply(res, 400, { message: 'Invalid push token' }),
    (_r, res) => reply(res, 500, { errorMessage: 'boom' }),
    () => {
      /* never answers: the relay is too slow */
    },
  );
  const send = (message: string) => h.call('POST', notifyPath('mobile_app_pixel_7'), { message });
  // the legacy service logs relay failures and completes, as the original's does
  for (const m of ['one', 'two', 'three', 'four']) t.equal((await send(m)).status, 200, `${m} completes`);
  t.equal(h.relay.received.length, 4);

  const failed = (await h.records()).filter((r) => r.type === 'push_failed').map((r) => r.data);
  t.same(failed, [
    { webhook_id: h.ids.relay, via: 'relay', code: 'rate_limit_exceeded_sending_notification', message: 'Too many notifications. This message is generated externally to Home Assistant.', status: 429 },
    { webhook_id: h.ids.relay, via: 'relay', code: 'error_sending_notification', message: 'Invalid push token. This message is generated externally to Home Assistant.', status: 400 },
    { webhook_id: h.ids.relay, via: 'relay', code: 'error_sending_notification', message: 'Internal server error, please try again later: boom', status: 500 },
    { webhook_id: h.ids.relay, via: 'relay', code: 'timeout_sending_notification', message: 'Timeout sending notification to Pixel 7' },
  ]);
  const c = await authedClient(h.th.base, h.token);
  c.send({ id: 1, type: 'system_log/list' });
  const captured = (await c.next()).result as Array<{ level: string; message: string[] }>;
  c.ws.close();
  const at = (level: string, text: string) => captured.some((e) => e.level === level && e.message.some((m) => m.includes(text)));
  t.ok(at('WARNING', 'Too many notifications. This message is generated externally to Home Assistant.'), '429 is a warning');
  t.ok(at('WARNING', 'rate limits for Pixel 7: 150 sent, 150 allowed, 3 errors'), 'its rate limits too');
  t.ok(at('ERROR', 'Invalid push token. This message is generated externally'), 'other failures are errors');
  t.ok(at('ERROR', 'Timeout sending notification to Pixel 7'), 'a timeout too');
  t.notOk((await h.records()).some((r) => r.type === 'push_sent'));
});

t.test('a device with neither relay nor open channel fails the call', async (t) => {
  const h = await home(t);
  const res = await h.call('POST', notifyPath('mobile_app_ipad_kitchen'), { message: 'hi' });
  t.equal(res.status, 400);
  t.same(res.json, { message: `Device(s) with webhook id(s) ${h.ids.local} not connected to local push notifications` });
  const bad = await h.call('POST', notifyPath('mobile_app_ipad_kitchen'), { title: 'no message' });
  t.equal(bad.status, 400, 'message is required');
});

t.test('channel errors: unknown webhook, another user\'s webhook, confirm without channel', async (t) => {
  const h = await home(t);
  const c = await authedClient(h.th.base, h.token);
  c.send({ id: 5, type: 'mobile_app/push_notification_channel', webhook_id: 'nope' });
  t.same(await c.next(), { id: 5, type: 'result', success: false, error: { code: 'not_found', message: 'Webhook ID not found' } });
  c.send({ id: 6, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.other });
  t.same(await c.next(), { id: 6, type: 'result', success: false, error: { code: 'unauthorized', message: 'User not linked to this webhook ID' } });
  c.send({ id: 7, type: 'mobile_app/push_notification_confirm', webhook_id: h.ids.local, confirm_id: 'x' });
  t.same(await c.next(), { id: 7, type: 'result', success: false, error: { code: 'not_found', message: 'Push notification channel not found' } });
  c.send({ id: 8, type: 'mobile_app/push_notification_confirm', webhook_id: h.ids.other, confirm_id: 'x' });
  t.same(await c.next(), { id: 8, type: 'result', success: false, error: { code: 'unauthorized', message: 'User not linked to this webhook ID' } });
  c.send({ id: 9, type: 'mobile_app/push_notification_channel' });
  t.match(await c.next(), { id: 9, success: false, error: { code: 'invalid_format' } });
  c.ws.close();
});

t.test('local channel with confirmations: preferred over the relay, confirmed once', async (t) => {
  const h = await home(t);
  const c = await authedClient(h.th.base, h.token);
  c.send({ id: 20, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.both, support_confirm: true });
  t.same(await c.next(), { id: 20, type: 'result', success: true, result: null });

  const res = await h.call('POST', notifyPath('mobile_app_both_ways'), { message: 'Hello world', title: 'test', data: { tag: 'x' } });
  t.equal(res.status, 200);
  const ev = await c.next();
  t.equal(ev.id, 20);
  t.equal(ev.type, 'event');
  t.match(ev.event.hass_confirm_id, /^[0-9a-f]{32}$/);
  t.same(Object.keys(ev.event), ['message', 'title', 'data', 'hass_confirm_id']);
  t.same(ev.event, { message: 'Hello world', title: 'test', data: { tag: 'x' }, hass_confirm_id: ev.event.hass_confirm_id });

  c.send({ id: 21, type: 'mobile_app/push_notification_confirm', webhook_id: h.ids.both, confirm_id: ev.event.hass_confirm_id });
  t.same(await c.next(), { id: 21, type: 'result', success: true, result: null });
  c.send({ id: 22, type: 'mobile_app/push_notification_confirm', webhook_id: h.ids.both, confirm_id: ev.event.hass_confirm_id });
  t.same(await c.next(), { id: 22, type: 'result', success: false, error: { code: 'not_found', message: 'Push notification channel not found' } });

  const records = await h.records();
  t.same(
    records.map((r) => [r.type, r.data.via]),
    [
      ['push_sent', 'websocket'],
      ['push_confirmed', 'websocket'],
    ],
  );
  t.equal(records[1].data.confirm_id, ev.event.hass_confirm_id);
  t.equal(h.relay.received.length, 0, 'nothing went to the relay');

  // the confirmed channel is still open: the next message arrives on it too
  await h.call('POST', notifyPath('mobile_app_both_ways'), { message: 'again' });
  t.equal((await c.next()).event.message, 'again');
  c.ws.close();
});

t.test('unconfirmed: the channel is torn down and every pending message re-sent through the relay', async (t) => {
  const h = await home(t);
  const c = await authedClient(h.th.base, h.token);
  c.send({ id: 30, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.both, support_confirm: true });
  await c.next();
  await h.call('POST', notifyPath('mobile_app_both_ways'), { message: 'first' });
  await h.call('POST', notifyPath('mobile_app_both_ways'), { message: 'second', data: { tag: 't' } });
  const a = await c.next();
  const b = await c.next();

  const first = await h.relay.next(0);
  const second = await h.relay.next(1);
  t.same(first.json, {
    message: 'first',
    hass_confirm_id: a.event.hass_confirm_id,
    push_token: 'tok-both',
    registration_info: { app_id: 'io.robbie.HomeAssistant', app_version: '2025.1', webhook_id: h.ids.both, os_version: '18.2' },
  });
  t.same(second.json.message, 'second');
  t.same(second.json.data, { tag: 't' });
  t.equal(second.json.hass_confirm_id, b.event.hass_confirm_id);

  // the subscription is gone: unsubscribing it is refused, confirming is refused
  c.send({ id: 31, type: 'unsubscribe_events', subscription: 30 });
  t.same(await c.next(), { id: 31, type: 'result', success: false, error: { code: 'not_found', message: 'Subscription not found.' } });
  c.send({ id: 32, type: 'mobile_app/push_notification_confirm', webhook_id: h.ids.both, confirm_id: a.event.hass_confirm_id });
  t.same(await c.next(), { id: 32, type: 'result', success: false, error: { code: 'not_found', message: 'Push notification channel not found' } });

  // later messages go straight to the relay
  await h.call('POST', notifyPath('mobile_app_both_ways'), { message: 'third' });
  t.equal((await h.relay.next(2)).json.message, 'third');
  t.equal((await nothingPending(c, 33)).type, 'pong', 'nothing more on the old channel');

  await recordOf(h, (r) => r.type === 'push_sent' && r.data.via === 'relay' && r.data.message === 'second');
  const failed = (await h.records()).filter((r) => r.type === 'push_failed').map((r) => r.data);
  t.same(failed, [
    { webhook_id: h.ids.both, via: 'websocket', code: 'not_confirmed', confirm_id: a.event.hass_confirm_id },
    { webhook_id: h.ids.both, via: 'websocket', code: 'not_confirmed', confirm_id: b.event.hass_confirm_id },
  ]);
  c.ws.close();
});

t.test('a new channel replaces the older one of the same webhook', async (t) => {
  const h = await home(t);
  const one = await authedClient(h.th.base, h.token);
  const two = await authedClient(h.th.base, h.token);
  one.send({ id: 40, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.local });
  t.same(await one.next(), { id: 40, type: 'result', success: true, result: null });
  two.send({ id: 41, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.local });
  t.same(await two.next(), { id: 41, type: 'result', success: true, result: null });

  t.equal((await h.call('POST', notifyPath('mobile_app_ipad_kitchen'), { message: 'to the newest' })).status, 200);
  t.same(await two.next(), { id: 41, type: 'event', event: { message: 'to the newest' } }, 'no confirm id without support_confirm');
  t.equal((await nothingPending(one, 42)).type, 'pong', 'the older channel got nothing');
  one.send({ id: 43, type: 'unsubscribe_events', subscription: 40 });
  t.equal((await one.next()).error.code, 'not_found', 'the older subscription was removed');

  // unsubscribing the channel tears it down: a local-only device is then unreachable
  two.send({ id: 44, type: 'unsubscribe_events', subscription: 41 });
  t.same(await two.next(), { id: 44, type: 'result', success: true, result: null });
  t.equal((await h.call('POST', notifyPath('mobile_app_ipad_kitchen'), { message: 'gone' })).status, 400);

  // and so does disconnecting
  const three = await authedClient(h.th.base, h.token);
  three.send({ id: 50, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.local });
  await three.next();
  t.equal((await h.call('POST', notifyPath('mobile_app_ipad_kitchen'), { message: 'here' })).status, 200);
  t.equal((await three.next()).event.message, 'here');
  three.ws.close();
  await three.closed;
  let status = 200;
  // the server notices the close on its own schedule; the call fails once it has
  for (let i = 0; i < 50 && status === 200; i++) {
    status = (await h.call('POST', notifyPath('mobile_app_ipad_kitchen'), { message: 'after close' })).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(status, 400);
  one.ws.close();
  two.ws.close();
});

t.test('clear_notification sends the clear message with the tag and answers {}', async (t) => {
  const h = await home(t);
  const reply = await hook(h.th.base, h.ids.relay, { type: 'clear_notification', data: { tag: 'door' } });
  t.equal(reply.status, 200);
  t.same(reply.json, {});
  t.equal(
    h.relay.received[0].text,
    JSON.stringify({
      message: 'clear_notification',
      data: { tag: 'door' },
      push_token: 'tok-relay',
      registration_info: { app_id: 'io.robbie.HomeAssistant', app_version: '2025.1', webhook_id: h.ids.relay, os_version: '14' },
    }),
  );

  // over the local channel when one is open
  const c = await authedClient(h.th.base, h.token);
  c.send({ id: 60, type: 'mobile_app/push_notification_channel', webhook_id: h.ids.local });
  await c.next();
  t.same((await hook(h.th.base, h.ids.local, { type: 'clear_notification', data: { tag: 'kitchen' } })).json, {});
  t.same(await c.next(), { id: 60, type: 'event', event: { message: 'clear_notification', data: { tag: 'kitchen' } } });

  // a missing tag is the transport's empty OK and sends nothing
  t.same((await hook(h.th.base, h.ids.relay, { type: 'clear_notification', data: {} })).json, {});
  t.equal(h.relay.received.length, 1);
  c.ws.close();
});

t.test('after a restart the notify services are back and the relay still reached', async (t) => {
  const relay = await startRelay(t);
  const first = await startTestHearth(t);
  const { access_token: token } = await onboard(first.base);
  const id = (await register(api(first.base, token), { device_name: 'Pixel 7', app_data: { push_token: 'tok', push_url: relay.url } })).webhook_id;
  await first.hearth.mobilePush.settled();
  await first.hearth.stop();

  const again = await startTestHearth(t, { dataDir: first.dataDir });
  const call = api(again.base, token);
  const res = await call('POST', notifyPath('mobile_app_pixel_7'), { message: 'still here' });
  t.equal(res.status, 200);
  t.equal(relay.received[0].json.message, 'still here');
  t.equal(relay.received[0].json.registration_info.webhook_id, id);

  // a relay nobody listens at: logged and recorded, the call completes
  const gone = (await register(call, { device_name: 'Gone Relay', device_id: 'gone', app_data: { push_token: 'tok', push_url: 'http://127.0.0.1:9/push' } })).webhook_id;
  await again.hearth.mobilePush.settled();
  t.equal((await call('POST', notifyPath('mobile_app_gone_relay'), { message: 'x' })).status, 200);
  const failed = [];
  for await (const r of again.hearth.log.readStreams(`mobile_app/push/${gone}`)) failed.push(r.data);
  t.match(failed, [{ webhook_id: gone, via: 'relay', code: 'error_sending_notification', message: /^Error sending notification to Gone Relay: / }]);
});
