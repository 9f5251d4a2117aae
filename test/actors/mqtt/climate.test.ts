// MQTT climate devices against a real Mosquitto: a zigbee2mqtt radiator valve (its discovery as
// Koenkk/zigbee2mqtt test/extensions/homeassistant.test.ts discovers a Bosch radiator thermostat:
// one state topic read by templates, temp_step 0.5, min_temp and max_temp as text), and an air
// conditioner with no state topics (each part takes what its command sets), a temperature range
// beside heat and cool, fan, swing and preset modes, a power topic and precision 0.5. Behaviour as
// homeassistant/components/mqtt/climate.py and the ClimateEntity it builds on.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('climate: a zigbee2mqtt thermostat; an assumed air conditioner with parked setpoints', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  climate:
    - name: Living AC
      mode_command_topic: ac/mode/set
      temperature_command_topic: ac/temp/set
      temperature_command_template: '{"temp": {{ value }}}'
      temperature_low_command_topic: ac/low/set
      temperature_high_command_topic: ac/high/set
      fan_mode_command_topic: ac/fan/set
      swing_mode_command_topic: ac/swing/set
      preset_mode_command_topic: ac/preset/set
      preset_modes: [eco, away]
      modes: ["off", heat, cool, heat_cool]
      power_command_topic: ac/power/set
      precision: 0.5
`,
  });
  await s.publish('homeassistant/climate/0x18fc2600000d7ae2/climate/config', {
    action_template: "{{ {'idle': 'idle', 'heat': 'heating'}[value_json.running_state] }}",
    action_topic: 'zigbee2mqtt/bosch_radiator',
    current_temperature_template: '{{ value_json.local_temperature }}',
    current_temperature_topic: 'zigbee2mqtt/bosch_radiator',
    device: { identifiers: ['zigbee2mqtt_0x18fc2600000d7ae2'], name: 'Bosch radiator', model: 'Radiator thermostat II', manufacturer: 'Bosch' },
    max_temp: '30',
    min_temp: '5',
    mode_command_topic: 'zigbee2mqtt/bosch_radiator/set/system_mode',
    mode_state_template: '{{ value_json.system_mode }}',
    mode_state_topic: 'zigbee2mqtt/bosch_radiator',
    modes: ['off', 'heat', 'auto'],
    name: null,
    object_id: 'bosch_radiator',
    temp_step: 0.5,
    temperature_command_topic: 'zigbee2mqtt/bosch_radiator/set/occupied_heating_setpoint',
    temperature_state_template: '{{ value_json.occupied_heating_setpoint }}',
    temperature_state_topic: 'zigbee2mqtt/bosch_radiator',
    temperature_unit: 'C',
    unique_id: '0x18fc2600000d7ae2_climate_zigbee2mqtt',
  });
  await s.exist('climate.bosch_radiator', 'climate.living_ac');
  const caps = { hvac_modes: ['off', 'heat', 'auto'], min_temp: 5, max_temp: 30, target_temp_step: 0.5 };
  t.same(await s.state('climate.bosch_radiator').then((x) => [x.state, x.attributes]), [
    'unknown',
    { ...caps, current_temperature: null, temperature: null, friendly_name: 'Bosch radiator', supported_features: 385 },
  ]);
  await s.publish('zigbee2mqtt/bosch_radiator', { local_temperature: 19.46, occupied_heating_setpoint: 21.5, system_mode: 'heat', running_state: 'heat' }, false);
  const heat = await s.until('climate.bosch_radiator', (x) => x.state === 'heat' && x.attributes.hvac_action === 'heating');
  t.same(heat.attributes, { ...caps, current_temperature: 19.5, temperature: 21.5, hvac_action: 'heating', friendly_name: 'Bosch radiator', supported_features: 385 });

  const sent = () => s.seen.filter((m) => m.startsWith('zigbee2mqtt/bosch_radiator/set/'));
  const call = async (entity: string, service: string, data: Record<string, unknown> = {}) =>
    (await s.call('POST', `/api/services/climate/${service}`, { entity_id: entity, ...data })).status;
  t.equal(await call('climate.bosch_radiator', 'set_temperature', { temperature: 22 }), 200);
  t.equal(await call('climate.bosch_radiator', 'set_hvac_mode', { hvac_mode: 'auto' }), 200);
  t.equal(await call('climate.bosch_radiator', 'turn_off'), 200);
  t.equal(await call('climate.bosch_radiator', 'turn_on'), 200);
  t.equal(await call('climate.bosch_radiator', 'set_temperature', { temperature: 40 }), 400, 'above max_temp');
  t.equal(await call('climate.bosch_radiator', 'set_hvac_mode', { hvac_mode: 'cool' }), 400, 'a mode it does not have');
  t.equal(await call('climate.bosch_radiator', 'set_fan_mode', { fan_mode: 'low' }), 400, 'no fan mode topics');
  await eventually(() => sent().length === 4, 'four commands');
  t.same(sent().map((m) => m.slice('zigbee2mqtt/bosch_radiator/set/'.length)), ['occupied_heating_setpoint=22.0', 'system_mode=auto', 'system_mode=off', 'system_mode=heat']);
  t.equal((await s.state('climate.bosch_radiator')).state, 'heat', 'with a mode state topic it waits for the device');

  // no state topics: each part takes its command; heat_cool parks the single setpoint, heat brings it back
  t.same(await s.state('climate.living_ac').then((x) => [x.state, x.attributes]), [
    'off',
    {
      hvac_modes: ['off', 'heat', 'cool', 'heat_cool'], min_temp: 7, max_temp: 35, target_temp_step: 1, fan_modes: ['auto', 'low', 'medium', 'high'],
      preset_modes: ['none', 'eco', 'away'], swing_modes: ['on', 'off'],
      current_temperature: null, temperature: 21, target_temp_high: 21, target_temp_low: 21, fan_mode: 'low', preset_mode: 'none', swing_mode: 'off',
      friendly_name: 'Living AC', supported_features: 443,
    },
  ]);
  t.equal(await call('climate.living_ac', 'set_hvac_mode', { hvac_mode: 'heat_cool' }), 200);
  t.equal(await call('climate.living_ac', 'set_temperature', { target_temp_low: 19, target_temp_high: 24.3 }), 200);
  const range = await s.until('climate.living_ac', (x) => x.attributes.target_temp_low === 19);
  t.match(range, { state: 'heat_cool', attributes: { temperature: null, target_temp_high: 24.5, target_temp_low: 19 } }, 'halves');
  t.equal(await call('climate.living_ac', 'set_hvac_mode', { hvac_mode: 'heat' }), 200);
  const single = await s.until('climate.living_ac', (x) => x.state === 'heat');
  t.match(single.attributes, { temperature: 21, target_temp_high: null, target_temp_low: null }, 'the parked setpoint is back');
  t.equal(await call('climate.living_ac', 'set_temperature', { temperature: 22.5 }), 200);
  t.equal(await call('climate.living_ac', 'set_fan_mode', { fan_mode: 'high' }), 200);
  t.equal(await call('climate.living_ac', 'set_swing_mode', { swing_mode: 'on' }), 200);
  t.equal(await call('climate.living_ac', 'set_preset_mode', { preset_mode: 'eco' }), 200);
  t.equal(await call('climate.living_ac', 'turn_off'), 200);
  t.equal(await call('climate.living_ac', 'turn_on'), 200);
  await eventually(() => s.seen.filter((m) => m.startsWith('ac/')).length === 10, 'ten commands');
  t.same(s.seen.filter((m) => m.startsWith('ac/')), [
    'ac/mode/set=heat_cool', 'ac/low/set=19.0', 'ac/high/set=24.3', 'ac/mode/set=heat', 'ac/temp/set={"temp": 22.5}',
    'ac/fan/set=high', 'ac/swing/set=on', 'ac/preset/set=eco', 'ac/power/set=OFF', 'ac/power/set=ON',
  ]);
  const last = await s.state('climate.living_ac');
  t.match(last, { state: 'heat', attributes: { temperature: 22.5, fan_mode: 'high', swing_mode: 'on', preset_mode: 'eco' } }, 'the power topic says nothing of the mode unless optimistic');
});
