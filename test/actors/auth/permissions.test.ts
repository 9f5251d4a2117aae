// Permissions: the policy compiler and merge on their own, then groups (system and configured)
// applied by a real Hearth to REST, WebSocket reads, subscriptions and service calls.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ALL, NONE, compileEntities, mergePolicies, compilePolicy, type Policy } from '../../../actors/auth/permissions.ts';
import { Groups } from '../../../actors/auth/groups.ts';
import { validateCore } from '../../../actors/core/core-section.ts';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { exchange, login } from './harness.ts';

// ---------------------------------------------------------------------------------------------
// the compiler and the merge

t.test('a policy of true, false or nothing', async (t) => {
  t.equal(compileEntities(true), ALL, 'true is the shared all-permissions object');
  for (const p of [false, null, undefined, {}]) {
    const c = compileEntities(p);
    t.equal(c, NONE, `${JSON.stringify(p)} allows nothing`);
    t.notOk(c.canRead('light.a'));
  }
  t.same([ALL.all, ALL.readAll, ALL.canControl('x.y'), ALL.check('x.y', 'edit')], [true, true, true, true]);
  t.equal(compileEntities({ entity_ids: {} }).canRead('light.a'), false, 'an empty mapping allows nothing');
});

t.test('categories of an entity, a domain, all', async (t) => {
  const c = compileEntities({
    entity_ids: { 'light.kitchen': true, 'light.hall': { read: true }, 'switch.fan': { control: true } },
    domains: { sensor: { read: true }, cover: true },
  });
  t.same([c.all, c.readAll], [false, false]);
  t.ok(c.canRead('light.kitchen') && c.canControl('light.kitchen') && c.check('light.kitchen', 'edit'), 'true: every category');
  t.ok(c.canRead('light.hall'));
  t.notOk(c.canControl('light.hall'), 'only what the grant names');
  t.notOk(c.canRead('switch.fan'), 'control does not imply read');
  t.ok(c.canControl('switch.fan'));
  t.ok(c.canRead('sensor.outside'));
  t.notOk(c.canControl('sensor.outside'));
  t.ok(c.canControl('cover.garage'), 'a domain granted true');
  t.notOk(c.canRead('light.other'), 'neither the entity nor its domain');

  const all = compileEntities({ all: { read: true }, entity_ids: { 'light.a': { control: true } } });
  t.equal(all.readAll, true, 'all: read reads everything');
  t.ok(all.canRead('light.a'), 'an entity grant without read falls through to all');
  t.ok(all.canControl('light.a'));
  t.notOk(all.canControl('light.b'));

  t.equal(compileEntities({ entity_ids: { 'light.a': true }, domains: true }), ALL, 'true for a sub-category allows everything (the original)');
  t.equal(compileEntities({ all: true }), ALL);
  t.equal(compileEntities({ all: { read: true, control: true } }).canControl('lock.door'), true);
});

t.test('false grants nothing; device_ids and area_ids ask where the entity sits', async (t) => {
  const c = compileEntities({ entity_ids: { 'light.a': { read: false }, 'light.b': false }, domains: { light: { read: true } } });
  t.ok(c.canRead('light.a'), 'false is no opinion: the domain decides');
  t.ok(c.canRead('light.b'));
  t.equal(compileEntities({ all: false }), NONE);
  t.equal(compileEntities({ entity_ids: false, domains: { light: true } }).canRead('light.a'), true, 'a false sub-category is skipped');
  const devices = compileEntities({ device_ids: { abc: true }, area_ids: { kitchen: { read: true } } });
  t.notOk(devices.canRead('light.kitchen'), 'without a placement no entity is on a device or in an area');
  const placed = new Map([['light.kitchen', { device: 'xyz', area: 'kitchen' }], ['light.desk', { device: 'abc', area: 'office' }]]);
  const placement = { deviceOf: (id: string) => placed.get(id)?.device, areaIdOf: (id: string) => placed.get(id)?.area };
  const located = compileEntities({ device_ids: { abc: true }, area_ids: { kitchen: { read: true } } }, placement);
  t.ok(located.canControl('light.desk'), 'its device grants all');
  t.ok(located.canRead('light.kitchen'), 'its area grants read ...');
  t.notOk(located.canControl('light.kitchen'), '... and only read');
  t.notOk(located.canRead('light.hall'), 'nowhere: nothing');
  placed.set('light.hall', { device: 'abc', area: 'hall' });
  t.ok(located.canRead('light.hall'), 'a move counts at once, without compiling again');
  t.equal(compileEntities({ device_ids: true }), ALL, 'true there is true, as in the original');
});

t.test('merge: true wins, mappings merge key by key', async (t) => {
  t.same(mergePolicies([]), {});
  t.same(mergePolicies([{ entities: true }, { entities: { all: { read: true } } }]), { entities: true });
  t.same(mergePolicies([{ entities: { all: { read: true } } }, { entities: true }]), { entities: true }, 'in any order');
  const merged = mergePolicies([
    { entities: { entity_ids: { 'light.a': { read: true } }, domains: { sensor: { read: true } } } },
    { entities: { entity_ids: { 'light.a': { control: true }, 'light.b': true } } },
    {},
    { entities: null },
  ]);
  t.same(merged, {
    entities: { entity_ids: { 'light.a': { read: true, control: true }, 'light.b': true }, domains: { sensor: { read: true } } },
  });
  const c = compilePolicy(merged);
  t.ok(c.canRead('light.a') && c.canControl('light.a'));
  t.same(mergePolicies([{ entities: { entity_ids: { 'light.a': { read: false } } } }, { entities: { entity_ids: { 'light.a': { read: true } } } }]), {
    entities: { entity_ids: { 'light.a': { read: true } } },
  }, 'false does not undo another group\'s true');
});

t.test('groups: the system ones, configured ones, and one that is gone', async (t) => {
  const kids: Policy = { entities: { entity_ids: { 'light.kids': true } } };
  const groups = new Groups([{ id: 'kids', name: 'Kids', policy: kids }]);
  t.ok(groups.has('system-admin') && groups.has('system-users') && groups.has('system-read-only') && groups.has('kids'));
  t.equal(compilePolicy(groups.policyOf(['system-admin'])), ALL);
  t.equal(compilePolicy(groups.policyOf(['system-users'])), ALL);
  const readOnly = compilePolicy(groups.policyOf(['system-read-only']));
  t.same([readOnly.readAll, readOnly.canRead('lock.door'), readOnly.canControl('lock.door')], [true, true, false]);
  t.equal(compilePolicy(groups.policyOf(['kids', 'system-users'])), ALL);
  const both = compilePolicy(groups.policyOf(['kids', 'system-read-only']));
  t.same([both.canControl('light.kids'), both.canControl('light.other'), both.canRead('light.other')], [true, false, true]);
  t.equal(compilePolicy(groups.policyOf(['gone'])), NONE, 'a group no longer configured gives nothing');
  t.equal(compilePolicy(groups.policyOf([])), NONE);
});

t.test('core: auth_groups is checked with errors naming the entry and the key', async (t) => {
  const checked = validateCore({
    auth_groups: [{ id: 'kids', name: 'Kids', policy: { entities: { entity_ids: { 'light.kids': true }, domains: { sensor: { read: true } } } } }, { id: 'none' }],
  });
  t.same(checked.auth_groups, [
    { id: 'kids', name: 'Kids', policy: { entities: { entity_ids: { 'light.kids': true }, domains: { sensor: { read: true } } } } },
    { id: 'none', name: null, policy: {} },
  ]);
  t.same(validateCore(checked), checked, 'checking a result again gives the same result');
  const cases: Array<[unknown, RegExp]> = [
    [{ id: 'kids' }, /core: auth_groups: expected a list of groups/],
    [['kids'], /auth_groups\[0\]: expected a mapping/],
    [[{ name: 'x' }], /auth_groups\[0\]\.id: expected a non-empty string/],
    [[{ id: 'system-admin' }], /auth_groups\[0\] \(system-admin\)\.id: is a system group/],
    [[{ id: 'a' }, { id: 'a' }], /auth_groups\[1\] \(a\)\.id: another group has this id/],
    [[{ id: 'a', members: [] }], /auth_groups\[0\]\.members: extra keys not allowed/],
    [[{ id: 'a', policy: { services: true } }], /auth_groups\[0\] \(a\)\.policy\.services: extra keys not allowed/],
    [[{ id: 'a', policy: { entities: 'yes' } }], /policy\.entities: expected true, false or a mapping/],
    [[{ id: 'a', policy: { entities: { entity: {} } } }], /policy\.entities\.entity: extra keys not allowed/],
    [[{ id: 'a', policy: { entities: { entity_ids: { 'Light.X': true } } } }], /policy\.entities\.entity_ids\["Light\.X"\]: not a valid entity id/],
    [[{ id: 'a', policy: { entities: { domains: { 'bad domain': true } } } }], /domains\["bad domain"\]: not a valid domain/],
    [[{ id: 'a', policy: { entities: { all: { write: true } } } }], /policy\.entities\.all\.write: extra keys not allowed/],
    [[{ id: 'a', policy: { entities: { all: { read: 'yes' } } } }], /policy\.entities\.all\.read: expected a boolean/],
  ];
  for (const [value, message] of cases) t.throws(() => validateCore({ auth_groups: value }), message, JSON.stringify(value));
});

t.test('a bad auth_groups entry stops the start with a clear error', async (t) => {
  const yaml = 'core:\n  auth_groups:\n    - id: kids\n      policy:\n        entities:\n          entity_ids:\n            light.kids: {read: true, fly: true}\n';
  await t.rejects(startTestHearth(t, { config: yaml }), /configuration\.yaml: core: auth_groups\[0\] \(kids\)\.policy\.entities\.entity_ids\["light\.kids"\]\.fly: extra keys not allowed/);
});

// ---------------------------------------------------------------------------------------------
// a real Hearth

const GROUPS_YAML = `
  auth_groups:
    - id: kids
      name: Kids
      policy:
        entities:
          entity_ids:
            input_boolean.kids_room: true
          domains:
            sensor:
              read: true
    - id: hall_readers
      policy:
        entities:
          entity_ids:
            input_boolean.hall:
              read: true
`;
const HELPERS_YAML = `
input_boolean:
  kids_room: { name: Kids room }
  hall: { name: Hall }
  porch: { name: Porch }
input_number:
  volume: { min: 0, max: 10 }
`;
const CONFIG = `core:\n  name: Home${GROUPS_YAML}${HELPERS_YAML}`;
// zone.home is there in every home
const ALL_IDS = ['input_boolean.hall', 'input_boolean.kids_room', 'input_boolean.porch', 'input_number.volume', 'sensor.outside', 'zone.home'];
const UNAUTHORIZED_WS = { code: 'unauthorized', message: 'Unauthorized' };

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

/** A user made by the owner over the WebSocket API, then logged in through the login flow. */
async function userIn(base: string, owner: RawClient, name: string, groupIds: string[]) {
  const created = await ask(owner, { type: 'config/auth/create', name, group_ids: groupIds });
  if (!created.success) throw new Error(`cannot create ${name}: ${JSON.stringify(created.error)}`);
  const id = created.result.user.id as string;
  const password = `${name}-password`;
  await ask(owner, { type: 'config/auth_provider/homeassistant/create', user_id: id, username: name, password });
  const step = await login(base, name, password);
  const tokens = (await exchange(base, step.json.result)).json;
  return { id, token: tokens.access_token as string, rest: api(base, tokens.access_token) };
}

const idsOf = (states: Array<{ entity_id: string }>) => states.map((s) => s.entity_id).sort();

/** Messages until each predicate matched one, all of them in order. */
async function collectUntil(c: RawClient, ...preds: Array<(m: any) => boolean>) {
  const seen: any[] = [];
  const pending = new Set(preds);
  while (pending.size) {
    const m = await c.next();
    seen.push(m);
    for (const p of pending) if (p(m)) pending.delete(p);
  }
  return seen;
}

t.test('groups applied by a running Hearth', async (t) => {
  const { base, dataDir, hearth } = await startTestHearth(t, { config: CONFIG });
  const ownerTokens = await onboard(base);
  const owner = api(base, ownerTokens.access_token);
  const ownerWs = await authedClient(base, ownerTokens.access_token);
  t.equal((await owner('POST', '/api/states/sensor.outside', { state: '7' })).status, 201);
  t.same(idsOf((await owner('GET', '/api/states')).json), ALL_IDS, 'the owner sees everything');

  const reader = await userIn(base, ownerWs, 'reader', ['system-read-only']);
  const kid = await userIn(base, ownerWs, 'kid', ['kids']);
  const both = await userIn(base, ownerWs, 'both', ['kids', 'hall_readers']);
  const plain = await userIn(base, ownerWs, 'plain', ['system-users']);

  t.test('config/auth/create and update take configured groups, not unknown ones', async (t) => {
    const list = await ask(ownerWs, { type: 'config/auth/list' });
    t.same(list.result.find((u: any) => u.id === both.id).group_ids, ['kids', 'hall_readers']);
    const bad = await ask(ownerWs, { type: 'config/auth/create', name: 'x', group_ids: ['kids', 'pirates'] });
    t.same(bad.error, { code: 'unknown_error', message: 'Unknown error' }, 'the original\'s ValueError("Invalid group specified ...")');
    const badUpdate = await ask(ownerWs, { type: 'config/auth/update', user_id: plain.id, group_ids: ['pirates'] });
    t.same(badUpdate.error, { code: 'unknown_error', message: 'Unknown error' });
  });

  t.test('a read-only user reads everything and changes nothing', async (t) => {
    t.same(idsOf((await reader.rest('GET', '/api/states')).json), ALL_IDS);
    t.equal((await reader.rest('GET', '/api/states/input_boolean.porch')).json.state, 'off');
    const call = await reader.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.porch' });
    t.equal(call.status, 401);
    t.equal(call.text, '401: Unauthorized', 'the original\'s plain 401');
    t.equal((await owner('GET', '/api/states/input_boolean.porch')).json.state, 'off', 'nothing changed');
    const everything = await reader.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'all' });
    t.same([everything.status, everything.json], [200, []], 'all: only the entities it may control, which is none');
    t.equal((await reader.rest('POST', '/api/services/core/turn_on', { entity_id: 'input_boolean.porch' })).status, 401, 'core.turn_on: the call it makes is checked');
    t.equal((await reader.rest('POST', '/api/services/input_boolean/reload', {})).status, 401, 'an admin service');
    t.equal((await reader.rest('POST', '/api/services/core/set_location', { latitude: 1, longitude: 2 })).status, 401);
    t.equal((await reader.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 42 })).status, 400, 'the schema is checked first');
    for (const [method, path, body] of [
      ['POST', '/api/states/sensor.outside', { state: '1' }],
      ['DELETE', '/api/states/sensor.outside', undefined],
      ['POST', '/api/events/test_event', {}],
      ['GET', '/api/stream', undefined],
    ] as const) {
      const r = await reader.rest(method, path, body);
      t.same([r.status, r.text], [401, '401: Unauthorized'], `${method} ${path} is for admins`);
    }
    const ws = await authedClient(base, reader.token);
    const refused = await ask(ws, { type: 'call_service', domain: 'input_boolean', service: 'turn_on', target: { entity_id: 'input_boolean.porch' } });
    t.same(refused.error, { code: 'home_assistant_error', message: 'Unauthorized' }, 'the original catches Unauthorized as a HomeAssistantError');
    t.same((await ask(ws, { type: 'fire_event', event_type: 'x' })).error, UNAUTHORIZED_WS);
    t.same((await ask(ws, { type: 'config/auth/list' })).error, UNAUTHORIZED_WS);
    t.same((await ask(ws, { type: 'subscribe_events' })).error, UNAUTHORIZED_WS, 'every event type is for admins');
    t.same(idsOf((await ask(ws, { type: 'get_states' })).result), ALL_IDS);
    ws.ws.close();
  });

  t.test('a user of the system-users group may do anything to entities', async (t) => {
    t.same(idsOf((await plain.rest('GET', '/api/states')).json), ALL_IDS);
    t.equal((await plain.rest('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.porch' })).status, 200);
    t.equal((await owner('GET', '/api/states/input_boolean.porch')).json.state, 'on');
    t.equal((await plain.rest('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.porch' })).status, 200);
    t.equal((await plain.rest('POST', '/api/services/input_boolean/reload', {})).status, 401, 'but is no admin');
  });

  t.test('a kid sees and controls only what its group allows', async (t) => {
    const visible = ['input_boolean.kids_room', 'sensor.outside'];
    t.same(idsOf((await kid.rest('GET', '/api/states')).json), visible);
    t.equal((await kid.rest('GET', '/api/states/input_boolean.kids_room')).status, 200);
    t.equal((await kid.rest('GET', '/api/states/sensor.outside')).json.state, '7');
    t.same((await kid.rest('GET', '/api/states/sensor.nothing')).status, 404, 'a readable domain: not found is not found');
    for (const id of ['input_boolean.porch', 'input_number.volume', 'input_boolean.nothing']) {
      const r = await kid.rest('GET', `/api/states/${id}`);
      t.same([r.status, r.text], [401, '401: Unauthorized'], `${id} is unreadable, existing or not`);
    }

    const on = await kid.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.kids_room' });
    t.same([on.status, on.json.map((s: any) => [s.entity_id, s.state])], [200, [['input_boolean.kids_room', 'on']]]);
    t.equal((await kid.rest('POST', '/api/services/input_boolean/turn_off', { entity_id: ['input_boolean.kids_room', 'input_boolean.porch'] })).status, 401, 'one target it may not control refuses the call');
    t.equal((await owner('GET', '/api/states/input_boolean.kids_room')).json.state, 'on', 'and nothing was done');
    t.equal((await kid.rest('POST', '/api/services/input_number/set_value', { entity_id: 'input_number.volume', value: 3 })).status, 401);
    t.equal((await kid.rest('POST', '/api/services/sensor/nothing', {})).status, 400, 'an unknown service stays a 400');
    const everything = await kid.rest('POST', '/api/services/input_boolean/turn_off', { entity_id: 'all' });
    t.same(everything.json.map((s: any) => s.entity_id), ['input_boolean.kids_room'], 'all: only what it may control');
    t.equal((await owner('GET', '/api/states/input_boolean.porch')).json.state, 'off');

    const ws = await authedClient(base, kid.token);
    t.same(idsOf((await ask(ws, { type: 'get_states' })).result), visible, 'get_states filtered');
    const wsCall = await ask(ws, { type: 'call_service', domain: 'input_boolean', service: 'turn_on', service_data: { entity_id: 'input_boolean.kids_room' } });
    t.equal(wsCall.success, true);
    ws.ws.close();
  });

  t.test('subscriptions carry only what the user may read', async (t) => {
    const ws = await authedClient(base, kid.token);
    const entitiesSub = nextId++;
    ws.send({ id: entitiesSub, type: 'subscribe_entities' });
    t.equal((await ws.until((m) => m.id === entitiesSub && m.type === 'result')).success, true);
    const initial = await ws.until((m) => m.id === entitiesSub && m.type === 'event');
    t.same(Object.keys(initial.event.a).sort(), ['input_boolean.kids_room', 'sensor.outside'], 'the initial set is filtered');
    const eventsSub = nextId++;
    ws.send({ id: eventsSub, type: 'subscribe_events', event_type: 'state_changed' });
    t.equal((await ws.until((m) => m.id === eventsSub && m.type === 'result')).success, true);

    // a forbidden change first: had it been sent, it would come before the allowed one
    await owner('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.porch' });
    await owner('POST', '/api/states/sensor.outside', { state: '8' });
    const messages = await collectUntil(
      ws,
      (m) => m.id === entitiesSub && m.event?.c?.['sensor.outside'] !== undefined,
      (m) => m.id === eventsSub && m.event?.data?.entity_id === 'sensor.outside',
    );
    const seen = messages.flatMap((m) => (m.id === entitiesSub ? Object.keys(m.event.c ?? m.event.a ?? {}) : [m.event.data.entity_id]));
    t.notOk(seen.includes('input_boolean.porch'), 'the forbidden change never arrived');
    t.same(seen, ['sensor.outside', 'sensor.outside'], 'the allowed one arrived on both subscriptions');

    // the owner moves the kid to the read-only group: open subscriptions follow at once
    t.equal((await ask(ownerWs, { type: 'config/auth/update', user_id: kid.id, group_ids: ['system-read-only'] })).success, true);
    await owner('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.porch' });
    const promoted = await collectUntil(
      ws,
      (m) => m.id === entitiesSub && m.event?.c?.['input_boolean.porch'] !== undefined,
      (m) => m.id === eventsSub && m.event?.data?.entity_id === 'input_boolean.porch',
    );
    t.equal(promoted.length, 2, 'a change of the user\'s groups applies to its open subscriptions');
    t.same(idsOf((await kid.rest('GET', '/api/states')).json), ALL_IDS);
    t.equal((await kid.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.kids_room' })).status, 401, 'and it no longer controls its room');
    t.equal((await ask(ownerWs, { type: 'config/auth/update', user_id: kid.id, group_ids: ['kids'] })).success, true);
    t.same(idsOf((await kid.rest('GET', '/api/states')).json), ['input_boolean.kids_room', 'sensor.outside'], 'and back');
    ws.ws.close();
  });

  t.test('two groups merge', async (t) => {
    t.same(idsOf((await both.rest('GET', '/api/states')).json), ['input_boolean.hall', 'input_boolean.kids_room', 'sensor.outside']);
    t.equal((await both.rest('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.kids_room' })).status, 200);
    t.equal((await both.rest('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.hall' })).status, 401, 'hall: read only');
  });

  t.test('a group removed from the configuration gives nothing', async (t) => {
    ownerWs.ws.close();
    await hearth.stop();
    await writeFile(join(dataDir, 'configuration.yaml'), `core:\n  name: Home\n${HELPERS_YAML}`);
    const again = await startTestHearth(t, { dataDir });
    const rest = api(again.base, kid.token);
    const states = await rest('GET', '/api/states');
    t.same([states.status, states.json], [200, []], 'its members read nothing, and nothing failed');
    t.equal((await rest('GET', '/api/states/input_boolean.kids_room')).status, 401);
    t.equal((await rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.kids_room' })).status, 401);
    t.equal((await api(again.base, reader.token)('GET', '/api/states')).json.length, ALL_IDS.length, 'system groups stay');
    const ws = await authedClient(again.base, ownerTokens.access_token);
    const list = await ask(ws, { type: 'config/auth/list' });
    t.same(list.result.find((u: any) => u.id === kid.id).group_ids, ['kids'], 'the user keeps the group id');
    ws.ws.close();
  });
});

t.test('a group whose policy names an area sees what the registries put there, as they change', async (t) => {
  const config = [
    'core:',
    '  auth_groups:',
    '    - id: kitchen_staff',
    '      policy:',
    '        entities:',
    '          area_ids:',
    '            kitchen: true',
    'input_boolean:',
    '  kettle: { name: Kettle }',
    '  oven: { name: Oven }',
    '  porch: { name: Porch }',
  ].join('\n');
  const h = await startTestHearth(t, { config });
  const owner = await onboard(h.base);
  const ownerWs = await authedClient(h.base, owner.access_token);
  const area = await ask(ownerWs, { type: 'config/area_registry/create', name: 'Kitchen' });
  t.equal(area.result.area_id, 'kitchen');
  await ask(ownerWs, { type: 'config/entity_registry/update', entity_id: 'input_boolean.kettle', area_id: 'kitchen' });
  const cook = await userIn(h.base, ownerWs, 'cook', ['kitchen_staff']);
  const visible = async () => idsOf((await cook.rest('GET', '/api/states')).json);
  t.same(await visible(), ['input_boolean.kettle']);
  t.equal((await cook.rest('GET', '/api/states/input_boolean.oven')).status, 401);
  await ask(ownerWs, { type: 'config/entity_registry/update', entity_id: 'input_boolean.oven', area_id: 'kitchen' });
  t.same(await visible(), ['input_boolean.kettle', 'input_boolean.oven'], 'moved into the kitchen: readable at once');
  t.equal((await cook.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.oven' })).status, 200, 'and controllable');
  t.equal((await cook.rest('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.porch' })).status, 401);
  ownerWs.ws.close();
});
