// Virtual switches in a real Hearth: configuration, services over REST and WebSocket, restart.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
switch:
  - platform: virtual
    name: Porch Light
  - platform: virtual
    name: Coffee maker
    device_class: outlet
    initial: true
    icon: mdi:coffee
`;

t.test('switch: states, attributes and services', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const porch = await home.state('switch.porch_light');
  t.same([porch.state, porch.attributes], ['off', { friendly_name: 'Porch Light' }], 'a switch starts off, named after its entry');
  const coffee = await home.state('switch.coffee_maker');
  t.same([coffee.state, coffee.attributes], ['on', { device_class: 'outlet', icon: 'mdi:coffee', friendly_name: 'Coffee maker' }], 'initial, device class and icon');

  const on = await home.call('switch', 'turn_on', { entity_id: 'switch.porch_light' });
  t.equal(on.status, 200);
  t.same(on.json.map((s: any) => [s.entity_id, s.state]), [['switch.porch_light', 'on']], 'the answer lists the changed state');
  const change = await home.changed('switch.porch_light');
  t.same([change.old_state.state, change.new_state.state], ['off', 'on'], 'a WebSocket client sees the state_changed');

  const result = await home.wsCall('switch', 'toggle', {}, { entity_id: ['switch.porch_light', 'switch.coffee_maker'] });
  t.equal(result.success, true);
  t.equal((await home.changed('switch.porch_light')).new_state.state, 'off');
  t.equal((await home.changed('switch.coffee_maker')).new_state.state, 'off');
  t.equal((await home.changed('switch.porch_light', undefined, 10).catch(() => 'none')), 'none', 'one change per call');

  const bad = await home.wsCall('switch', 'turn_on', { brightness: 3 }, { entity_id: 'switch.porch_light' });
  t.same([bad.success, bad.error.code], [false, 'invalid_format']);
  t.match(bad.error.message, /extra keys not allowed @ data\['brightness'\]/, 'the bad key is named');
  t.equal((await home.call('switch', 'turn_on', { entity_id: 'switch.porch_light', brightness: 3 })).status, 400);

  const services = await home.rest('GET', '/api/services');
  const sw = services.json.find((d: any) => d.domain === 'switch');
  t.same(Object.keys(sw.services).sort(), ['toggle', 'turn_off', 'turn_on']);
  t.ok(services.json.find((d: any) => d.domain === 'virtual')?.services.reload, 'virtual.reload');
  t.ok((await home.rest('GET', '/api/config')).json.components.includes('switch'));
});

t.test('switch: a restart keeps the state; turning on what is on reports it', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.call('switch', 'turn_on', { entity_id: 'switch.porch_light' });
  await home.call('switch', 'turn_off', { entity_id: 'switch.coffee_maker' });
  const before = await home.state('switch.porch_light');
  const again = await restarted(t, home);
  const after = await again.state('switch.porch_light');
  t.same([after.state, after.last_changed], ['on', before.last_changed], 'restored, not rewritten');
  t.equal((await again.state('switch.coffee_maker')).state, 'off', 'the last state wins over initial');
  const report = await again.call('switch', 'turn_on', { entity_id: 'switch.porch_light' });
  t.same(report.json, [], 'no change to list');
  const records: string[] = [];
  for await (const r of again.hearth.log.read()) if (r.stream === 'entity/switch.porch_light') records.push(r.type);
  t.same(records, ['state_changed', 'state_changed', 'state_reported'], 'the call was still recorded, as a report');
});
