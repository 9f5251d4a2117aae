// core.turn_on / turn_off / toggle over virtual entities, as the original's homeassistant
// integration dispatches them: each domain's own service of that name, with the call's data;
// domains without one are named in a warning and left alone.
import t from 'tap';
import { virtualHome } from '../../helpers/platform.ts';

const CONFIG = `
light:
  - platform: virtual
    name: Kitchen
switch:
  - platform: virtual
    name: Kettle
cover:
  - platform: virtual
    name: Garage
lock:
  - platform: virtual
    name: Door
button:
  - platform: virtual
    name: Bell
`;

t.test('core.turn_on, turn_off and toggle reach every domain that has the service', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const on = await home.call('core', 'turn_on', { entity_id: ['light.kitchen', 'switch.kettle'] });
  t.equal(on.status, 200);
  t.same(on.json.map((s: any) => [s.entity_id, s.state]).sort(), [['light.kitchen', 'on'], ['switch.kettle', 'on']], 'the answer lists what the domain calls changed');
  await home.call('core', 'turn_on', { entity_id: 'light.kitchen', brightness_pct: 20 });
  t.equal((await home.state('light.kitchen')).attributes.brightness, 51, 'the call’s data goes along to light.turn_on');

  const off = await home.wsCall('core', 'turn_off', {}, { entity_id: ['light.kitchen', 'switch.kettle'] });
  t.equal(off.success, true);
  t.same([(await home.changed('light.kitchen', (s) => s.state === 'off')).context.id, (await home.changed('switch.kettle', (s) => s.state === 'off')).context.id], [off.result.context.id, off.result.context.id], 'under the call’s context');

  await home.call('core', 'toggle', { entity_id: 'cover.garage' });
  t.equal((await home.state('cover.garage')).state, 'open', 'a cover has toggle: it opens');
  await home.call('core', 'toggle', { entity_id: 'cover.garage' });
  t.equal((await home.state('cover.garage')).state, 'closed');

  const lines = home.lines.length;
  const lock = await home.call('core', 'turn_on', { entity_id: ['lock.door', 'button.bell', 'cover.garage'] });
  t.same([lock.status, lock.json], [200, []], 'no domain of these has turn_on: nothing happens');
  t.same(home.lines.slice(lines), ['The service core.turn_on does not support entities button.bell, cover.garage, lock.door']);
  t.same([(await home.state('lock.door')).state, (await home.state('button.bell')).state, (await home.state('cover.garage')).state], ['locked', 'unknown', 'closed']);

  const untargeted = await home.call('core', 'toggle', {});
  t.equal(untargeted.status, 200);
  t.match(home.lines.at(-1), /The service core.toggle cannot be called without a target/);

  const refused = await home.call('core', 'turn_on', { entity_id: ['light.kitchen', 'switch.kettle'], brightness: 3 });
  t.equal(refused.status, 400, 'data one domain’s service refuses fails the call, as there');
});
