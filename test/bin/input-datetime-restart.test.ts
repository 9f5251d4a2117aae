// input_datetime through a real instance: set over REST and the WebSocket, refused in the
// original's words, reloaded, and the same after a restart (its state is its last record).
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startHearth } from '../../bin/instance.ts';
import { dataDirWith, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';

const CONFIG = `core:
  time_zone: Europe/Amsterdam
input_datetime:
  alarm:
    name: Alarm
    has_date: true
    has_time: true
`;

t.test('input_datetime is set, reloaded and restored', async (t) => {
  const dataDir = await dataDirWith(CONFIG);
  const start = () => startHearth({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  let hearth = await start();
  t.teardown(() => hearth.stop());
  const base = () => `http://127.0.0.1:${hearth.port}`;
  const { access_token } = await onboard(base());
  const rest = () => api(base(), access_token);

  const set = await rest()('POST', '/api/services/input_datetime/set_datetime', { entity_id: 'input_datetime.alarm', timestamp: 1795845600 });
  t.equal(set.status, 200);
  const alarm = (await rest()('GET', '/api/states/input_datetime.alarm')).json;
  t.equal(alarm.state, '2026-11-28 07:00:00', 'a timestamp on the wall clock of core: time_zone');
  t.equal(alarm.attributes.timestamp, 1795845600);

  const c = await authedClient(base(), access_token);
  c.send({ id: 1, type: 'call_service', domain: 'input_datetime', service: 'set_datetime', service_data: { entity_id: 'input_datetime.alarm', date: '2026-11-28', timestamp: 5 } });
  t.same((await c.until((m) => m.id === 1)).error, { code: 'invalid_format', message: 'Cannot use together: date, timestamp' });
  c.ws.close();
  t.equal((await rest()('GET', '/api/states/input_datetime.alarm')).json.state, '2026-11-28 07:00:00', 'a refused call changes nothing');

  await writeFile(join(dataDir, 'configuration.yaml'), CONFIG.replace('    has_time: true\n', '    has_time: false\n'));
  t.equal((await rest()('POST', '/api/services/input_datetime/reload', {})).status, 200);
  t.equal((await rest()('GET', '/api/states/input_datetime.alarm')).json.state, '2026-11-28', 'a reload shows the date alone');
  await writeFile(join(dataDir, 'configuration.yaml'), CONFIG);
  t.equal((await rest()('POST', '/api/services/input_datetime/reload', {})).status, 200);
  t.equal((await rest()('GET', '/api/states/input_datetime.alarm')).json.state, '2026-11-28 07:00:00', 'and keeps the time it had');

  const before = (await rest()('GET', '/api/states/input_datetime.alarm')).json;
  await hearth.stop();
  hearth = await start();
  const restored = (await rest()('GET', '/api/states/input_datetime.alarm')).json;
  t.same(restored, before, 'the same state after a restart, not written again');
});
