// device_automation/* over a real WebSocket, against virtual devices: the original's records
// (entity named by its registry id, metadata.secondary) for each domain, and capabilities as
// voluptuous-serialize writes them (cross-checked against the original's
// tests/components/<domain>/test_device_{action,trigger,condition}.py).
import t from 'tap';
import { startTestHearth, onboard } from '../helpers/hearth.ts';
import { authedClient, type RawClient } from '../helpers/ws.ts';

const CONFIG = `light:
  - platform: virtual
    name: Desk
    unique_id: desk
switch:
  - platform: virtual
    name: Kettle
    unique_id: kettle
cover:
  - platform: virtual
    name: Blind
    unique_id: blind
    tilt: true
lock:
  - platform: virtual
    name: Front door
    unique_id: front_door
    supports_open: true
binary_sensor:
  - platform: virtual
    name: Hall motion
    unique_id: hall_motion
    device_class: motion
  - platform: virtual
    name: Leak
    unique_id: leak
`;

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>) {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id);
}

t.test('device automations of virtual devices', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: CONFIG });
  const { access_token } = await onboard(base);
  const c = await authedClient(base, access_token);
  t.teardown(() => c.ws.close());
  const entry = (entityId: string) => hearth.registries.entities().find((e) => e.entity_id === entityId)!;
  const list = async (kind: string, entityId: string) => {
    const answer = await ask(c, { type: `device_automation/${kind}/list`, device_id: entry(entityId).device_id });
    t.equal(answer.success, true, JSON.stringify(answer.error));
    return answer.result as Array<Record<string, unknown>>;
  };
  const typesOf = (records: Array<Record<string, unknown>>) => records.map((r) => r.type);
  const capabilities = async (kind: string, record: Record<string, unknown>) => (await ask(c, { type: `device_automation/${kind}/capabilities`, [kind]: record })).result;

  await t.test('a light: toggle actions, brightness and flash by its modes and features', async (t) => {
    const desk = entry('light.desk');
    const actions = await list('action', 'light.desk');
    t.same(typesOf(actions), ['turn_off', 'turn_on', 'toggle', 'brightness_increase', 'brightness_decrease', 'flash']);
    t.same(actions[0], { type: 'turn_off', device_id: desk.device_id, entity_id: desk.id, domain: 'light', metadata: { secondary: false } });
    const triggers = await list('trigger', 'light.desk');
    t.same(triggers[1], { platform: 'device', type: 'turned_off', device_id: desk.device_id, entity_id: desk.id, domain: 'light', metadata: { secondary: false } });
    t.same(typesOf(triggers), ['changed_states', 'turned_off', 'turned_on']);
    const conditions = await list('condition', 'light.desk');
    t.same(conditions[1], { condition: 'device', type: 'is_on', device_id: desk.device_id, entity_id: desk.id, domain: 'light', metadata: { secondary: false } });

    t.same(await capabilities('action', actions[1]), {
      extra_fields: [
        { name: 'brightness_pct', optional: true, type: 'float', valueMin: 0, valueMax: 100 },
        { name: 'flash', optional: true, type: 'select', options: [['short', 'short'], ['long', 'long']] },
      ],
    });
    t.same(await capabilities('action', actions[0]), { extra_fields: [] }, 'turn_off takes nothing');
    t.same(await capabilities('trigger', triggers[0]), { extra_fields: [{ name: 'for', optional: true, type: 'positive_time_period_dict' }] });
    t.same(await capabilities('condition', conditions[0]), { extra_fields: [{ name: 'for', optional: true, type: 'positive_time_period_dict' }] });
  });

  await t.test('a switch is a toggle entity; its actions have no capabilities', async (t) => {
    const actions = await list('action', 'switch.kettle');
    t.same(typesOf(actions), ['turn_off', 'turn_on', 'toggle']);
    t.same(await capabilities('action', actions[0]), {});
  });

  await t.test('a cover by its features, with position fields', async (t) => {
    const actions = await list('action', 'cover.blind');
    t.same(typesOf(actions), ['set_position', 'open', 'close', 'stop', 'set_tilt_position', 'open_tilt', 'close_tilt']);
    t.same(await capabilities('action', actions[0]), { extra_fields: [{ name: 'position', optional: true, type: 'integer', default: 0, valueMin: 0, valueMax: 100 }] });
    const triggers = await list('trigger', 'cover.blind');
    t.same(typesOf(triggers), ['opened', 'closed', 'opening', 'closing', 'position', 'tilt_position']);
    t.same((await capabilities('trigger', triggers[4])).extra_fields.map((f: any) => [f.name, f.default]), [['above', 0], ['below', 100]]);
    t.same(typesOf(await list('condition', 'cover.blind')), ['is_open', 'is_closed', 'is_opening', 'is_closing', 'is_position', 'is_tilt_position']);
  });

  await t.test('a lock, open only when it supports it', async (t) => {
    t.same(typesOf(await list('action', 'lock.front_door')), ['lock', 'unlock', 'open']);
    t.same(typesOf(await list('trigger', 'lock.front_door')), ['jammed', 'locked', 'locking', 'open', 'opening', 'unlocked', 'unlocking']);
    t.same(typesOf(await list('condition', 'lock.front_door')), ['is_jammed', 'is_locked', 'is_locking', 'is_open', 'is_opening', 'is_unlocked', 'is_unlocking']);
  });

  await t.test('a binary sensor by its device class', async (t) => {
    t.same(typesOf(await list('trigger', 'binary_sensor.hall_motion')), ['motion', 'no_motion']);
    t.same(typesOf(await list('condition', 'binary_sensor.hall_motion')), ['is_motion', 'is_no_motion']);
    t.same(typesOf(await list('trigger', 'binary_sensor.leak')), ['turned_on', 'turned_off'], 'without a class: on and off');
    t.same(await list('action', 'binary_sensor.leak'), [], 'a binary sensor has no actions');
  });

  await t.test('a hidden entity is secondary; an unknown device is not found', async (t) => {
    const hidden = await ask(c, { type: 'config/entity_registry/update', entity_id: 'switch.kettle', hidden_by: 'user' });
    t.equal(hidden.success, true);
    t.same((await list('action', 'switch.kettle')).map((r) => r.metadata), [{ secondary: true }, { secondary: true }, { secondary: true }]);
    const unknown = await ask(c, { type: 'device_automation/trigger/list', device_id: 'nope' });
    t.same(unknown.error, { code: 'not_found', message: 'Device not found' });
  });
});
