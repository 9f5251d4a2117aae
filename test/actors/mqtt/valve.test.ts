// MQTT valves against a real Mosquitto: one with open/closed states and a stop payload, one that
// reports its position on a 0..255 device range (with a command template seeing `position`), and
// an optimistic one; the options and payloads of the original's tests/components/mqtt/test_valve.py,
// behaviour as homeassistant/components/mqtt/valve.py and the ValveEntity it builds on.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('valves: states, positions on a device range, stop, optimistic mode', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  valve:
    - name: Water
      command_topic: water/set
      state_topic: water/state
      payload_stop: STOP
      device_class: water
    - name: Gas
      command_topic: gas/set
      state_topic: gas/state
      reports_position: true
      position_open: 255
      position_closed: 0
      command_template: '{"position": {{ value }}, "percent": {{ position }}}'
    - name: Garden
      command_topic: garden/set
`,
  });
  await s.exist('valve.water', 'valve.gas', 'valve.garden');
  t.same((await s.state('valve.water')).attributes, { device_class: 'water', friendly_name: 'Water', supported_features: 11 });
  t.same((await s.state('valve.gas')).attributes, { current_position: null, friendly_name: 'Gas', supported_features: 7 });
  for (const [payload, state] of [['open', 'open'], ['closing', 'closing'], ['closed', 'closed']]) {
    await s.publish('water/state', payload, false);
    await s.until('valve.water', (x) => x.state === state, payload);
  }
  await s.publish('water/state', 'ajar', false);
  await eventually(() => s.h.lines.some((l) => l.includes("Payload received on topic 'water/state' is not one of [open, closed, opening, closing], got: ajar")), 'the unknown state logged');
  await s.publish('water/state', { state: 'opening' }, false);
  await s.until('valve.water', (x) => x.state === 'opening', 'JSON with a state');

  const sent = (prefix: string) => s.seen.filter((m) => m.startsWith(prefix));
  const call = async (service: string, entity: string, data: Record<string, unknown> = {}) => {
    t.equal((await s.call('POST', `/api/services/valve/${service}`, { entity_id: entity, ...data })).status, 200, `${service} ${entity}`);
  };
  await call('toggle', 'valve.water');
  await eventually(() => sent('water/set=').length === 1, 'a moving valve toggles to stop');
  await call('open_valve', 'valve.water');
  await call('close_valve', 'valve.water');
  await eventually(() => sent('water/set=').length === 3, 'three commands');
  t.same(sent('water/set='), ['water/set=STOP', 'water/set=OPEN', 'water/set=CLOSE']);
  t.equal((await s.call('POST', '/api/services/valve/set_valve_position', { entity_id: 'valve.water', position: 50 })).status, 400, 'no position: no set_valve_position');

  await s.publish('gas/state', '51', false);
  const gas = await s.until('valve.gas', (x) => x.attributes.current_position === 20);
  t.equal(gas.state, 'open');
  await s.publish('gas/state', { position: 128, state: 'opening' }, false);
  await s.until('valve.gas', (x) => x.state === 'opening' && x.attributes.current_position === 50);
  await s.publish('gas/state', '255', false);
  await s.until('valve.gas', (x) => x.state === 'open' && x.attributes.current_position === 100, 'fully open ends the opening');
  await s.publish('gas/state', '0', false);
  await s.until('valve.gas', (x) => x.state === 'closed');
  await call('open_valve', 'valve.gas');
  await call('set_valve_position', 'valve.gas', { position: 50 });
  await call('close_valve', 'valve.gas');
  await eventually(() => sent('gas/set=').length === 3, 'three commands');
  t.same(sent('gas/set='), ['gas/set={"position": 255, "percent": 100}', 'gas/set={"position": 128, "percent": 50}', 'gas/set={"position": 0, "percent": 0}'], 'a position valve opens and closes by position');
  t.equal((await s.state('valve.gas')).state, 'closed', 'it waits for the valve');

  t.same((await s.state('valve.garden')).attributes, { assumed_state: true, friendly_name: 'Garden', supported_features: 3 });
  await call('open_valve', 'valve.garden');
  await s.until('valve.garden', (x) => x.state === 'open');
  await call('toggle', 'valve.garden');
  await s.until('valve.garden', (x) => x.state === 'closed');
  await eventually(() => sent('garden/').length === 2, 'two commands');
  t.same(sent('garden/'), ['garden/set=OPEN', 'garden/set=CLOSE']);
});
