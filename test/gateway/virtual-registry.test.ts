// Virtual devices with a unique_id in the registries: a device named after each, an entity
// entry, and service calls that reach them by area through their device.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient, type RawClient } from '../helpers/ws.ts';

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  const answer = await c.until((m) => m.id === id && m.type === 'result');
  if (!answer.success) throw new Error(`${msg.type}: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

const CONFIG = `
light:
  - platform: virtual
    name: Kitchen Ceiling
    unique_id: kitchen_ceiling
    supported_color_modes: [brightness]
  - platform: virtual
    name: Hall Lamp
switch:
  - platform: virtual
    name: Kettle
    unique_id: kettle
`;

t.test('a unique_id gives a virtual entity a device and an entry; an area call reaches it through its device', async (t) => {
  const h = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(h.base);
  const c = await authedClient(h.base, tokens.access_token);
  const devices = await ask(c, { type: 'config/device_registry/list' });
  const ceiling = devices.find((d: any) => d.name === 'Kitchen Ceiling');
  t.match(ceiling, { manufacturer: 'Hearth', identifiers: [['virtual', 'kitchen_ceiling']] });
  t.ok(devices.some((d: any) => d.name === 'Kettle'));
  t.notOk(devices.some((d: any) => d.name === 'Hall Lamp'), 'no unique_id: no device');
  const entry = await ask(c, { type: 'config/entity_registry/get', entity_id: 'light.kitchen_ceiling' });
  t.match(entry, { platform: 'virtual', unique_id: 'kitchen_ceiling', device_id: ceiling.id, original_name: 'Kitchen Ceiling' });

  const area = await ask(c, { type: 'config/area_registry/create', name: 'Kitchen' });
  await ask(c, { type: 'config/device_registry/update', device_id: ceiling.id, area_id: area.area_id });
  const rest = api(h.base, tokens.access_token);
  const call = await rest('POST', '/api/services/light/turn_on', { area_id: 'kitchen', brightness_pct: 40 });
  t.equal(call.status, 200);
  t.same(call.json.map((s: any) => s.entity_id), ['light.kitchen_ceiling'], 'the light on the device in the area, and only it');
  const state = (await rest('GET', '/api/states/light.kitchen_ceiling')).json;
  t.match(state, { state: 'on', attributes: { brightness: 102 } });
  t.equal((await rest('GET', '/api/states/light.hall_lamp')).json.state, 'off');
  c.ws.close();

  // a restart finds the same device and entry, not new ones
  await h.hearth.stop();
  const again = await startTestHearth(t, { dataDir: h.dataDir });
  const c2 = await authedClient(again.base, tokens.access_token);
  const after = await ask(c2, { type: 'config/device_registry/list' });
  t.equal(after.length, devices.length);
  t.equal(after.find((d: any) => d.name === 'Kitchen Ceiling').area_id, 'kitchen');
  c2.ws.close();
});
