// The entity and device registries over the WebSocket API: YAML helpers get entries as in the
// original, platforms report devices and entities through the registries' API, clients change them.
import t from 'tap';
import { startTestHearth, onboard } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { sorting, userToken } from '../helpers/ws-sorting.ts';

const HELPERS = 'input_boolean:\n  porch:\n    name: Porch\n    icon: mdi:lightbulb\n  hall:\n';

t.test('entity registry', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: HELPERS });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  const { ask, eventsOf } = sorting(c);
  const events = await eventsOf('entity_registry_updated');

  const list = (await ask({ type: 'config/entity_registry/list' })).result;
  t.same(list.map((e: any) => e.entity_id), ['input_boolean.porch', 'input_boolean.hall'], 'YAML helpers have entries: their key is a unique id');
  const [porch] = list;
  t.same(Object.keys(porch), [
    'area_id', 'categories', 'config_entry_id', 'config_subentry_id', 'created_at', 'device_id', 'disabled_by', 'entity_category', 'entity_id',
    'has_entity_name', 'hidden_by', 'icon', 'id', 'labels', 'modified_at', 'name', 'options', 'original_name', 'platform', 'translation_key', 'unique_id',
  ]);
  t.match(porch, { platform: 'input_boolean', unique_id: 'porch', original_name: 'Porch', name: null, area_id: null, labels: [], id: /^[0-9a-f]{32}$/ });

  const got = await ask({ type: 'config/entity_registry/get', entity_id: 'INPUT_BOOLEAN.porch' });
  t.match(got.result, { entity_id: 'input_boolean.porch', original_icon: 'mdi:lightbulb', aliases: [], device_class: null, original_device_class: null, capabilities: null });
  t.same((await ask({ type: 'config/entity_registry/get', entity_id: 'input_boolean.nope' })).error, { code: 'not_found', message: 'Entity not found' });
  const bad = await ask({ type: 'config/entity_registry/get', entity_id: 'nope' });
  t.equal(bad.error.code, 'invalid_format');
  const entries = (await ask({ type: 'config/entity_registry/get_entries', entity_ids: ['input_boolean.hall', 'input_boolean.gone'] })).result;
  t.same(Object.keys(entries), ['input_boolean.hall', 'input_boolean.gone']);
  t.equal(entries['input_boolean.gone'], null);
  t.equal(entries['input_boolean.hall'].unique_id, 'hall');

  const updated = await ask({
    type: 'config/entity_registry/update',
    entity_id: 'input_boolean.porch',
    name: 'Front porch',
    aliases: [' stoop ', '', 'veranda'],
    labels: ['outside'],
    area_id: 'garden',
    categories: { helpers: 'outdoor' },
    options_domain: 'conversation',
    options: { should_expose: true },
  });
  t.match(updated.result.entity_entry, { name: 'Front porch', aliases: ['stoop', 'veranda'], labels: ['outside'], area_id: 'garden', categories: { helpers: 'outdoor' }, options: { conversation: { should_expose: true } } });
  t.notOk('require_restart' in updated.result);
  const changed = await events.next();
  t.equal(changed.data.action, 'update');
  t.equal(changed.data.entity_id, 'input_boolean.porch');
  t.same(changed.data.changes, { name: null, aliases: [], labels: [], area_id: null, categories: {}, options: {} }, 'the old values of what changed');
  const half = await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.porch', options_domain: 'conversation' });
  t.equal(half.error.code, 'invalid_format', 'options_domain needs options');

  const disabled = await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.hall', disabled_by: 'user', hidden_by: 'user' });
  t.match(disabled.result.entity_entry, { disabled_by: 'user', hidden_by: 'user' });
  await events.next();
  const integration = await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.hall', disabled_by: 'integration' });
  t.equal(integration.error.code, 'invalid_format', 'a client may only disable as the user');
  const display = (await ask({ type: 'config/entity_registry/list_for_display' })).result;
  t.same(display.entity_categories, { 0: 'config', 1: 'diagnostic' });
  t.same(display.entities, [{ ei: 'input_boolean.porch', pl: 'input_boolean', ai: 'garden', lb: ['outside'] }], 'disabled entities are not displayed');
  const enabled = await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.hall', disabled_by: null });
  t.same([enabled.result.entity_entry.disabled_by, enabled.result.require_restart], [null, true], 'enabling asks for a restart (no config entry)');
  await events.next();
  t.match((await ask({ type: 'config/entity_registry/list_for_display' })).result.entities[1], { ei: 'input_boolean.hall', hb: true });

  const guest = await authedClient(base, await userToken(base, tokens.access_token));
  const { ask: guestAsk } = sorting(guest);
  t.equal((await guestAsk({ type: 'config/entity_registry/list' })).result.length, 2, 'anyone may list');
  t.same((await guestAsk({ type: 'config/entity_registry/update', entity_id: 'input_boolean.porch', name: 'x' })).error, { code: 'unauthorized', message: 'Unauthorized' });
  guest.ws.close();

  // an entity a platform provides, renamed by the user
  const relay = await hearth.registries.ensureEntity({ entity_id: 'switch.relay', unique_id: 'r1', platform: 'virtual', original_name: 'Relay' });
  t.equal(relay.entity_id, 'switch.relay');
  t.same((await events.next()).data, { action: 'create', entity_id: 'switch.relay' });
  const twin = await hearth.registries.ensureEntity({ entity_id: 'switch.relay', unique_id: 'r2', platform: 'virtual' });
  t.equal(twin.entity_id, 'switch.relay_2', 'an id another entry holds gets a suffix');
  await events.next();
  const again = await hearth.registries.ensureEntity({ entity_id: 'switch.relay', unique_id: 'r1', platform: 'virtual', original_name: 'Relay' });
  t.equal(again.id, relay.id, 'found again by platform and unique id');

  for (const [to, message] of [
    ['input_boolean.hall', 'Entity with this ID is already registered'],
    ['light.relay', 'New entity ID should be same domain'],
    ['switch.Bad Id', 'Invalid entity ID'],
  ]) {
    const refused = await ask({ type: 'config/entity_registry/update', entity_id: 'switch.relay', new_entity_id: to });
    t.same(refused.error, { code: 'invalid_info', message }, `renaming to ${to}`);
  }
  const renamed = await ask({ type: 'config/entity_registry/update', entity_id: 'switch.relay', new_entity_id: 'switch.pump' });
  t.match(renamed.result.entity_entry, { entity_id: 'switch.pump', id: relay.id, unique_id: 'r1' });
  t.same((await events.next()).data, { action: 'update', entity_id: 'switch.pump', changes: { entity_id: 'switch.relay' }, old_entity_id: 'switch.relay' });
  const afterRestart = await hearth.registries.ensureEntity({ entity_id: 'switch.relay', unique_id: 'r1', platform: 'virtual' });
  t.equal(afterRestart.entity_id, 'switch.pump', "a platform reporting the entity again gets the user's id");

  t.same((await ask({ type: 'config/entity_registry/remove', entity_id: 'switch.pump' })).result, null);
  t.same((await events.next()).data, { action: 'remove', entity_id: 'switch.pump' });
  t.same((await ask({ type: 'config/entity_registry/remove', entity_id: 'switch.pump' })).error, { code: 'not_found', message: 'Entity not found' });
  const back = await hearth.registries.ensureEntity({ entity_id: 'switch.relay', unique_id: 'r1', platform: 'virtual' });
  t.same([back.entity_id, back.id], ['switch.relay', relay.id], 'an entry removed and reported again keeps its registry id');
  c.ws.close();
});

t.test('device registry', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  const { ask, eventsOf } = sorting(c);
  const deviceEvents = await eventsOf('device_registry_updated');
  const entityEvents = await eventsOf('entity_registry_updated');
  const reg = hearth.registries;

  const hub = await reg.ensureDevice({ identifiers: [['virtual', 'hub1']], connections: [['mac', 'AA-BB-CC-DD-EE-FF']], name: 'Hub', manufacturer: 'Acme', model: 'H1', config_entry_id: 'entry1', suggested_area: 'Utility Room' });
  t.same((await deviceEvents.next()).data, { action: 'create', device_id: hub.id });
  const [listed] = (await ask({ type: 'config/device_registry/list' })).result;
  t.same(Object.keys(listed), [
    'area_id', 'configuration_url', 'config_entries', 'config_entries_subentries', 'connections', 'created_at', 'disabled_by', 'entry_type', 'hw_version', 'id',
    'identifiers', 'labels', 'manufacturer', 'model', 'model_id', 'modified_at', 'name_by_user', 'name', 'primary_config_entry', 'serial_number', 'sw_version', 'via_device_id',
  ]);
  t.match(listed, {
    id: hub.id,
    area_id: 'utility_room',
    identifiers: [['virtual', 'hub1']],
    connections: [['mac', 'aa:bb:cc:dd:ee:ff']],
    config_entries: ['entry1'],
    config_entries_subentries: { entry1: [null] },
    primary_config_entry: 'entry1',
    name: 'Hub',
    manufacturer: 'Acme',
  });
  t.equal((await ask({ type: 'config/area_registry/list' })).result[0].name, 'Utility Room', 'a suggested area is made');
  const same = await reg.ensureDevice({ connections: [['mac', 'aabbccddeeff']], sw_version: '1.2' });
  t.equal(same.id, hub.id, 'found again by a connection');
  t.same((await deviceEvents.next()).data, { action: 'update', device_id: hub.id, changes: { sw_version: null } });
  const sensor = await reg.ensureDevice({ identifiers: [['virtual', 'sensor1']], name: 'Sensor', via_device: ['virtual', 'hub1'], config_entry_id: 'entry1' });
  t.equal(sensor.via_device_id, hub.id);
  await deviceEvents.next();
  const relay = await reg.ensureEntity({ entity_id: 'switch.relay', unique_id: 'relay', platform: 'virtual', device_id: hub.id, config_entry_id: 'entry1' });
  await entityEvents.next();
  t.same(reg.entitiesOfDevice(hub.id), ['switch.relay']);
  t.same(reg.entitiesOfArea('utility_room'), ['switch.relay'], "an entity without an area is in its device's");
  t.equal(reg.areaName('switch.relay'), 'Utility Room');

  const noInfo = reg.ensureDevice({ name: 'Nothing' });
  await t.rejects(noInfo, { code: 'home_assistant_error' }, 'a device needs an identifier or a connection');

  const updated = await ask({ type: 'config/device_registry/update', device_id: hub.id, name_by_user: 'Main hub', labels: ['core'], area_id: null });
  t.match(updated.result, { name_by_user: 'Main hub', labels: ['core'], area_id: null });
  t.same((await deviceEvents.next()).data, { action: 'update', device_id: hub.id, changes: { name_by_user: null, labels: [], area_id: 'utility_room' } });
  t.same((await ask({ type: 'config/device_registry/update', device_id: 'nope', name_by_user: 'x' })).error, { code: 'not_found', message: 'Device not found' });
  t.equal((await ask({ type: 'config/device_registry/update', device_id: hub.id, disabled_by: 'integration' })).error.code, 'invalid_format');

  // a device disabled by the user takes its entities with it
  await ask({ type: 'config/device_registry/update', device_id: hub.id, disabled_by: 'user' });
  await deviceEvents.next();
  t.same((await entityEvents.next()).data, { action: 'update', entity_id: 'switch.relay', changes: { disabled_by: null } });
  t.equal(reg.getEntity('switch.relay')!.disabled_by, 'device');
  const late = await reg.ensureEntity({ entity_id: 'switch.late', unique_id: 'late', platform: 'virtual', device_id: hub.id });
  t.equal(late.disabled_by, 'device', 'a new entity of a disabled device starts disabled');
  await entityEvents.next();
  const refused = await ask({ type: 'config/entity_registry/update', entity_id: 'switch.relay', disabled_by: null });
  t.same(refused.error, { code: 'invalid_info', message: 'Device is disabled' });
  await ask({ type: 'config/device_registry/update', device_id: hub.id, disabled_by: null });
  await deviceEvents.next();
  await entityEvents.next();
  await entityEvents.next();
  t.same([reg.getEntity('switch.relay')!.disabled_by, reg.getEntity('switch.late')!.disabled_by], [null, null], 'and brings them back');

  // removing a config entry from a device, with the original's refusals in its order
  const remove = (config_entry_id: string, device_id = hub.id) => ask({ type: 'config/device_registry/remove_config_entry', config_entry_id, device_id });
  t.same((await remove('entry1')).error, { code: 'home_assistant_error', message: 'Unknown config entry' });
  reg.registerConfigEntry('entry1', { domain: 'virtual' });
  t.same((await remove('entry1')).error, { code: 'home_assistant_error', message: 'Config entry does not support device removal' });
  let agree = false;
  reg.registerConfigEntry('entry1', { domain: 'virtual', removeDevice: () => agree });
  reg.registerConfigEntry('entry2', { domain: 'other', removeDevice: () => true });
  t.same((await remove('entry1', 'nope')).error, { code: 'home_assistant_error', message: 'Unknown device' });
  t.same((await remove('entry2')).error, { code: 'home_assistant_error', message: 'Config entry not in device' });
  t.same((await remove('entry1')).error, { code: 'home_assistant_error', message: 'Failed to remove device entry, rejected by integration' });
  agree = true;
  const gone = await remove('entry1');
  t.same([gone.success, gone.result], [true, null], 'a device left without config entries is removed');
  t.same((await deviceEvents.next()).data, { action: 'update', device_id: sensor.id, changes: { via_device_id: hub.id } }, 'a device it served no longer talks through it');
  const removal = await deviceEvents.next();
  t.same([removal.data.action, removal.data.device_id, removal.data.device.name_by_user], ['remove', hub.id, 'Main hub']);
  t.same((await entityEvents.next()).data, { action: 'remove', entity_id: 'switch.relay' }, 'its entities go with it');
  t.same((await entityEvents.next()).data, { action: 'remove', entity_id: 'switch.late' });
  t.equal(reg.getEntity('switch.relay'), undefined);

  const returned = await reg.ensureDevice({ identifiers: [['virtual', 'hub1']], config_entry_id: 'entry1' });
  t.same([returned.id, returned.name_by_user, returned.labels], [hub.id, 'Main hub', ['core']], 'a removed device comes back as it was for the user');
  const relayBack = await reg.ensureEntity({ entity_id: 'switch.relay', unique_id: 'relay', platform: 'virtual', device_id: returned.id });
  t.equal(relayBack.id, relay.id);
  c.ws.close();
});

t.test('deleting an area clears it from devices and entities first', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: HELPERS });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  const { ask, eventsOf } = sorting(c);
  const all = await eventsOf('*');
  await ask({ type: 'config/area_registry/create', name: 'Porch' });
  const device = await hearth.registries.ensureDevice({ identifiers: [['virtual', 'lamp']], name: 'Lamp' });
  await ask({ type: 'config/device_registry/update', device_id: device.id, area_id: 'porch' });
  await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.porch', area_id: 'porch' });
  const seen: string[] = [];
  for (;;) {
    const e = await all.next();
    if (e.event_type === 'entity_registry_updated' && e.data.action === 'update') break;
  }
  await ask({ type: 'config/area_registry/delete', area_id: 'porch' });
  for (let i = 0; i < 3; i++) {
    const e = await all.next();
    seen.push(`${e.event_type} ${e.data.action}`);
  }
  t.same(seen, ['device_registry_updated update', 'entity_registry_updated update', 'area_registry_updated remove']);
  t.equal(hearth.registries.getDevice(device.id)!.area_id, null);
  t.equal(hearth.registries.getEntity('input_boolean.porch')!.area_id, null);
  c.ws.close();
});
