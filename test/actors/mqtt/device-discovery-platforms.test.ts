// The new MQTT platforms in one device discovery payload, as the original's documentation shows
// device-based discovery (home-assistant.io integrations/mqtt, "Device discovery payload": `dev`,
// `o`, `cmps` keyed by component id with `p` naming the platform, abbreviations throughout): a
// number, a select, a text, a siren, a scene, an event, an update and a device tracker of one
// device come up together, take their states and publish their commands.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('one device, eight new platforms: entities, states and commands', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/device/hub01/config', {
    dev: { ids: 'hub01', name: 'Hub', mf: 'Bla electronics', mdl: 'hub', sw: '1.0' },
    o: { name: 'bla2mqtt', sw: '2.1', url: 'https://bla2mqtt.example.com/support' },
    cmps: {
      volume: { p: 'number', name: 'Volume', cmd_t: 'hub01/volume/set', stat_t: 'hub01/state', val_tpl: '{{ value_json.volume }}', min: 0, max: 10, step: 1, uniq_id: 'hub01_volume' },
      mode: { p: 'select', name: 'Mode', cmd_t: 'hub01/mode/set', stat_t: 'hub01/state', val_tpl: '{{ value_json.mode }}', ops: ['eco', 'comfort'], uniq_id: 'hub01_mode' },
      label: { p: 'text', name: 'Label', cmd_t: 'hub01/label/set', max: 16, ptrn: '[a-z ]*', uniq_id: 'hub01_label' },
      alarm: { p: 'siren', name: 'Alarm', cmd_t: 'hub01/alarm/set', stat_t: 'hub01/alarm', av_tones: ['beep'], sup_dur: false, sup_vol: false, uniq_id: 'hub01_alarm' },
      night: { p: 'scene', name: 'Night', cmd_t: 'hub01/scene/set', pl_on: 'night', uniq_id: 'hub01_night' },
      button: { p: 'event', name: 'Button', stat_t: 'hub01/button', evt_typ: ['press', 'hold'], dev_cla: 'button', uniq_id: 'hub01_button' },
      firmware: { p: 'update', name: 'Firmware', stat_t: 'hub01/firmware', cmd_t: 'hub01/firmware/install', pl_inst: 'go', uniq_id: 'hub01_firmware' },
      where: { p: 'device_tracker', name: 'Location', stat_t: 'hub01/where', pl_home: 'in', pl_not_home: 'out', src_type: 'router', uniq_id: 'hub01_where' },
    },
  });
  const ids = ['number.hub_volume', 'select.hub_mode', 'text.hub_label', 'siren.hub_alarm', 'scene.hub_night', 'event.hub_button', 'update.hub_firmware', 'device_tracker.hub_location'];
  await s.exist(...ids);
  const device = await s.device('hub01');
  for (const id of ids) t.equal((await s.entry(id)).device_id, device.id, `${id} on the device`);

  await s.publish('hub01/state', { volume: 4, mode: 'eco' }, false);
  await s.until('number.hub_volume', (x) => x.state === '4');
  await s.until('select.hub_mode', (x) => x.state === 'eco');
  await s.publish('hub01/alarm', 'ON', false);
  await s.until('siren.hub_alarm', (x) => x.state === 'on');
  await s.publish('hub01/button', { event_type: 'press' }, false);
  await s.until('event.hub_button', (x) => x.attributes.event_type === 'press');
  await s.publish('hub01/firmware', { installed_version: '1.0', latest_version: '1.1' }, false);
  await s.until('update.hub_firmware', (x) => x.state === 'on');
  await s.publish('hub01/where', 'in', false);
  await s.until('device_tracker.hub_location', (x) => x.state === 'home');

  await s.call('POST', '/api/services/number/set_value', { entity_id: 'number.hub_volume', value: 7 });
  await s.call('POST', '/api/services/select/select_option', { entity_id: 'select.hub_mode', option: 'comfort' });
  await s.call('POST', '/api/services/text/set_value', { entity_id: 'text.hub_label', value: 'kitchen' });
  await s.call('POST', '/api/services/siren/turn_on', { entity_id: 'siren.hub_alarm', tone: 'beep', duration: 3 });
  await s.call('POST', '/api/services/scene/turn_on', { entity_id: 'scene.hub_night' });
  await s.call('POST', '/api/services/update/install', { entity_id: 'update.hub_firmware' });
  const expected = ['hub01/volume/set=7', 'hub01/mode/set=comfort', 'hub01/label/set=kitchen', 'hub01/alarm/set={"state":"ON","tone":"beep"}', 'hub01/scene/set=night', 'hub01/firmware/install=go'];
  await eventually(() => expected.every((m) => s.seen.includes(m)), `the commands ${expected.join(', ')}`);
  await s.until('text.hub_label', (x) => x.state === 'kitchen', 'the text (no state topic) is optimistic');
});
