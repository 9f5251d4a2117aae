// The entity registry's overrides show on states, as the original's entities apply their entry:
// a name, icon or device class of the user's, a disabled entity's state gone, a new entity id
// that the entity lives under from then on (restart included).
import t from 'tap';
import { startHearth } from '../../bin/instance.ts';
import { api, dataDirWith, onboard } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { sorting } from '../helpers/ws-sorting.ts';

const CONFIG = `
input_boolean:
  porch:
    name: Porch
    icon: mdi:door
  hall:
light:
  - platform: virtual
    name: Kitchen
    unique_id: k1
`;

async function open(dataDir: string, tokens?: { access_token: string }) {
  const lines: string[] = [];
  const hearth = await startHearth({ dataDir, port: 0, host: '127.0.0.1', log: (l) => lines.push(l) });
  const base = `http://127.0.0.1:${hearth.port}`;
  const token = tokens ?? (await onboard(base));
  const c = await authedClient(base, token.access_token);
  const { ask, eventsOf } = sorting(c);
  const changes = await eventsOf('state_changed');
  /** the next state_changed of an entity (others' are skipped) */
  const changed = async (entityId: string) => {
    for (;;) {
      const e = await changes.next();
      if (e.data.entity_id === entityId) return e.data;
    }
  };
  const rest = api(base, token.access_token);
  const state = async (entityId: string) => {
    const res = await rest('GET', `/api/states/${entityId}`);
    return res.status === 200 ? res.json : undefined;
  };
  const update = async (entityId: string, fields: Record<string, unknown>) => {
    const answer = await ask({ type: 'config/entity_registry/update', entity_id: entityId, ...fields });
    if (!answer.success) throw new Error(JSON.stringify(answer.error));
    return answer.result;
  };
  const stop = async () => {
    c.ws.close();
    await hearth.stop();
  };
  return { hearth, token, ask, changed, state, rest, update, stop, lines };
}

t.test('name, icon and device class overrides become attributes, written as a new state', async (t) => {
  const dataDir = await dataDirWith(CONFIG);
  const h = await open(dataDir);
  t.teardown(h.stop);

  const before = await h.state('input_boolean.porch');
  t.same(before.attributes, { editable: false, icon: 'mdi:door', friendly_name: 'Porch' });
  await h.update('input_boolean.porch', { name: 'Front porch' });
  const renamed = await h.changed('input_boolean.porch');
  t.equal(renamed.old_state.attributes.friendly_name, 'Porch');
  t.equal(renamed.new_state.attributes.friendly_name, 'Front porch', 'a state_changed carries the user’s name');
  t.equal(renamed.new_state.state, 'off');
  t.equal(renamed.new_state.last_changed, before.last_changed, 'the state itself did not change');
  t.equal((await h.state('input_boolean.porch')).attributes.friendly_name, 'Front porch', 'GET /api/states shows it');

  await h.update('input_boolean.porch', { icon: 'mdi:home', device_class: 'door' });
  const iconed = await h.changed('input_boolean.porch');
  t.same(iconed.new_state.attributes, { editable: false, device_class: 'door', icon: 'mdi:home', friendly_name: 'Front porch' }, 'in the original’s order');

  await h.update('input_boolean.porch', { name: null, icon: null, device_class: null });
  const back = await h.changed('input_boolean.porch');
  t.same(back.new_state.attributes, { editable: false, icon: 'mdi:door', friendly_name: 'Porch' }, 'cleared overrides give back the originals');

  await h.update('light.kitchen', { name: 'Cooking', icon: 'mdi:stove' });
  const light = await h.changed('light.kitchen');
  t.match(light.new_state.attributes, { icon: 'mdi:stove', friendly_name: 'Cooking' });
  t.equal(Object.keys(light.new_state.attributes).at(-1), 'supported_features', 'supported_features stays last');

  await h.update('light.kitchen', { labels: ['x'] });
  const nothing = await h.rest('POST', '/api/services/light/turn_on', { entity_id: 'light.kitchen' });
  t.equal(nothing.status, 200);
  const next = await h.changed('light.kitchen');
  t.equal(next.new_state.state, 'on', 'a change that shows nothing writes nothing: the next state is the call’s');
  t.equal(next.new_state.attributes.friendly_name, 'Cooking', 'later writes keep the override');

  const posted = await h.rest('POST', '/api/states/sensor.posted', { state: '1', attributes: { friendly_name: 'Posted' } });
  t.equal(posted.status, 201);
  t.equal((await h.state('sensor.posted')).attributes.friendly_name, 'Posted', 'a POSTed entity has no entry and is left alone');
});

t.test('a disabled entity has no state and takes no calls; enabled, it is back at once', async (t) => {
  const dataDir = await dataDirWith(CONFIG);
  const h = await open(dataDir);
  t.teardown(h.stop);

  await h.update('input_boolean.hall', { disabled_by: 'user' });
  const gone = await h.changed('input_boolean.hall');
  t.equal(gone.new_state, null, 'its state is removed');
  t.equal(await h.state('input_boolean.hall'), undefined);
  const call = await h.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.hall' });
  t.equal(call.status, 200, 'a call naming it is not an error');
  t.same(call.json, [], 'and changes nothing');
  t.equal(await h.state('input_boolean.hall'), undefined, 'nothing was written for it');

  await h.update('light.kitchen', { disabled_by: 'user' });
  t.equal((await h.changed('light.kitchen')).new_state, null);
  const lightCall = await h.rest('POST', '/api/services/light/turn_on', { entity_id: 'light.kitchen' });
  t.same(lightCall.json, []);
  t.equal(await h.state('light.kitchen'), undefined);

  await h.update('input_boolean.hall', { disabled_by: null });
  const back = await h.changed('input_boolean.hall');
  t.match(back, { old_state: null, new_state: { state: 'off' } }, 'enabled again, its state is written at once');
  const on = await h.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.hall' });
  t.equal(on.json[0]?.state, 'on');

  await h.update('light.kitchen', { disabled_by: null });
  t.match(await h.changed('light.kitchen'), { old_state: null, new_state: { state: 'off' } });
  const deviceId = (await h.ask({ type: 'config/entity_registry/get', entity_id: 'light.kitchen' })).result.device_id;
  const device = await h.ask({ type: 'config/device_registry/update', device_id: deviceId, disabled_by: 'user' });
  t.equal(device.success, true);
  t.equal((await h.changed('light.kitchen')).new_state, null, 'disabling its device disables it too');

  // a restart keeps the light disabled: no state comes back for it
  await h.stop();
  const again = await open(dataDir, h.token);
  t.teardown(again.stop);
  t.equal(await again.state('light.kitchen'), undefined, 'still disabled after a restart');
  t.equal((await again.state('input_boolean.hall')).state, 'on');
});

t.test('a new entity id: the entity goes on under it, for calls and after a restart', async (t) => {
  const dataDir = await dataDirWith(CONFIG);
  const h = await open(dataDir);
  t.teardown(h.stop);

  await h.rest('POST', '/api/services/light/turn_on', { entity_id: 'light.kitchen', brightness: 100 });
  await h.changed('light.kitchen');
  await h.update('light.kitchen', { new_entity_id: 'light.cooking' });
  const removed = await h.changed('light.kitchen');
  t.equal(removed.new_state, null, 'the old id’s state is removed');
  const added = await h.changed('light.cooking');
  t.match(added, { old_state: null, new_state: { state: 'on', attributes: { brightness: 100, friendly_name: 'Kitchen' } } }, 'the entity goes on under its new id');
  t.equal(await h.state('light.kitchen'), undefined);

  const off = await h.rest('POST', '/api/services/light/turn_off', { entity_id: 'light.cooking' });
  t.equal(off.json[0]?.entity_id, 'light.cooking');
  t.equal((await h.state('light.cooking')).state, 'off', 'calls reach it under the new id');
  const old = await h.rest('POST', '/api/services/light/turn_on', { entity_id: 'light.kitchen' });
  t.same(old.json, [], 'the old id is nobody');

  await h.update('input_boolean.porch', { new_entity_id: 'input_boolean.front' });
  t.equal((await h.changed('input_boolean.porch')).new_state, null);
  t.equal((await h.changed('input_boolean.front')).new_state.attributes.friendly_name, 'Porch');
  const toggled = await h.rest('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.front' });
  t.equal(toggled.json[0]?.state, 'on');

  const reloaded = await h.rest('POST', '/api/services/virtual/reload', {});
  t.equal(reloaded.status, 200);
  t.equal(await h.state('light.kitchen'), undefined, 'virtual.reload keeps the new id');
  t.equal((await h.state('light.cooking')).state, 'off');

  await h.stop();
  const again = await open(dataDir, h.token);
  t.teardown(again.stop);
  t.equal(await again.state('light.kitchen'), undefined, 'the old id stays gone after a restart');
  t.equal(await again.state('input_boolean.porch'), undefined);
  t.match(await again.state('light.cooking'), { state: 'off', attributes: { friendly_name: 'Kitchen' } });
  t.equal((await again.state('input_boolean.front')).state, 'on');
  const on = await again.rest('POST', '/api/services/light/turn_on', { entity_id: 'light.cooking' });
  t.equal(on.json[0]?.state, 'on', 'calls reach the new id after a restart');
  const reload = await again.rest('POST', '/api/services/input_boolean/reload', {});
  t.equal(reload.status, 200);
  t.equal(await again.state('input_boolean.porch'), undefined, 'a reload keeps the new id');
  t.equal((await again.state('input_boolean.front')).state, 'on');
});
