// MQTT entities of configuration.yaml: an item the platform refuses is logged with its place and
// the problem (the others are set up), mqtt.reload applies the file anew (added, changed and
// removed items, event_mqtt_reloaded), and `broker: embedded` without the embedded broker is
// refused with a line, never a crash.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestHearth } from '../../helpers/hearth.ts';
import { mqttScene } from '../../helpers/mqtt.ts';

t.test('a refused item is logged, the rest set up; mqtt.reload', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  sensor:
    - name: Good
      state_topic: good/state
    - name: Bad
      state_topic: bad/state
      qos: 7
    - name: Extra
      state_topic: extra/state
      colour: red
  light:
    - name: Not yet
      command_topic: light/set
`,
  });
  await s.exist('sensor.good');
  const lines = s.h.lines.join('\n');
  t.match(lines, "value must be one of [0, 1, 2] for dictionary value @ data['qos'] for manually configured MQTT sensor item");
  t.match(lines, "extra keys not allowed @ data['colour'] for manually configured MQTT sensor item");
  t.match(lines, 'MQTT light is not supported by Hearth yet: mqtt.light[0] is left out');
  t.equal(await s.state('sensor.bad'), undefined);

  await writeFile(join(s.h.dataDir, 'configuration.yaml'), `mqtt:
  broker: 127.0.0.1
  port: ${s.broker.port}
  sensor:
    - name: Good
      state_topic: good/other
    - name: New
      state_topic: new/state
`);
  const sub = s.nextId();
  s.client.send({ id: sub, type: 'subscribe_events', event_type: 'event_mqtt_reloaded' });
  await s.client.until((m) => m.id === sub && m.type === 'result');
  t.equal((await s.call('POST', '/api/services/mqtt/reload', {})).status, 200);
  await s.client.until((m) => m.id === sub && m.type === 'event', 5000);
  await s.exist('sensor.new');
  await s.publish('good/other', 'moved', false);
  await s.until('sensor.good', (x) => x.state === 'moved', 'the changed item listens to its new topic');
});
