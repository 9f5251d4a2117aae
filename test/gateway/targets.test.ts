// Service calls targeting devices, areas, floors and labels reach the entities the registries
// place there, as the original's async_extract_referenced_entity_ids expands them.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { sorting, userToken } from '../helpers/ws-sorting.ts';

const CONFIG = `
input_boolean:
  k1:
  k2:
  k3:
  b1:
  n1:
  off_grid:
  disabled:
  hidden:
counter:
  kitchen_count:
`;

t.test('targets by device, area, floor and label', async (t) => {
  const { base, hearth, lines } = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  const reg = hearth.registries;

  // the house: a kitchen downstairs, a bedroom upstairs, a device in the kitchen
  await ask({ type: 'config/floor_registry/create', name: 'Ground' });
  await ask({ type: 'config/floor_registry/create', name: 'Upstairs' });
  await ask({ type: 'config/label_registry/create', name: 'Night' });
  await ask({ type: 'config/area_registry/create', name: 'Kitchen', floor_id: 'ground' });
  await ask({ type: 'config/area_registry/create', name: 'Bedroom', floor_id: 'upstairs' });
  const hub = await reg.ensureDevice({ identifiers: [['virtual', 'hub']], name: 'Hub' });
  await ask({ type: 'config/device_registry/update', device_id: hub.id, area_id: 'kitchen' });
  // the helpers' entries exist (YAML helpers have unique ids); a platform places two on the device
  await reg.ensureEntity({ entity_id: 'input_boolean.k2', unique_id: 'k2', platform: 'input_boolean', device_id: hub.id });
  await reg.ensureEntity({ entity_id: 'input_boolean.k3', unique_id: 'k3', platform: 'input_boolean', device_id: hub.id });
  const place = (entity_id: string, changes: Record<string, unknown>) => ask({ type: 'config/entity_registry/update', entity_id, ...changes });
  await place('input_boolean.k1', { area_id: 'kitchen' });
  await place('input_boolean.k3', { area_id: 'bedroom' });
  await place('input_boolean.b1', { area_id: 'bedroom' });
  await place('input_boolean.n1', { labels: ['night'] });
  await place('input_boolean.disabled', { area_id: 'kitchen', disabled_by: 'user' });
  await place('input_boolean.hidden', { area_id: 'kitchen', hidden_by: 'user' });
  await place('counter.kitchen_count', { area_id: 'kitchen' });

  const on = async () => {
    const states = (await rest('GET', '/api/states')).json as { entity_id: string; state: string }[];
    return states.filter((s) => s.entity_id.startsWith('input_boolean.') && s.state === 'on').map((s) => s.entity_id.slice(14)).sort();
  };
  const call = async (service: string, target: Record<string, unknown>, domain = 'input_boolean') => {
    const answer = await ask({ type: 'call_service', domain, service, target });
    t.equal(answer.success, true, `${domain}.${service} ${JSON.stringify(target)}: ${JSON.stringify(answer.error ?? '')}`);
    return answer;
  };
  const reset = () => call('turn_off', { entity_id: 'all' });

  await call('turn_on', { area_id: 'kitchen' });
  t.same(await on(), ['k1', 'k2'], "an area: its entities, and its devices' entities without an area of their own; not disabled or hidden ones");
  t.equal((await rest('GET', '/api/states/counter.kitchen_count')).json.state, '0', "an entity service acts on its own domain's entities only");
  await reset();

  await call('turn_on', { floor_id: 'upstairs' });
  t.same(await on(), ['b1', 'k3'], 'a floor: its areas');
  await reset();

  await call('turn_on', { device_id: hub.id });
  t.same(await on(), ['k2', 'k3'], 'a device: its entities, wherever they are');
  await reset();

  await call('turn_on', { label_id: ['night'] });
  t.same(await on(), ['n1'], 'a label: the entities that carry it');
  await ask({ type: 'config/area_registry/update', area_id: 'bedroom', labels: ['night'] });
  await ask({ type: 'config/device_registry/update', device_id: hub.id, labels: ['night'] });
  await reset();
  await call('turn_on', { label_id: 'night' });
  t.same(await on(), ['b1', 'k2', 'k3', 'n1'], '... and the areas and devices that carry it');
  await reset();

  const viaRest = await rest('POST', '/api/services/input_boolean/turn_on', { area_id: ['kitchen'], entity_id: 'input_boolean.off_grid' });
  t.equal(viaRest.status, 200);
  t.same(viaRest.json.map((s: any) => s.entity_id).sort(), ['input_boolean.k1', 'input_boolean.k2', 'input_boolean.off_grid'], 'targets in the service data, beside entity ids');
  await reset();

  await call('turn_on', { entity_id: 'input_boolean.disabled' });
  t.same(await on(), [], 'a disabled entity is reached by nothing, not even its own id');
  t.ok(lines.some((l) => l === 'Referenced entities input_boolean.disabled are missing or not currently available'));

  await call('turn_on', { area_id: ['attic', 'kitchen'], floor_id: 'roof', device_id: 'nope', label_id: 'none_such' });
  t.same(await on(), ['k1', 'k2'], 'unknown ids match nothing and refuse nothing');
  t.ok(
    lines.some((l) => l === 'Referenced floors roof, areas attic, devices nope, labels none_such are missing or not currently available'),
    'they are named in the log, as the original warns',
  );
  await reset();

  await call('turn_on', { area_id: 'none', entity_id: 'none' });
  t.same(await on(), [], '`none` names nothing');

  const linesBefore = lines.length;
  await call('turn_on', { area_id: 'kitchen' }, 'core');
  t.same(await on(), ['k1', 'k2'], 'the core turn_on acts on every domain it reaches');
  t.ok(lines.slice(linesBefore).some((l) => /The service core.turn_on does not support entities counter\./.test(l)), 'the counter was reached too');
  await reset();

  const badType = await rest('POST', '/api/services/input_boolean/turn_on', { device_id: [5] });
  t.equal(badType.status, 400, 'a device id that is not a string');
  const wsBad = await ask({ type: 'call_service', domain: 'input_boolean', service: 'turn_on', service_data: { label_id: { a: 1 } } });
  t.same(wsBad.error, { code: 'invalid_format', message: "expected str @ data['label_id'][0]" });

  // a user who may read but not control: each entity an area reaches must be controllable
  const readerToken = await userToken(base, tokens.access_token, 'system-read-only');
  const reader = sorting(await authedClient(base, readerToken));
  const refused = await reader.ask({ type: 'call_service', domain: 'input_boolean', service: 'turn_on', target: { area_id: 'kitchen' } });
  t.same(refused.error, { code: 'home_assistant_error', message: 'Unauthorized' });
  t.same(await on(), [], 'nothing was switched');
  const empty = await reader.ask({ type: 'call_service', domain: 'input_boolean', service: 'turn_on', target: { area_id: 'attic' } });
  t.equal(empty.success, true, 'an area that reaches nothing asks for no permission');
  c.ws.close();
});
