// The MQTT platforms as configured in configuration.yaml (both forms the original accepts) against
// a real Mosquitto: templates, JSON attributes, expire_after, off_delay, last_reset, force_update,
// optimistic switches, command templates, availability in its three modes, and what an unchanged
// value writes (nothing). Expected states follow the original's tests/components/mqtt/test_sensor.py,
// test_binary_sensor.py, test_switch.py and test_common.py.
import t from 'tap';
import { join } from 'node:path';
import { writeFile } from 'node:fs/promises';
import { openEventLog } from '../../../store/log.ts';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('sensor: templates, JSON attributes, expire_after, last_reset, unchanged values write nothing', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  sensor:
    - name: Energy
      unique_id: meter_energy
      state_topic: meter/state
      value_template: "{{ value_json.energy | float * 2 }}"
      unit_of_measurement: kWh
      device_class: energy
      state_class: total
      last_reset_value_template: "{{ value_json.reset }}"
      json_attributes_topic: meter/attributes
      json_attributes_template: "{{ value_json.info | tojson }}"
    - name: Expiring
      state_topic: expiring/state
      expire_after: 1
    - name: Named after me
      state_topic: me/state
      value_template: "{{ entity_id }} {{ this.state }} {{ value }}"
    - name: Forced
      state_topic: forced/state
      force_update: true
    - name: Plain
      state_topic: plain/state
    - name: Combined
      state_topic: combined/data
      value_template: "{{ value_json.v }}"
      json_attributes_topic: combined/data
`,
  });
  await s.exist('sensor.energy', 'sensor.expiring', 'sensor.named_after_me', 'sensor.forced', 'sensor.plain', 'sensor.combined');
  await s.publish('meter/state', { energy: 2.5, reset: '2024-01-01T00:00:00+01:00' }, false);
  const energy = await s.until('sensor.energy', (x) => x.state === '5.0');
  t.same(energy.attributes, { state_class: 'total', last_reset: '2024-01-01T00:00:00+01:00', unit_of_measurement: 'kWh', device_class: 'energy', friendly_name: 'Energy' });
  await s.publish('meter/attributes', { info: { firmware: '1.2', state: 'blocked', icon: 'blocked too' } }, false);
  const withAttributes = await s.until('sensor.energy', (x) => x.attributes.firmware === '1.2');
  t.same(withAttributes.attributes, { state_class: 'total', last_reset: '2024-01-01T00:00:00+01:00', firmware: '1.2', unit_of_measurement: 'kWh', device_class: 'energy', friendly_name: 'Energy' }, 'JSON attributes after the state attributes; blocked keys dropped');

  // a non-numeric value for a numeric sensor is refused with the original's words
  await s.publish('meter/state', { energy: 'lots' }, false);
  await eventually(() => s.h.lines.some((l) => l.includes('rendering template')), 'the template failure logged');
  t.equal((await s.state('sensor.energy')).state, '5.0', 'the value stays');

  await s.publish('expiring/state', 'fresh', false);
  await s.until('sensor.expiring', (x) => x.state === 'fresh');
  await s.until('sensor.expiring', (x) => x.state === 'unavailable', 'expired after a second');
  await s.publish('expiring/state', 'again', false);
  await s.until('sensor.expiring', (x) => x.state === 'again');

  await s.publish('me/state', 'one', false);
  await s.until('sensor.named_after_me', (x) => x.state === 'sensor.named_after_me unknown one');
  await s.publish('me/state', 'two', false);
  await s.until('sensor.named_after_me', (x) => x.state === 'sensor.named_after_me sensor.named_after_me unknown one two', '`this` is the state before');

  // the same value again: no record; with force_update: a state_changed each time
  await s.publish('forced/state', '7', false);
  await s.until('sensor.forced', (x) => x.state === '7');
  await s.publish('plain/state', 'same', false);
  await s.publish('plain/state', 'same', false);
  await s.publish('forced/state', '7', false);
  await s.publish('forced/state', '8', false);
  await s.until('sensor.forced', (x) => x.state === '8');
  // one message on the state topic that is also the JSON attributes topic: one write holding both
  await s.publish('combined/data', { v: 1, x: 'a' }, false);
  await s.until('sensor.combined', (x) => x.state === '1' && x.attributes.x === 'a');
  await s.h.hearth.stop();
  const log = await openEventLog({ path: join(s.h.dataDir, 'log') });
  t.teardown(() => log.close());
  const writes = async (entityId: string) => {
    const out: string[] = [];
    for await (const r of log.read({ stream: `entity/${entityId}` })) out.push(`${r.type}:${r.data.new_state?.state}`);
    return out;
  };
  t.same(await writes('sensor.forced'), ['state_changed:unavailable', 'state_changed:unknown', 'state_changed:7', 'state_changed:7', 'state_changed:8'], 'force_update writes the same value again');
  t.same(await writes('sensor.plain'), ['state_changed:unavailable', 'state_changed:unknown', 'state_changed:same'], 'an unchanged value wrote nothing');
  t.same(await writes('sensor.combined'), ['state_changed:unavailable', 'state_changed:unknown', 'state_changed:1'], 'a state and its attributes from one message: one write');
});

t.test('binary_sensor, switch and button in the list form of the section, on the broker the config entry names', async (t) => {
  // the first start imports configuration.yaml's broker into the config entry (a record); the
  // list form names no broker, so the second start connects with the entry's
  const first = await mqttScene(t);
  await first.h.hearth.stop();
  await writeFile(join(first.h.dataDir, 'configuration.yaml'), `mqtt:
  - binary_sensor:
      - name: Door
        state_topic: door/state
        payload_on: "open"
        payload_off: "closed"
        device_class: door
      - name: Doorbell
        state_topic: bell/state
        off_delay: 1
  - switch:
      - name: Hallway
        unique_id: hallway_switch
        state_topic: hallway/state
        command_topic: hallway/set
        command_template: '{"state": "{{ value }}", "from": "{{ entity_id }}"}'
        qos: 1
        retain: true
      - name: Guessing
        command_topic: guessing/set
        payload_on: "1"
        payload_off: "0"
    button:
      - name: Reboot
        command_topic: reboot/set
        payload_press: REBOOT
        device_class: restart
`);
  const s = await mqttScene(t, { dataDir: first.h.dataDir, broker: first.broker, token: first.token });
  await s.exist('binary_sensor.door', 'binary_sensor.doorbell', 'switch.hallway', 'switch.guessing', 'button.reboot');

  await s.publish('door/state', 'open', false);
  t.same((await s.until('binary_sensor.door', (x) => x.state === 'on')).attributes, { device_class: 'door', friendly_name: 'Door' });
  await s.publish('door/state', 'ajar', false);
  await eventually(() => s.h.lines.some((l) => l.startsWith("No matching payload found for entity: binary_sensor.door with state topic: door/state. Payload: 'ajar'")), 'the unknown payload logged');
  await s.publish('door/state', 'None', false);
  await s.until('binary_sensor.door', (x) => x.state === 'unknown', 'None: unknown');
  await s.publish('bell/state', 'ON', false);
  await s.until('binary_sensor.doorbell', (x) => x.state === 'on');
  await s.until('binary_sensor.doorbell', (x) => x.state === 'off', 'off_delay');

  // a switch with a state topic publishes and waits for the device to say
  await s.call('POST', '/api/services/switch/turn_on', { entity_id: 'switch.hallway' });
  await eventually(() => s.seen.includes('hallway/set={"state": "ON", "from": "switch.hallway"}'), 'the rendered command');
  t.equal((await s.state('switch.hallway')).state, 'unknown', 'not optimistic: the state waits for the device');
  await s.publish('hallway/state', 'ON', false);
  await s.until('switch.hallway', (x) => x.state === 'on');

  // an optimistic switch (no state topic) takes the state at once and says it assumes it
  t.same((await s.state('switch.guessing')).attributes, { assumed_state: true, friendly_name: 'Guessing' });
  await s.call('POST', '/api/services/switch/toggle', { entity_id: 'switch.guessing' });
  await eventually(() => s.seen.includes('guessing/set=1'), 'payload_on');
  await s.until('switch.guessing', (x) => x.state === 'on');
  await s.call('POST', '/api/services/switch/toggle', { entity_id: 'switch.guessing' });
  await eventually(() => s.seen.includes('guessing/set=0'), 'payload_off');
  await s.until('switch.guessing', (x) => x.state === 'off');

  const pressed = await s.call('POST', '/api/services/button/press', { entity_id: 'button.reboot' });
  t.equal(pressed.status, 200);
  await eventually(() => s.seen.includes('reboot/set=REBOOT'), 'payload_press');
  const reboot = await s.until('button.reboot', (x) => x.state !== 'unknown');
  t.match(reboot.state, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/, 'the time of the press');
  t.same(reboot.attributes, { device_class: 'restart', friendly_name: 'Reboot' });
});

t.test('availability: all, any and latest over two topics; a template', async (t) => {
  const availability = (mode: string) => `      availability_mode: ${mode}
      availability:
        - topic: a/status
        - topic: b/status
          payload_available: "yes"
          payload_not_available: "no"
          value_template: "{{ value_json.ok }}"
`;
  const s = await mqttScene(t, {
    extraYaml: `  sensor:
    - name: All
      state_topic: x/state
${availability('all')}    - name: Any
      state_topic: x/state
${availability('any')}    - name: Latest
      state_topic: x/state
${availability('latest')}`,
  });
  await s.exist('sensor.all', 'sensor.any', 'sensor.latest');
  const states = async () => [(await s.state('sensor.all')).state, (await s.state('sensor.any')).state, (await s.state('sensor.latest')).state];
  t.same(await states(), ['unavailable', 'unavailable', 'unavailable'], 'every topic starts unavailable');
  await s.publish('x/state', 'v', false);
  await s.publish('a/status', 'online');
  await eventually(async () => JSON.stringify(await states()) === '["unavailable","v","v"]', 'one topic available');
  await s.publish('b/status', { ok: 'yes' });
  await eventually(async () => JSON.stringify(await states()) === '["v","v","v"]', 'both available');
  await s.publish('a/status', 'offline');
  await eventually(async () => JSON.stringify(await states()) === '["unavailable","v","unavailable"]', 'the first unavailable again: all no, any yes, latest no');
  await s.publish('b/status', { ok: 'yes' }, false);
  await eventually(async () => JSON.stringify(await states()) === '["unavailable","v","v"]', 'latest follows the last payload on any topic');
});
