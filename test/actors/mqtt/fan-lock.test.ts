// MQTT fans and locks against a real Mosquitto. A zigbee2mqtt-style ceiling fan whose speed is a
// fan_mode word (the value and command templates Koenkk/zigbee2mqtt lib/extension/homeassistant.ts
// gives a fan: a speed range of 1..4, preset mode `smart`), an optimistic fan with oscillation and
// direction; zigbee2mqtt's lock (state_locked LOCK, state_unlocked UNLOCK, as its test
// test/extensions/homeassistant.test.ts discovers one) and an optimistic lock with code_format and a
// command template that sees the code. Behaviour follows homeassistant/components/mqtt/fan.py and
// lock.py and the FanEntity and LockEntity they build on.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('fan: a speed range through templates, preset modes; an optimistic fan', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  fan:
    - name: Desk fan
      command_topic: deskfan/set
      oscillation_command_topic: deskfan/osc/set
      direction_command_topic: deskfan/dir/set
      percentage_command_topic: deskfan/pct/set
      speed_range_min: 1
      speed_range_max: 3
`,
  });
  await s.publish('homeassistant/fan/0x00158d0004ab12cd/fan/config', {
    state_topic: 'zigbee2mqtt/ceiling_fan',
    state_value_template: '{{ value_json.fan_state }}',
    command_topic: 'zigbee2mqtt/ceiling_fan/set/fan_state',
    percentage_state_topic: 'zigbee2mqtt/ceiling_fan',
    percentage_command_topic: 'zigbee2mqtt/ceiling_fan/set/fan_mode',
    percentage_value_template: "{{ {'off': 0, 'low': 1, 'medium': 2, 'high': 3, 'on': 4}[value_json.fan_mode] | default('None') }}",
    percentage_command_template: "{{ {0: 'off', 1: 'low', 2: 'medium', 3: 'high', 4: 'on'}[value] | default('') }}",
    preset_mode_state_topic: 'zigbee2mqtt/ceiling_fan',
    preset_mode_command_topic: 'zigbee2mqtt/ceiling_fan/set/fan_mode',
    preset_mode_value_template: "{{ value_json.fan_mode if value_json.fan_mode in ['smart'] else 'None' }}",
    preset_modes: ['smart'],
    speed_range_min: 1,
    speed_range_max: 4,
    name: null,
    object_id: 'ceiling_fan',
    unique_id: '0x00158d0004ab12cd_fan_zigbee2mqtt',
    device: { identifiers: ['zigbee2mqtt_0x00158d0004ab12cd'], name: 'Ceiling fan', model: 'Fan controller', manufacturer: 'Hampton Bay' },
  });
  await s.exist('fan.ceiling_fan', 'fan.desk_fan');
  t.same(await s.state('fan.ceiling_fan').then((x) => [x.state, x.attributes]), [
    'unknown',
    { preset_modes: ['smart'], percentage: null, percentage_step: 25, preset_mode: null, friendly_name: 'Ceiling fan', supported_features: 57 },
  ]);
  await s.publish('zigbee2mqtt/ceiling_fan', { fan_state: 'ON', fan_mode: 'medium' }, false);
  const on = await s.until('fan.ceiling_fan', (x) => x.state === 'on' && x.attributes.percentage === 50);
  t.equal(on.attributes.preset_mode, null, 'medium is speed 2 of 4: 50%');
  await s.publish('zigbee2mqtt/ceiling_fan', { fan_state: 'ON', fan_mode: 'smart' }, false);
  await s.until('fan.ceiling_fan', (x) => x.attributes.preset_mode === 'smart');
  await s.publish('zigbee2mqtt/ceiling_fan', { fan_state: 'ON', fan_mode: 'medium' }, false);
  await s.until('fan.ceiling_fan', (x) => x.attributes.preset_mode === null);

  const sent = () => s.seen.filter((m) => m.startsWith('zigbee2mqtt/ceiling_fan/set/'));
  const call = async (service: string, data: Record<string, unknown>, expected: string[]) => {
    const before = sent().length;
    t.equal((await s.call('POST', `/api/services/fan/${service}`, { entity_id: 'fan.ceiling_fan', ...data })).status, 200, `${service} ${JSON.stringify(data)}`);
    await eventually(() => sent().length >= before + expected.length, expected.join(' '));
    t.same(sent().slice(before).map((m) => m.slice('zigbee2mqtt/ceiling_fan/set/'.length)), expected);
  };
  await call('set_percentage', { percentage: 75 }, ['fan_mode=high']);
  await call('set_percentage', { percentage: 10 }, ['fan_mode=low']);
  await call('increase_speed', {}, ['fan_mode=high']);
  await call('turn_on', { percentage: 100 }, ['fan_state=ON', 'fan_mode=on']);
  await call('set_preset_mode', { preset_mode: 'smart' }, ['fan_mode=smart']);
  await call('turn_off', {}, ['fan_state=OFF']);
  const turbo = await s.call('POST', '/api/services/fan/set_preset_mode', { entity_id: 'fan.ceiling_fan', preset_mode: 'turbo' });
  t.equal(turbo.status, 400, 'a preset mode it does not have is refused');
  t.equal((await s.state('fan.ceiling_fan')).attributes.percentage, 50, 'not optimistic: the speed waits for the device');
  t.equal((await s.call('POST', '/api/services/fan/oscillate', { entity_id: 'fan.ceiling_fan', oscillating: true })).status, 400, 'no oscillation topic: no oscillate');

  // optimistic: every command sets what it shows
  t.same((await s.state('fan.desk_fan')).attributes, {
    preset_modes: [], direction: null, oscillating: null, percentage: null, percentage_step: 100 / 3, preset_mode: null,
    assumed_state: true, friendly_name: 'Desk fan', supported_features: 55,
  });
  const desk = async (service: string, data: Record<string, unknown> = {}) => {
    t.equal((await s.call('POST', `/api/services/fan/${service}`, { entity_id: 'fan.desk_fan', ...data })).status, 200, service);
  };
  await desk('oscillate', { oscillating: true });
  await desk('set_direction', { direction: 'reverse' });
  await desk('set_percentage', { percentage: 50 });
  await desk('toggle');
  const assumed = await s.until('fan.desk_fan', (x) => x.state === 'on');
  t.match(assumed.attributes, { direction: 'reverse', oscillating: true, percentage: 50 });
  await desk('toggle');
  await s.until('fan.desk_fan', (x) => x.state === 'off');
  await eventually(() => s.seen.filter((m) => m.startsWith('deskfan/')).length === 5, 'five commands');
  t.same(s.seen.filter((m) => m.startsWith('deskfan/')), ['deskfan/osc/set=oscillate_on', 'deskfan/dir/set=reverse', 'deskfan/pct/set=2', 'deskfan/set=ON', 'deskfan/set=OFF']);
});

t.test('lock: a zigbee2mqtt lock; an optimistic lock with a code format and a command template', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  lock:
    - name: Gate
      command_topic: gate/set
      command_template: '{"action": "{{ value }}", "code": "{{ code }}"}'
      code_format: '^\\d{4}$'
      payload_open: OPEN
`,
  });
  await s.publish('homeassistant/lock/0x000d6f000e1a2b3c/lock/config', {
    command_topic: 'zigbee2mqtt/front_door/set',
    state_topic: 'zigbee2mqtt/front_door',
    value_template: '{{ value_json.state }}',
    state_locked: 'LOCK',
    state_unlocked: 'UNLOCK',
    name: null,
    object_id: 'front_door',
    unique_id: '0x000d6f000e1a2b3c_lock_zigbee2mqtt',
    device: { identifiers: ['zigbee2mqtt_0x000d6f000e1a2b3c'], name: 'Front door', model: 'YRD226HA2619', manufacturer: 'Yale' },
  });
  await s.exist('lock.front_door', 'lock.gate');
  t.same(await s.state('lock.front_door').then((x) => [x.state, x.attributes]), ['unknown', { friendly_name: 'Front door', supported_features: 0 }]);
  for (const [payload, state] of [['LOCK', 'locked'], ['UNLOCK', 'unlocked'], ['JAMMED', 'jammed'], ['LOCKING', 'locking'], ['None', 'unknown']]) {
    await s.publish('zigbee2mqtt/front_door', { state: payload }, false);
    await s.until('lock.front_door', (x) => x.state === state, `${payload}: ${state}`);
  }
  const sent = () => s.seen.filter((m) => m.startsWith('zigbee2mqtt/front_door/set='));
  t.equal((await s.call('POST', '/api/services/lock/lock', { entity_id: 'lock.front_door' })).status, 200);
  t.equal((await s.call('POST', '/api/services/lock/unlock', { entity_id: 'lock.front_door' })).status, 200);
  await eventually(() => sent().length === 2, 'two commands');
  t.same(sent(), ['zigbee2mqtt/front_door/set=LOCK', 'zigbee2mqtt/front_door/set=UNLOCK']);
  t.equal((await s.state('lock.front_door')).state, 'unknown', 'it waits for the lock');
  t.equal((await s.call('POST', '/api/services/lock/open', { entity_id: 'lock.front_door' })).status, 400, 'no payload_open: no open');

  t.same((await s.state('lock.gate')).attributes, { code_format: '^\\d{4}$', assumed_state: true, friendly_name: 'Gate', supported_features: 1 });
  t.equal((await s.call('POST', '/api/services/lock/lock', { entity_id: 'lock.gate', code: '1234' })).status, 200);
  await s.until('lock.gate', (x) => x.state === 'locked');
  const refused = await s.call('POST', '/api/services/lock/unlock', { entity_id: 'lock.gate', code: '12' });
  t.equal(refused.status, 400, 'a code that does not match code_format');
  t.equal((await s.call('POST', '/api/services/lock/open', { entity_id: 'lock.gate', code: 9999 })).status, 200);
  await s.until('lock.gate', (x) => x.state === 'open');
  await eventually(() => s.seen.filter((m) => m.startsWith('gate/')).length === 2, 'two commands');
  t.same(s.seen.filter((m) => m.startsWith('gate/')), ['gate/set={"action": "LOCK", "code": "1234"}', 'gate/set={"action": "OPEN", "code": "9999"}']);
});
