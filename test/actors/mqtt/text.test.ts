// MQTT text against a real Mosquitto: discovery as ESPHome publishes a template text
// (esphome/esphome esphome/components/mqtt/mqtt_text.cpp: min, max, mode, abbreviated keys) and
// YAML as the original's tests/components/mqtt/test_text.py configures it
// (test_controlling_state_via_topic, test_controlling_validation_state_via_topic,
// test_attribute_validation_max_greater_then_min, test_sending_mqtt_commands_and_optimistic,
// test_set_text_validation): states, length and pattern checks, set_value over REST.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('ESPHome text; YAML: optimistic with a template, validation of values both ways; a config refused', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  text:
    - name: Test
      command_topic: command-topic
      command_template: "{{ value | upper }}"
      min: 2
      max: 10
      mode: password
    - name: Validated
      state_topic: state-topic
      command_topic: command-topic-2
      pattern: "(y|n)"
      max: 5
    - name: Broken
      command_topic: broken
      min: 20
      max: 10
`,
  });
  await s.publish('homeassistant/text/livingroom/greeting/config', {
    name: 'Greeting', stat_t: 'livingroom/text/greeting/state', cmd_t: 'livingroom/text/greeting/command', avty_t: 'livingroom/status',
    uniq_id: 'ESPtextgreeting', min: 0, max: 24, mode: 'text',
    dev: { ids: '240ac4a1b2c3', name: 'livingroom', sw: 'esphome v2024.6.0 Jun 20 2024, 10:00:00', mdl: 'esp32dev', mf: 'espressif' },
  });
  await s.publish('livingroom/status', 'online');
  const id = 'text.livingroom_greeting';
  await s.exist(id, 'text.test', 'text.validated');
  await eventually(() => s.h.lines.some((l) => l.includes('text length min must be <= max')), 'the broken config refused');
  t.equal(await s.state('text.broken'), undefined);

  await s.publish('livingroom/text/greeting/state', 'Hello', false);
  const g = await s.until(id, (x) => x.state === 'Hello');
  t.same(g.attributes, { min: 0, max: 24, mode: 'text', pattern: null, friendly_name: 'livingroom Greeting' });
  await s.publish('livingroom/text/greeting/state', '', false);
  await s.until(id, (x) => x.state === '', 'an empty text is a value');
  await s.call('POST', '/api/services/text/set_value', { entity_id: id, value: 'Good morning' });
  await eventually(() => s.seen.includes('livingroom/text/greeting/command=Good morning'), 'the text published');

  // optimistic (no state topic): the command template renders, the text is taken at once
  t.same((await s.state('text.test')).attributes, { min: 2, max: 10, mode: 'password', pattern: null, assumed_state: true, friendly_name: 'Test' });
  await s.call('POST', '/api/services/text/set_value', { entity_id: 'text.test', value: 'some text' });
  await eventually(() => s.seen.includes('command-topic=SOME TEXT'), 'the command template');
  await s.until('text.test', (x) => x.state === 'some text');
  await t.rejects(
    s.ws('call_service', { domain: 'text', service: 'set_value', service_data: { value: 'x' }, target: { entity_id: 'text.test' } }),
    /Value x for text\.test is too short \(minimum length 2\)/,
  );
  await t.rejects(
    s.ws('call_service', { domain: 'text', service: 'set_value', service_data: { value: 'much too long' }, target: { entity_id: 'text.test' } }),
    /is too long \(maximum length 10\)/,
  );
  t.equal((await s.call('POST', '/api/services/text/set_value', { entity_id: 'text.validated', value: 'other' })).status, 400, 'the pattern refuses');
  await s.call('POST', '/api/services/text/set_value', { entity_id: 'text.validated', value: 'yes' });
  await eventually(() => s.seen.includes('command-topic-2=yes'), 're.match: anchored at the start only');

  // the device's values are checked as well: one that does not fit is not shown
  await s.publish('state-topic', 'n', false);
  await s.until('text.validated', (x) => x.state === 'n');
  await s.publish('state-topic', 'other', false);
  await eventually(() => s.h.lines.some((l) => l.includes('Entity text.validated provides state other which does not match expected pattern (y|n)')), 'the mismatch logged');
  await s.publish('state-topic', 'yes yes', false);
  await eventually(() => s.h.lines.some((l) => l.includes('which is too long (expected maximum 5)')), 'too long logged');
  t.equal((await s.state('text.validated')).state, 'n');
});
