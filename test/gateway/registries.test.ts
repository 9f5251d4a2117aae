// The area, floor and label registries over the WebSocket API: the original's commands, answers,
// refusals and bus events, and what a restart keeps.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { sorting, userToken } from '../helpers/ws-sorting.ts';

t.test('areas', async (t) => {
  const { base } = await startTestHearth(t);
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  const { ask, eventsOf } = sorting(c);
  const events = await eventsOf('area_registry_updated');

  const created = await ask({ type: 'config/area_registry/create', name: 'Living Room', aliases: ['lounge', 'lounge'], icon: 'mdi:sofa', labels: [] });
  t.equal(created.success, true);
  const area = created.result;
  t.same(Object.keys(area), ['aliases', 'area_id', 'floor_id', 'humidity_entity_id', 'icon', 'labels', 'motion_entity_id', 'name', 'picture', 'temperature_entity_id', 'created_at', 'modified_at'], "the original's keys, in its order");
  t.match(area, { area_id: 'living_room', name: 'Living Room', aliases: ['lounge'], floor_id: null, icon: 'mdi:sofa', labels: [], picture: null });
  t.type(area.created_at, 'number');
  t.ok(area.created_at > 1e9 && area.created_at < 1e11, 'times are epoch seconds');
  t.equal(area.created_at, area.modified_at);
  const event = await events.next();
  t.same(event.data, { action: 'create', area_id: 'living_room' });
  t.equal(event.event_type, 'area_registry_updated');

  const taken = await ask({ type: 'config/area_registry/create', name: 'living room' });
  t.same(taken.error, { code: 'invalid_info', message: 'The name living room (livingroom) is already in use' });
  const second = await ask({ type: 'config/area_registry/create', name: 'Living-Room' });
  t.equal(second.result.area_id, 'living_room_2', 'an id is the slug of the name, made unique');
  await events.next();
  const accents = await ask({ type: 'config/area_registry/create', name: "Chloë's Café" });
  t.equal(accents.result.area_id, 'chloes_cafe');
  await events.next();

  const list = await ask({ type: 'config/area_registry/list' });
  t.same(list.result.map((a: any) => a.area_id), ['living_room', 'living_room_2', 'chloes_cafe']);

  const updated = await ask({ type: 'config/area_registry/update', area_id: 'living_room', name: 'Lounge', icon: null, aliases: ['sitting room'] });
  t.match(updated.result, { area_id: 'living_room', name: 'Lounge', icon: null, aliases: ['sitting room'] }, 'the id stays when the name changes');
  t.ok(updated.result.modified_at >= area.modified_at);
  t.same((await events.next()).data, { action: 'update', area_id: 'living_room' });
  const same = await ask({ type: 'config/area_registry/update', area_id: 'living_room', name: 'Lounge' });
  t.equal(same.result.modified_at, updated.result.modified_at, 'nothing changed');
  t.same((await events.next()).data, { action: 'update', area_id: 'living_room' }, 'the original fires the event anyway');
  const clash = await ask({ type: 'config/area_registry/update', area_id: 'living_room', name: 'living-room' });
  t.same(clash.error, { code: 'invalid_info', message: 'The name living-room (living-room) is already in use' });
  const unknown = await ask({ type: 'config/area_registry/update', area_id: 'attic', name: 'Attic' });
  t.same(unknown.error, { code: 'invalid_info', message: "Area ID doesn't exist" });
  const extra = await ask({ type: 'config/area_registry/update', area_id: 'living_room', colour: 'red' });
  t.equal(extra.error.code, 'invalid_format');

  const removed = await ask({ type: 'config/area_registry/delete', area_id: 'living_room_2' });
  t.same([removed.success, removed.result], [true, 'success']);
  t.same((await events.next()).data, { action: 'remove', area_id: 'living_room_2' });
  const again = await ask({ type: 'config/area_registry/delete', area_id: 'living_room_2' });
  t.same(again.error, { code: 'invalid_info', message: "Area ID doesn't exist" });

  const rest = api(base, tokens.access_token);
  await rest('POST', '/api/states/sensor.lounge_temperature', { state: '21', attributes: { device_class: 'temperature' } });
  await rest('POST', '/api/states/sensor.lounge_humidity', { state: '40', attributes: { device_class: 'humidity' } });
  const sensors = await ask({ type: 'config/area_registry/update', area_id: 'living_room', temperature_entity_id: 'sensor.lounge_temperature', humidity_entity_id: 'sensor.lounge_humidity' });
  t.match(sensors.result, { temperature_entity_id: 'sensor.lounge_temperature', humidity_entity_id: 'sensor.lounge_humidity' });
  const wrong = await ask({ type: 'config/area_registry/update', area_id: 'living_room', temperature_entity_id: 'sensor.lounge_humidity' });
  t.same(wrong.error, { code: 'invalid_info', message: 'Entity sensor.lounge_humidity is not a temperature sensor' });
  const missing = await ask({ type: 'config/area_registry/create', name: 'Attic', humidity_entity_id: 'sensor.nope' });
  t.same(missing.error, { code: 'invalid_info', message: 'Entity sensor.nope does not exist' });

  const guest = await authedClient(base, await userToken(base, tokens.access_token));
  const { ask: guestAsk } = sorting(guest);
  t.equal((await guestAsk({ type: 'config/area_registry/list' })).result.length, 2, 'anyone may list');
  t.same((await guestAsk({ type: 'config/area_registry/create', name: 'Shed' })).error, { code: 'unauthorized', message: 'Unauthorized' });
  t.same((await guestAsk({ type: 'config/area_registry/delete', area_id: 'living_room' })).error.code, 'unauthorized');
  const guestEvents = await guestAsk({ type: 'subscribe_events', event_type: 'area_registry_updated' });
  t.equal(guestEvents.success, true, 'a non-admin may follow registry events');
  guest.ws.close();
  c.ws.close();
});

t.test('floors and labels, and what their deletion clears', async (t) => {
  const { base } = await startTestHearth(t);
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  const { ask, eventsOf } = sorting(c);
  const floorEvents = await eventsOf('floor_registry_updated');
  const labelEvents = await eventsOf('label_registry_updated');
  const areaEvents = await eventsOf('area_registry_updated');

  const ground = await ask({ type: 'config/floor_registry/create', name: 'Ground Floor', level: 0, aliases: ['downstairs'] });
  t.same(Object.keys(ground.result), ['aliases', 'created_at', 'floor_id', 'icon', 'level', 'name', 'modified_at']);
  t.match(ground.result, { floor_id: 'ground_floor', level: 0, icon: null, aliases: ['downstairs'] });
  t.same((await floorEvents.next()).data, { action: 'create', floor_id: 'ground_floor' });
  t.same((await ask({ type: 'config/floor_registry/create', name: 'ground floor' })).error, { code: 'invalid_info', message: 'The name ground floor (groundfloor) is already in use' });
  t.equal((await ask({ type: 'config/floor_registry/create', name: 'Attic', level: 1.5 })).error.code, 'invalid_format', 'a level is an integer');

  const noop = await ask({ type: 'config/floor_registry/update', floor_id: 'ground_floor', level: 0 });
  t.equal(noop.result.modified_at, ground.result.modified_at);
  const raised = await ask({ type: 'config/floor_registry/update', floor_id: 'ground_floor', level: 1, icon: 'mdi:home-floor-1' });
  t.match(raised.result, { level: 1, icon: 'mdi:home-floor-1' });
  t.same((await floorEvents.next()).data, { action: 'update', floor_id: 'ground_floor' }, 'only a change is an event');
  t.same((await ask({ type: 'config/floor_registry/update', floor_id: 'roof', level: 3 })).error, { code: 'invalid_info', message: "Floor ID doesn't exist" });
  t.same((await ask({ type: 'config/label_registry/update', label_id: 'roof', name: 'x' })).error, { code: 'invalid_info', message: "Label ID doesn't exist" });

  const red = await ask({ type: 'config/label_registry/create', name: 'Christmas', color: '#ff0000', icon: 'mdi:pine-tree', description: 'Seasonal' });
  t.same(Object.keys(red.result), ['color', 'created_at', 'description', 'icon', 'label_id', 'name', 'modified_at']);
  t.match(red.result, { label_id: 'christmas', color: '#ff0000', description: 'Seasonal', icon: 'mdi:pine-tree' });
  t.same((await labelEvents.next()).data, { action: 'create', label_id: 'christmas' });
  const theme = await ask({ type: 'config/label_registry/create', name: 'Lights', color: 'indigo' });
  t.equal(theme.result.color, 'indigo', 'a theme color');
  await labelEvents.next();
  const badColor = await ask({ type: 'config/label_registry/create', name: 'Bad', color: 'ff0000' });
  t.same(badColor.error, { code: 'invalid_format', message: "Color should be in the format #RRGGBB for dictionary value @ data['color']. Got 'ff0000'" });
  const badIcon = await ask({ type: 'config/label_registry/create', name: 'Bad', icon: 'tree' });
  t.equal(badIcon.error.code, 'invalid_format');
  t.match(badIcon.error.message, /prefix:name/);
  const renamed = await ask({ type: 'config/label_registry/update', label_id: 'lights', name: 'Lamps', color: null });
  t.match(renamed.result, { label_id: 'lights', name: 'Lamps', color: null });
  await labelEvents.next();

  const kitchen = await ask({ type: 'config/area_registry/create', name: 'Kitchen', floor_id: 'ground_floor', labels: ['christmas', 'lights'] });
  t.match(kitchen.result, { floor_id: 'ground_floor', labels: ['christmas', 'lights'] });
  await areaEvents.next();

  t.same((await ask({ type: 'config/label_registry/delete', label_id: 'christmas' })).result, null);
  t.same((await labelEvents.next()).data, { action: 'remove', label_id: 'christmas' });
  t.same((await areaEvents.next()).data, { action: 'update', area_id: 'kitchen' }, 'the area loses the label');
  t.same((await ask({ type: 'config/floor_registry/delete', floor_id: 'ground_floor' })).result, null);
  t.same((await floorEvents.next()).data, { action: 'remove', floor_id: 'ground_floor' });
  t.same((await areaEvents.next()).data, { action: 'update', area_id: 'kitchen' }, 'and its floor');
  const [after] = (await ask({ type: 'config/area_registry/list' })).result;
  t.match(after, { area_id: 'kitchen', floor_id: null, labels: ['lights'] });
  t.same((await ask({ type: 'config/floor_registry/delete', floor_id: 'ground_floor' })).error, { code: 'invalid_info', message: "Floor ID doesn't exist" });
  t.same((await ask({ type: 'config/label_registry/delete', label_id: 'christmas' })).error, { code: 'invalid_info', message: "Label ID doesn't exist" });
  c.ws.close();
});
