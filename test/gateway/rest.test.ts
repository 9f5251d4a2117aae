import t from 'tap';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/;

t.test('REST API of the core', async (t) => {
  const { base } = await startTestHearth(t);
  const tokens = await onboard(base);
  const call = api(base, tokens.access_token);

  t.test('needs a bearer token', async (t) => {
    const res = await fetch(`${base}/api/states`);
    t.equal(res.status, 401);
    t.equal(await res.text(), '401: Unauthorized');
    const wrongScheme = await fetch(`${base}/api/`, { headers: { Authorization: `BEARER ${tokens.access_token}` } });
    t.equal(wrongScheme.status, 401, 'the scheme is exactly Bearer');
    const bad = await fetch(`${base}/api/`, { headers: { Authorization: 'Bearer not-a-token' } });
    t.equal(bad.status, 401);
  });

  t.test('status, core state, config, components', async (t) => {
    const status = await call('GET', '/api/');
    t.same(status.json, { message: 'API running.' });
    t.match(status.headers.get('content-type'), /^application\/json/);
    t.equal(status.headers.get('x-content-type-options'), 'nosniff');
    t.equal(status.headers.get('referrer-policy'), 'no-referrer');
    const core = await call('GET', '/api/core/state');
    t.same(core.json, { state: 'RUNNING', recorder_state: { migration_in_progress: false, migration_is_live: false } });
    const config = await call('GET', '/api/config');
    t.equal(config.json.state, 'RUNNING');
    t.match(config.json.version, /^\d{4}\.\d+\.\d+$/);
    t.same(config.json.unit_system.temperature, '°C');
    t.ok(Array.isArray(config.json.components) && config.json.components.includes('api'));
    const components = await call('GET', '/api/components');
    t.same(components.json, config.json.components);
  });

  t.test('state writes: 201 then 200, Location, timestamps', async (t) => {
    const created = await call('POST', '/api/states/sensor.kitchen_temp', { state: 21.5, attributes: { unit_of_measurement: '°C' } });
    t.equal(created.status, 201);
    t.equal(created.headers.get('location'), '/api/states/sensor.kitchen_temp');
    t.equal(created.json.entity_id, 'sensor.kitchen_temp');
    t.equal(created.json.state, '21.5', 'the state is stringified');
    t.same(created.json.attributes, { unit_of_measurement: '°C' });
    t.same(Object.keys(created.json), ['entity_id', 'state', 'attributes', 'last_changed', 'last_reported', 'last_updated', 'context']);
    t.match(created.json.last_changed, ISO);
    t.equal(created.json.context.parent_id, null);
    t.match(created.json.context.id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    t.ok(created.json.context.user_id, 'the write carries the caller');

    const same = await call('POST', '/api/states/sensor.kitchen_temp', { state: '21.5', attributes: { unit_of_measurement: '°C' } });
    t.equal(same.status, 200);
    t.equal(same.json.last_changed, created.json.last_changed, 'same state: last_changed kept');
    t.equal(same.json.last_updated, created.json.last_updated, 'same state and attributes: last_updated kept');
    t.not(same.json.last_reported, created.json.last_reported, 'last_reported moves on every write');

    const attrOnly = await call('POST', '/api/states/sensor.kitchen_temp', { state: '21.5', attributes: { unit_of_measurement: '°F' } });
    t.equal(attrOnly.json.last_changed, created.json.last_changed, 'attribute change keeps last_changed');
    t.not(attrOnly.json.last_updated, created.json.last_updated, 'attribute change moves last_updated');

    const forced = await call('POST', '/api/states/sensor.kitchen_temp', { state: '21.5', attributes: { unit_of_measurement: '°F' }, force_update: true });
    t.not(forced.json.last_changed, created.json.last_changed, 'force_update moves last_changed');

    const zero = await call('POST', '/api/states/sensor.zero', { state: 0 });
    t.equal(zero.status, 201);
    t.equal(zero.json.state, '0');
    const bool = await call('POST', '/api/states/sensor.flag', { state: true });
    t.equal(bool.json.state, 'True', 'booleans print as the original prints them');

    const read = await call('GET', '/api/states/sensor.kitchen_temp');
    t.same(read.json, forced.json);
    const upper = await call('GET', '/api/states/SENSOR.KITCHEN_TEMP');
    t.equal(upper.status, 200, 'reads fall back to the lower-cased id');
    const all = await call('GET', '/api/states');
    t.same(all.json.map((s: any) => s.entity_id), ['zone.home', 'sensor.kitchen_temp', 'sensor.zero', 'sensor.flag'], 'the home zone, then the states written');
  });

  t.test('state write errors', async (t) => {
    const cases: Array<[string, string | object | undefined, string]> = [
      ['sensor.a', '{not json', 'Invalid JSON specified.'],
      ['sensor.a', '[1,2]', 'State data should be a JSON object'],
      ['sensor.a', {}, 'No state attribute specified.'],
      ['sensor.a', { state: null }, 'No state attribute specified.'],
      ['bad_id', { state: 'on' }, 'Invalid entity ID specified.'],
      ['sensor._bad', { state: 'on' }, 'Invalid entity ID specified.'],
      ['sensor.a', { state: 'x'.repeat(256) }, 'Invalid state specified.'],
    ];
    for (const [id, body, msg] of cases) {
      const res = await call('POST', `/api/states/${id}`, body);
      t.equal(res.status, 400, `${id} ${JSON.stringify(body)?.slice(0, 30)}`);
      t.same(res.json, { message: msg });
    }
    const missing = await call('GET', '/api/states/sensor.nope');
    t.equal(missing.status, 404);
    t.same(missing.json, { message: 'Entity not found.' });
    const states = await call('GET', '/api/states');
    t.notOk(states.json.some((s: any) => s.entity_id === 'sensor.a'), 'nothing half-written');
  });

  t.test('delete', async (t) => {
    await call('POST', '/api/states/light.gone', { state: 'on' });
    const del = await call('DELETE', '/api/states/light.gone');
    t.same([del.status, del.json], [200, { message: 'Entity removed.' }]);
    const again = await call('DELETE', '/api/states/light.gone');
    t.same([again.status, again.json], [404, { message: 'Entity not found.' }]);
  });

  t.test('events', async (t) => {
    const fired = await call('POST', '/api/events/my_event', { answer: 42 });
    t.same(fired.json, { message: 'Event my_event fired.' });
    const empty = await call('POST', '/api/events/other_event');
    t.equal(empty.status, 200);
    const invalid = await call('POST', '/api/events/x', '{oops');
    t.same([invalid.status, invalid.json], [400, { message: 'Event data should be valid JSON.' }]);
    const notObject = await call('POST', '/api/events/x', '[1,2]');
    t.same([notObject.status, notObject.json], [400, { message: 'Event data should be a JSON object' }]);
    const listeners = await call('GET', '/api/events');
    t.ok(Array.isArray(listeners.json));
  });

  t.test('services', async (t) => {
    const list = await call('GET', '/api/services');
    const core = list.json.find((d: any) => d.domain === 'core');
    t.ok(core, 'the core domain is listed');
    t.ok(core.services.turn_on && core.services.set_location.fields.latitude);
    const notFound = await call('POST', '/api/services/nope/nothing', {});
    t.same([notFound.status, notFound.text], [400, '400: Bad Request']);
    const badJson = await call('POST', '/api/services/core/set_location', '{x');
    t.same([badJson.status, badJson.json], [400, { message: 'Data should be valid JSON.' }]);
    const badData = await call('POST', '/api/services/core/set_location', { latitude: 'north' });
    t.equal(badData.status, 400);
    const noResponse = await call('POST', '/api/services/core/set_location?return_response', { latitude: 1, longitude: 2 });
    t.same([noResponse.status, noResponse.json], [400, { message: 'Service does not support responses. Remove return_response from request.' }]);
    const ok = await call('POST', '/api/services/core/set_location', { latitude: 12.5, longitude: 7.25 });
    t.same([ok.status, ok.json], [200, []]);
    const config = await call('GET', '/api/config');
    t.same([config.json.latitude, config.json.longitude], [12.5, 7.25]);
  });

  t.test('CORS: the token endpoint is open to any origin, the API to configured ones', async (t) => {
    const preflight = await fetch(`${base}/auth/token`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    t.equal(preflight.status, 200);
    t.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example');
    t.equal(preflight.headers.get('access-control-allow-methods'), 'POST');
    const token = await fetch(`${base}/auth/token`, { method: 'POST', headers: { Origin: 'https://app.example' } });
    t.equal(token.headers.get('access-control-allow-origin'), 'https://app.example');
    const cast = await call('GET', '/api/', undefined, { Origin: 'https://cast.home-assistant.io' });
    t.equal(cast.headers.get('access-control-allow-origin'), 'https://cast.home-assistant.io', 'the default allowed origin');
    const other = await call('GET', '/api/', undefined, { Origin: 'https://evil.example' });
    t.equal(other.headers.get('access-control-allow-origin'), null);
  });

  t.test('HTTP layer: 405, 404, 413, gzip', async (t) => {
    const wrong = await call('PUT', '/api/states');
    t.equal(wrong.status, 405);
    t.equal(wrong.text, '405: Method Not Allowed');
    t.equal(wrong.headers.get('allow'), 'GET');
    const unknown = await call('GET', '/api/nothing-here');
    t.equal(unknown.status, 404);

    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/api/states/sensor.big`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${tokens.access_token}`, 'Content-Type': 'application/json', 'Content-Length': String(17 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    t.equal(status, 413);

    for (let i = 0; i < 30; i++) await call('POST', `/api/states/sensor.filler_${i}`, { state: 'x', attributes: { pad: 'y'.repeat(50) } });
    const raw = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      const req = request(`${base}/api/states`, { headers: { Authorization: `Bearer ${tokens.access_token}`, 'Accept-Encoding': 'gzip' } });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    t.equal(raw.encoding, 'gzip');
    t.ok(JSON.parse(gunzipSync(raw.body).toString()).length >= 30);
  });
});
