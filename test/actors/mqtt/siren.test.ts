// MQTT siren against a real Mosquitto: discovery as zigbee2mqtt publishes an alarm's siren-like
// switch is a `switch`; here a siren shaped as the original's tests/components/mqtt/test_siren.py
// configures one (test_controlling_state_via_topic_and_json_message, test_sending_mqtt_commands
// _and_optimistic, test_command_templates, test_skipped_async_ha_write_state payloads:
// '{"state":"ON","tone":"siren"}', '{"state":"OFF","volume_level":2}' keeps the state), published
// with the abbreviations the original documents (av_tones, sup_dur, sup_vol, stat_val_tpl,
// cmd_off_tpl); turn_on with tone/duration/volume_level over REST → JSON or templated payloads.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('a discovered siren: state payloads and JSON, tones, turn_on/turn_off payloads, refused tones', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/siren/alarm1/siren/config', {
    name: 'Alarm', uniq_id: 'alarm1_siren', stat_t: 'alarm1/state', cmd_t: 'alarm1/set', av_tones: ['siren', 'bell'],
    dev: { ids: ['alarm1'], name: 'Hallway alarm', mf: 'Heiman', mdl: 'HS2WD-E' },
  });
  const id = 'siren.hallway_alarm_alarm';
  await s.exist(id);
  const first = await s.state(id);
  t.same([first.state, first.attributes], ['unknown', { available_tones: ['siren', 'bell'], duration: null, tone: null, volume_level: null, supported_features: 31, friendly_name: 'Hallway alarm Alarm' }]);
  t.match(await s.entry(id), { capabilities: { available_tones: ['siren', 'bell'] } });

  await s.publish('alarm1/state', 'ON', false);
  await s.until(id, (x) => x.state === 'on');
  await s.publish('alarm1/state', '{"state":"ON","tone":"bell","duration":10}', false);
  await s.until(id, (x) => x.attributes.tone === 'bell' && x.attributes.duration === 10);
  await s.publish('alarm1/state', '{"state":"OFF","volume_level":2}', false);
  const off = await s.until(id, (x) => x.state === 'off', 'an invalid attribute: the state still counts');
  t.equal(off.attributes.volume_level, null);
  await eventually(() => s.h.lines.some((l) => l.includes('Unable to update siren state attributes from payload')), 'the refusal logged');

  // turn_on: payload_on with the parameters as JSON (no command template)
  await s.call('POST', '/api/services/siren/turn_on', { entity_id: id, tone: 'siren', duration: 5, volume_level: 0.6 });
  await eventually(() => s.seen.includes('alarm1/set={"state":"ON","tone":"siren","duration":5,"volume_level":0.6}'), 'the JSON command');
  await s.call('POST', '/api/services/siren/turn_off', { entity_id: id });
  await eventually(() => s.seen.includes('alarm1/set={"state":"OFF"}'), 'turn_off');
  t.equal((await s.state(id)).state, 'off', 'not optimistic: waits for the device');
  const refused = await s.call('POST', '/api/services/siren/turn_on', { entity_id: id, tone: 'trumpet' });
  t.not(refused.status, 200);
  await t.rejects(
    s.ws('call_service', { domain: 'siren', service: 'turn_on', service_data: { tone: 'trumpet' }, target: { entity_id: id } }),
    /Invalid tone specified for entity siren\.hallway_alarm_alarm: trumpet, check the available_tones attribute for valid tones to pass in/,
  );
  t.notOk(s.seen.some((m) => m.includes('trumpet')), 'nothing published for a refused tone');
});

t.test('YAML: optimistic with command templates, no tones: unsupported parameters dropped; toggle', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  siren:
    - name: Garden
      command_topic: garden/siren/set
      command_template: "CMD {{ value }} {{ tone | default('none') }} {{ duration | default(0) }}"
      command_off_template: "CMD_OFF {{ value }}"
      payload_on: "beer on"
      payload_off: "beer off"
      support_volume_set: false
`,
  });
  await s.exist('siren.garden');
  const start = await s.state('siren.garden');
  t.same([start.state, start.attributes], ['off', { duration: null, assumed_state: true, supported_features: 19, friendly_name: 'Garden' }], 'optimistic starts off');
  await s.call('POST', '/api/services/siren/turn_on', { entity_id: 'siren.garden', duration: 30, tone: 'ignored', volume_level: 0.3 });
  await eventually(() => s.seen.includes('garden/siren/set=CMD beer on none 30'), 'the command template with the supported parameters');
  const on = await s.until('siren.garden', (x) => x.state === 'on');
  t.equal(on.attributes.duration, 30);
  await s.call('POST', '/api/services/siren/toggle', { entity_id: 'siren.garden' });
  await eventually(() => s.seen.includes('garden/siren/set=CMD_OFF beer off'), 'toggle turns off what is on');
  await s.until('siren.garden', (x) => x.state === 'off');
  const services = await s.ws('get_services');
  t.same(Object.keys(services.siren).sort(), ['toggle', 'turn_off', 'turn_on']);
});
