// The tag component as clients see it (cross-checked against the original's
// tests/components/tag/test_init.py): the collection commands and their refusals, subscribers'
// changes, scans from the companion app and from fired events, the tag entity, and the tags
// coming back after a restart.
import t from 'tap';
import { startHearth } from '../../../bin/instance.ts';
import { manualClock } from '../../../actors/clock.ts';
import { dataDirWith, onboard, api } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { userToken } from '../../helpers/ws-sorting.ts';
import { hook, register } from '../mobile/app.ts';

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>) {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

const T0 = Date.UTC(2026, 10, 28, 7, 30, 0, 250);

t.test('tags: collection commands, scans, entity, restart', async (t) => {
  const dataDir = await dataDirWith('');
  const start = () => startHearth({ dataDir, port: 0, host: '127.0.0.1', clock: manualClock(T0, 1), log: () => {} });
  let hearth = await start();
  t.teardown(() => hearth.stop());
  let base = `http://127.0.0.1:${hearth.port}`;
  const tokens = await onboard(base);
  let c = await authedClient(base, tokens.access_token);
  const rest = () => api(base, tokens.access_token);

  t.ok((await rest()('GET', '/api/config')).json.components.includes('tag'), 'tag is a loaded component');

  // the subscriber's events, in order, as they arrive between the answers to other commands
  const events: any[][] = [];
  c.ws.on('message', (data) => {
    for (const m of [JSON.parse(data.toString())].flat()) if (m.id === subscriptionId && m.type === 'event') events.push(m.event);
  });
  let seen = 0;
  const nextChange = async (pred: (event: any[]) => boolean = () => true) => {
    for (let i = 0; i < 200; i++) {
      while (seen < events.length) {
        const event = events[seen++];
        if (pred(event)) return event;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`no such change; seen ${JSON.stringify(events)}`);
  };
  const subscriptionId = nextId;
  const subscription = await ask(c, { type: 'tag/subscribe' });
  t.same([subscription.success, subscription.result], [true, null]);
  t.same(await nextChange(), [], 'first every tag there is: none yet');

  const created = await ask(c, { type: 'tag/create', tag_id: 'kitchen-nfc', name: 'Kitchen' });
  t.same(created.result, { id: 'kitchen-nfc', tag_id: 'kitchen-nfc', name: 'Kitchen' });
  t.same(await nextChange(), [{ change_type: 'added', tag_id: 'kitchen-nfc', item: created.result }]);
  const generated = (await ask(c, { type: 'tag/create', description: 'on the fridge' })).result;
  t.match(generated.tag_id, /^[0-9a-f-]{36}$/, 'no id given: a uuid');
  t.equal(generated.id, generated.tag_id);
  await nextChange();

  t.same((await ask(c, { type: 'tag/create', tag_id: 'kitchen-nfc' })).error, { code: 'home_assistant_error', message: 'Tag with id: kitchen-nfc already exists.' });
  t.same((await ask(c, { type: 'tag/update', tag_id: 'nope', name: 'x' })).error, { code: 'not_found', message: 'Unable to find tag_id nope' });
  t.same((await ask(c, { type: 'tag/delete', tag_id: 'nope' })).error, { code: 'not_found', message: 'Unable to find tag_id nope' });
  t.equal((await ask(c, { type: 'tag/create', tag_id: 'x', name: '' })).error.code, 'invalid_format', 'an empty name');
  t.match((await ask(c, { type: 'tag/update', tag_id: 'kitchen-nfc', last_scanned: 'yesterday' })).error, { code: 'invalid_format', message: /^Invalid datetime specified: yesterday/ });

  const renamed = await ask(c, { type: 'tag/update', tag_id: 'kitchen-nfc', name: 'Kitchen door', last_scanned: '2026-11-27T10:00:00+01:00' });
  t.same(renamed.result, { id: 'kitchen-nfc', tag_id: 'kitchen-nfc', name: 'Kitchen door', last_scanned: '2026-11-27T10:00:00+01:00' });
  t.same(await nextChange(), [{ change_type: 'updated', tag_id: 'kitchen-nfc', item: renamed.result }]);
  const entity = (await rest()('GET', '/api/states/tag.kitchen')).json;
  t.same([entity.state, entity.attributes], ['2026-11-27T09:00:00.000+00:00', { tag_id: 'kitchen-nfc', last_scanned_by_device_id: null, friendly_name: 'Kitchen door' }], 'the entity keeps its first name, shows the new one');

  await t.test('a phone scanning a tag moves its last scan on; an unknown tag is made', async (t) => {
    const reg = await register(rest());
    const deviceId = hearth.mobile.registrations.get(reg.webhook_id)!.core_device_id;
    t.equal((await hook(base, reg.webhook_id, { type: 'scan_tag', data: { tag_id: 'kitchen-nfc' } })).status, 200);
    const listed = (await ask(c, { type: 'tag/list' })).result.find((x: any) => x.tag_id === 'kitchen-nfc');
    t.equal(listed.device_id, deviceId, 'the answer to the scan comes after the tag has it');
    const [change] = await nextChange((e) => e[0]?.item?.device_id);
    t.equal(change.change_type, 'updated');
    t.same(Object.keys(change.item), ['id', 'tag_id', 'name', 'last_scanned', 'device_id']);
    t.equal(change.item.device_id, deviceId);
    t.match(change.item.last_scanned, /^2026-11-28T07:30:00\.\d{6}\+00:00$/, 'the time of the scan event');
    const state = (await rest()('GET', '/api/states/tag.kitchen')).json;
    t.same([state.state, state.attributes.last_scanned_by_device_id], [change.item.last_scanned.slice(0, 23) + '+00:00', deviceId]);
    const scans: any[] = [];
    for await (const r of hearth.log.read({ gt: 0 })) if (r.type === 'tag_scanned') scans.push(r.data);
    t.same(scans, [{ tag_id: 'kitchen-nfc', name: 'Kitchen door', device_id: deviceId }], "the scan event names the tag, as the original's does");

    t.equal((await rest()('POST', '/api/events/tag_scanned', { tag_id: 'garage-qr', device_id: 'by-hand' })).status, 200);
    const [made] = await nextChange((e) => e[0]?.tag_id === 'garage-qr');
    t.same([made.change_type, made.item.device_id, Object.keys(made.item)], ['added', 'by-hand', ['id', 'tag_id', 'last_scanned', 'device_id']]);
    t.equal((await rest()('GET', '/api/states/tag.garage_qr')).json.attributes.friendly_name, 'Tag garage-qr');
  });

  const deleted = await ask(c, { type: 'tag/delete', tag_id: generated.tag_id });
  t.same([deleted.success, deleted.result], [true, null]);
  t.same((await nextChange((e) => e[0]?.change_type === 'removed'))[0].tag_id, generated.tag_id);
  const before = (await ask(c, { type: 'tag/list' })).result;
  t.same(before.map((x: any) => x.tag_id), ['kitchen-nfc', 'garage-qr']);

  await t.test('a non-admin lists tags but may not change them', async (t) => {
    const guest = await authedClient(base, await userToken(base, tokens.access_token));
    t.teardown(() => guest.ws.close());
    t.same((await ask(guest, { type: 'tag/list' })).result, before);
    // the original's require_admin on create, update and delete
    for (const msg of [{ type: 'tag/create', tag_id: 'mine' }, { type: 'tag/update', tag_id: 'kitchen-nfc', name: 'x' }, { type: 'tag/delete', tag_id: 'kitchen-nfc' }]) {
      t.same((await ask(guest, msg)).error, { code: 'unauthorized', message: 'Unauthorized' }, msg.type);
    }
  });

  c.ws.close();
  await hearth.stop();
  hearth = await start();
  base = `http://127.0.0.1:${hearth.port}`;
  c = await authedClient(base, tokens.access_token);
  t.teardown(() => c.ws.close());
  t.same((await ask(c, { type: 'tag/list' })).result, before, 'the tags come back after a restart, in the order they were made');
  t.equal((await rest()('GET', '/api/states/tag.garage_qr')).json.attributes.last_scanned_by_device_id, 'by-hand');
});
