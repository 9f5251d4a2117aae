// MQTT event against a real Mosquitto: discovery as zigbee2mqtt publishes a remote's action
// (Koenkk/zigbee2mqtt lib/extension/homeassistant.ts, an `event` with event_types and device_class
// button on the device's topic; its value template, which picks `action` out of the device's
// message, is shortened here to the part that makes the `event_type` object) and as ESPHome
// publishes an event (esphome/esphome esphome/components/mqtt/mqtt_event.cpp: evt_typ, payload
// {"event_type":"..."}); events, attributes and refusals as the original's
// tests/components/mqtt/test_event.py shows them (test_setting_event_value_via_mqtt_message,
// test_multiple_events_are_all_updating_the_state, test_handling_retained_event_payloads,
// test_setting_event_value_with_invalid_payload / invalid event type).
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

t.test('zigbee2mqtt remote action; ESPHome event; retained, invalid and unknown events ignored; the last event kept over a restart', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/event/0x001788010d4f1b2c/action/config', {
    availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
    device: { identifiers: ['zigbee2mqtt_0x001788010d4f1b2c'], manufacturer: 'Philips', model: 'Hue dimmer switch', model_id: '324131092621', name: 'remote', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' },
    device_class: 'button', event_types: ['on_press', 'on_hold', 'off_press', 'up_press', 'down_press'], icon: 'mdi:gesture-double-tap', name: 'Action',
    object_id: 'remote_action', default_entity_id: 'event.remote_action', origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
    state_topic: 'zigbee2mqtt/remote', unique_id: '0x001788010d4f1b2c_action_zigbee2mqtt',
    value_template: "{{ {'event_type': value_json.action, 'duration': value_json.action_duration} | tojson if value_json.action is defined else '{}' }}",
  });
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  // a retained event on the topic before the entity subscribes: the broker replays it, flagged retained
  await s.publish('livingroom/event/doorbell/state', { event_type: 'single_press' }, true);
  await s.publish('homeassistant/event/livingroom/doorbell/config', {
    name: 'Doorbell', stat_t: 'livingroom/event/doorbell/state', avty_t: 'livingroom/status', uniq_id: 'ESPeventdoorbell', dev_cla: 'doorbell',
    evt_typ: ['single_press', 'double_press'], dev: { ids: '240ac4a1b2c3', name: 'livingroom', sw: 'esphome v2024.6.0 Jun 20 2024, 10:00:00', mdl: 'esp32dev', mf: 'espressif' },
  });
  await s.publish('livingroom/status', 'online');
  const remote = 'event.remote_action';
  const bell = 'event.livingroom_doorbell';
  await s.exist(remote, bell);
  const fresh = await s.state(remote);
  t.same([fresh.state, fresh.attributes], ['unknown', { event_types: ['on_press', 'on_hold', 'off_press', 'up_press', 'down_press'], event_type: null, icon: 'mdi:gesture-double-tap', device_class: 'button', friendly_name: 'remote Action' }]);
  t.match(await s.entry(remote), { capabilities: { event_types: ['on_press', 'on_hold', 'off_press', 'up_press', 'down_press'] }, original_device_class: 'button' });

  // a device message without an action (a linkquality report) is no event
  await s.publish('zigbee2mqtt/remote', { battery: 100, linkquality: 80 }, false);
  await s.publish('zigbee2mqtt/remote', { action: 'on_hold', action_duration: 2, linkquality: 80 }, false);
  const held = await s.until(remote, (x) => x.state !== 'unknown');
  t.match(held.state, ISO_MS, 'the time of the event, in milliseconds');
  t.same(held.attributes, { event_types: ['on_press', 'on_hold', 'off_press', 'up_press', 'down_press'], event_type: 'on_hold', duration: 2, icon: 'mdi:gesture-double-tap', device_class: 'button', friendly_name: 'remote Action' });
  await new Promise((r) => setTimeout(r, 5));
  await s.publish('zigbee2mqtt/remote', { action: 'on_hold', action_duration: 3 }, false);
  const again = await s.until(remote, (x) => x.attributes.duration === 3, 'the same event type again is a new event');
  t.not(again.state, held.state);

  // ESPHome: the event_type object as is; the retained replay was no event
  t.equal((await s.state(bell)).state, 'unknown', 'a retained event is not one');
  await s.publish('livingroom/event/doorbell/state', { event_type: 'double_press', ring: 'long' }, false);
  const rang = await s.until(bell, (x) => x.attributes.event_type === 'double_press');
  t.same(rang.attributes, { event_types: ['single_press', 'double_press'], event_type: 'double_press', ring: 'long', device_class: 'doorbell', friendly_name: 'livingroom Doorbell' });
  await s.publish('livingroom/event/doorbell/state', { event_type: 'triple_press' }, false);
  await eventually(() => s.h.lines.some((l) => l.includes(`Invalid event type triple_press for ${bell} received on topic livingroom/event/doorbell/state`)), 'an unknown type logged');
  await s.publish('livingroom/event/doorbell/state', { ring: 'short' }, false);
  await eventually(() => s.h.lines.some((l) => l.includes('`event_type` missing in JSON event payload')), 'no type logged');
  await s.publish('livingroom/event/doorbell/state', 'ding', false);
  await eventually(() => s.h.lines.some((l) => l.includes("No valid JSON event payload detected, value after processing payload 'ding'")), 'not JSON logged');
  t.equal((await s.state(bell)).state, rang.state, 'refused events change nothing');

  // the last event survives a restart (the retained replay again is no event)
  await s.h.hearth.stop();
  const back = await mqttScene(t, { dataDir: s.h.dataDir, broker: s.broker, token: s.token });
  await back.exist(bell);
  await back.publish('livingroom/status', 'online');
  const restored = await back.until(bell, (x) => x.state !== 'unavailable');
  t.same([restored.state, restored.attributes.event_type, restored.attributes.ring], [rang.state, 'double_press', 'long']);
});
