// Target matching through POST /api/intent/handle: every match-failure reason with the original's
// English sentence, duplicate names and the asking device's area and floor, names, aliases, ids,
// a device's area, exposure; and the endpoint's own refusals.
import t from 'tap';
import { startHome, errorAnswer } from './home.ts';
import { serviceIntentHandler } from '../../../actors/intents/service-intent.ts';

const noTargets = (speech: string) => errorAnswer('no_valid_targets', speech);
const ids = (answer: any) => answer.data.success.map((s: any) => s.id);

t.test('each match failure reason answers no_valid_targets with its sentence', async (t) => {
  const home = await startHome(t);
  const on = (data: Record<string, unknown>, extra?: Record<string, unknown>) => home.handle('CoreTurnOn', data, extra);
  // INVALID_AREA / INVALID_FLOOR: the name names no area or floor
  t.same(await on({ area: 'garden' }), noTargets('Sorry, I am not aware of any area called garden'));
  t.same(await on({ floor: 'cellar', domain: 'light' }), noTargets('Sorry, I am not aware of any floor called cellar'));
  // NAME: nothing called that (alone, or with the area asked)
  t.same(await on({ name: 'toaster' }), noTargets('Sorry, I am not aware of any device called toaster'));
  t.same(await on({ name: 'toaster', area: 'kitchen' }), noTargets('Sorry, I am not aware of any device called toaster in the kitchen area'));
  // AREA / FLOOR: something has the name, but not there
  t.same(await on({ name: 'bedroom light', area: 'kitchen' }), noTargets('Sorry, I am not aware of any device called bedroom light in the kitchen area'));
  t.same(await on({ name: 'kitchen light', floor: 'upstairs' }), noTargets('Sorry, I am not aware of any device called kitchen light in the upstairs floor'));
  t.same(await on({ domain: 'climate', area: 'kitchen' }), noTargets('Sorry, I am not aware of any climate in the kitchen area'));
  t.same(await on({ domain: 'climate', floor: 'Upstairs', name: 'all' }), (await on({ domain: 'climate', floor: 'Upstairs' })), '"all" adds nothing');
  t.same(await on({ device_class: 'garage', area: 'kitchen' }), noTargets('Sorry, I am not aware of any garage in the kitchen area'));
  // DOMAIN: no entity of the domain at all
  t.same(await on({ domain: 'fan' }), noTargets('Sorry, I am not aware of any fan'));
  t.same(await on({ domain: ['fan'], area: 'kitchen' }), noTargets('Sorry, I am not aware of any fan in the kitchen area'));
  t.same(await on({ domain: 'fan', floor: 'ground' }), noTargets('Sorry, I am not aware of any fan on the ground floor'));
  // DEVICE_CLASS
  t.same(await on({ device_class: 'window' }), noTargets('Sorry, I am not aware of any window'));
  t.same(await on({ domain: 'cover', device_class: 'gate' }), noTargets('Sorry, I am not aware of any gate'));

  // FEATURE and STATE: asked by an integration's handler (its intent platform registers it)
  await home.hearth.intentPlatforms.registerIntentPlatform('intent', (registry, h) => {
    registry.register(serviceIntentHandler(h, { intentType: 'TestTilt', domain: 'cover', service: 'set_cover_position', requiredFeatures: 4, optionalSlots: { position: { validator: Number } } }));
    registry.register(serviceIntentHandler(h, { intentType: 'TestOffAgain', domain: 'core', service: 'turn_off', requiredStates: ['on'] }));
    registry.register(serviceIntentHandler(h, { intentType: 'TestLightsOnly', domain: 'core', service: 'turn_on', requiredDomains: ['light'] }));
  });
  t.same(await home.handle('TestLightsOnly', { name: 'kettle' }), noTargets('Sorry, I am not aware of any device called kettle'), 'a handler for lights finds no switch');
  t.same(ids(await home.handle('TestLightsOnly', { area: 'kitchen' })), ['kitchen', 'light.kitchen_light'], 'only the lights of the area');
  t.equal((await home.state('switch.kettle')).state, 'off');
  await home.handle('CoreTurnOff', { name: 'kitchen light' });
  t.same(await home.handle('TestTilt', { name: 'blind', position: 50 }), noTargets('Sorry, no device supports the required features'), 'the blind cannot set a position');
  const tilted = await home.handle('TestTilt', { name: 'garage door', position: 30 });
  t.same(ids(tilted), ['cover.garage_door']);
  t.equal((await home.stateBecomes('cover.garage_door', 'open')).attributes.current_position, 30, 'a declared slot is service data');
  t.same(await home.handle('TestOffAgain', { area: 'kitchen', domain: 'light' }), noTargets('Sorry, no device is on'));
  await home.handle('CoreTurnOn', { name: 'kitchen light' });
  t.same(ids(await home.handle('TestOffAgain', { area: 'kitchen', domain: 'light' })), ['kitchen', 'light.kitchen_light']);

  // ASSISTANT: exposure is what the entity registry says for that assistant (exposed unless it says no)
  await home.ask({ type: 'config/entity_registry/update', entity_id: 'light.kitchen_light', options_domain: 'conversation', options: { should_expose: false } });
  const conversation = { assistant: 'conversation' };
  t.same(await on({ name: 'kitchen light' }, conversation), noTargets('Sorry, kitchen light is not exposed'));
  t.same(await on({ name: 'kitchen light', area: 'kitchen' }, conversation), noTargets('Sorry, kitchen light in the kitchen area is not exposed'));
  t.same(await on({ domain: 'light', area: 'kitchen' }, conversation), noTargets('Sorry, no light in the kitchen area is exposed'));
  t.same(ids(await on({ name: 'kitchen light' }, { assistant: 'cloud' })), ['light.kitchen_light'], 'another assistant sees it');
  t.same(ids(await on({ name: 'kitchen light' })), ['light.kitchen_light'], 'no assistant: no exposure check');
});

t.test('duplicate names: refused, unless the asking device area or floor leaves one', async (t) => {
  const home = await startHome(t);
  t.same(await home.handle('CoreTurnOn', { name: 'Reading Lamp' }), noTargets('Sorry, there are multiple devices called Reading Lamp'));
  t.same(ids(await home.handle('CoreTurnOn', { name: 'reading lamp', preferred_area_id: 'bedroom' })), ['light.reading_lamp_2'], 'the preferred area');
  t.equal((await home.state('light.reading_lamp_2')).state, 'on');
  t.equal((await home.state('light.reading_lamp')).state, 'off');
  t.same(ids(await home.handle('CoreTurnOn', { name: 'reading lamp', preferred_floor_id: 'ground' })), ['light.reading_lamp'], 'the preferred floor');
  t.same(ids(await home.handle('CoreTurnOff', { name: 'reading lamp', preferred_floor_id: 'upstairs', preferred_area_id: 'living_room' })), ['light.reading_lamp_2'], 'the floor is asked first');
  t.same(await home.handle('CoreTurnOn', { name: 'reading lamp', preferred_area_id: 'kitchen' }), noTargets('Sorry, I am not aware of any device called reading lamp'), 'a preference that leaves none');
  t.same(ids(await home.handle('CoreTurnOn', { name: 'reading lamp', area: 'living room' })), ['living_room', 'light.reading_lamp'], 'an area asked leaves one');

  await home.ask({ type: 'config/entity_registry/update', entity_id: 'light.reading_lamp_2', area_id: 'living_room' });
  t.same(await home.handle('CoreTurnOn', { name: 'reading lamp', area: 'living room' }), noTargets('Sorry, there are multiple devices called reading lamp in the living room area'));
  t.same(await home.handle('CoreTurnOn', { name: 'reading lamp', floor: 'downstairs' }), noTargets('Sorry, there are multiple devices called reading lamp in the downstairs floor'));
  t.same(await home.handle('CoreTurnOn', { name: 'reading lamp', preferred_area_id: 'living_room' }), noTargets('Sorry, there are multiple devices called reading lamp'), 'both in the preferred area');
  t.same(await home.handle('CoreGetState', { name: 'reading lamp' }), noTargets('Sorry, there are multiple devices called reading lamp'), 'a query too');
});

t.test('names, ids and aliases of entities, areas and floors; an entity in its device area', async (t) => {
  const home = await startHome(t);
  t.same(ids(await home.handle('CoreTurnOn', { area: 'living_room', domain: 'light' })), ['living_room', 'light.reading_lamp'], 'an area by id');
  t.same(ids(await home.handle('CoreTurnOn', { area: 'LIVING ROOM ', domain: 'light' })), ['living_room', 'light.reading_lamp'], 'an area by name, trimmed and case folded');
  t.same(ids(await home.handle('CoreTurnOff', { floor: 'Downstairs', domain: 'switch' })), ['ground', 'switch.kettle'], 'a floor by alias');
  t.same(await home.handle('CoreTurnOff', { floor: 'ground', area: 'bedroom' }), noTargets("Sorry, I couldn't understand that"), 'an area not on the floor asked (the original has no sentence for it)');

  // the registry's name for an entity
  await home.ask({ type: 'config/entity_registry/update', entity_id: 'light.bedroom_light', name: 'Nightstand', aliases: ['bedside lamp'] });
  t.same(ids(await home.handle('CoreTurnOn', { name: 'nightstand' })), ['light.bedroom_light'], 'the registry name');
  t.same(ids(await home.handle('CoreTurnOff', { name: 'Bedside Lamp' })), ['light.bedroom_light'], 'a registry alias');
  t.equal((await home.state('light.bedroom_light')).state, 'off');
  // no registry entry (no unique_id): its state's name only
  t.same(ids(await home.handle('CoreTurnOn', { name: 'hall light' })), ['light.hall_light']);

  // an entity without an area of its own is in its device's area
  const devices = await home.ask({ type: 'config/device_registry/list' });
  const blind = devices.find((d: any) => d.name === 'Blind');
  await home.ask({ type: 'config/device_registry/update', device_id: blind.id, area_id: 'attic' });
  t.same(ids(await home.handle('CoreTurnOn', { area: 'attic', domain: 'cover' })), ['attic', 'cover.blind'], "its device's area");
  t.equal((await home.stateBecomes('cover.blind', 'open')).state, 'open');
  t.same(ids(await home.handle('CoreGetState', { floor: 'upstairs', domain: 'cover' })), ['upstairs', 'cover.blind'], "and its area's floor");
  await home.ask({ type: 'config/entity_registry/update', entity_id: 'cover.blind', area_id: 'kitchen' });
  t.same(await home.handle('CoreTurnOff', { area: 'attic', domain: 'cover' }), noTargets('Sorry, I am not aware of any cover in the attic area'), "its own area before its device's");
});

t.test('POST /api/intent/handle: bad requests are 400s, intent failures are 200 error answers', async (t) => {
  const home = await startHome(t);
  const post = (body: unknown) => home.rest('POST', '/api/intent/handle', body);
  const broken = await post('{"name": ');
  t.same([broken.status, broken.json], [400, { message: 'Invalid JSON.' }]);
  t.same((await post({ data: {} })).json, { message: "Message format incorrect: required key not provided @ data['name']" });
  t.same((await post({ name: 5 })).json, { message: "Message format incorrect: expected str for dictionary value @ data['name']" });
  t.same((await post({ name: 'CoreNevermind', colour: 'red' })).json, { message: "Message format incorrect: extra keys not allowed @ data['colour']" });
  t.same((await post({ name: 'CoreNevermind', data: [1] })).json, { message: "Message format incorrect: expected a dictionary for dictionary value @ data['data']" });
  t.equal((await post([])).status, 400);
  const anonymous = await fetch(`${home.base}/api/intent/handle`, { method: 'POST', body: JSON.stringify({ name: 'CoreNevermind' }) });
  t.equal(anonymous.status, 401, 'a bearer token is required');

  t.same(await home.handle('CoreFly'), errorAnswer('failed_to_handle', 'Unknown intent CoreFly'));
  t.same(await home.handle('CoreTurnOn', { name: '   ' }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreTurnOn'), 'a blank name');
  const dutch = await home.handle('CoreNevermind', undefined, { language: 'nl', assistant: 'conversation', device_id: 'abc', satellite_id: 'assist_satellite.x' });
  t.equal(dutch.language, 'nl', 'the language asked');
  const french = await home.handle('CoreTurnOn', { area: 'garden' }, { language: 'fr' });
  t.same([french.language, french.response_type], ['fr', 'error'], 'an error answer in the language asked');
});
