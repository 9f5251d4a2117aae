// zone.home always exists, as in the original (whose core always has a location): from the
// configured location or the defaults, moved by set_location and reload_core_config, and
// answered by the companion app's get_zones.
import t, { type Test } from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { hook, register } from '../mobile/app.ts';

async function home(t: Test, config: string) {
  const h = await startTestHearth(t, { config });
  const rest = api(h.base, (await onboard(h.base)).access_token);
  const zoneHome = async () => (await rest('GET', '/api/states/zone.home')).json;
  // set_location answers once its record is committed; zone.home follows after that commit
  const settled = async (pred: (zone: any) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const zone = await zoneHome();
      if (zone && pred(zone)) return zone;
      await new Promise((r) => setTimeout(r, 20));
    }
    return zoneHome();
  };
  return { ...h, rest, zoneHome, settled };
}

t.test('without a location in configuration.yaml, zone.home is at the default location', async (t) => {
  const h = await home(t, '');
  const zone = await h.zoneHome();
  t.equal(zone?.state, '0');
  t.same(zone?.attributes, { latitude: 52.3731339, longitude: 4.8903147, radius: 100, passive: false, persons: [], editable: true, icon: 'mdi:home', friendly_name: 'Home' });

  const reg = await register(h.rest);
  const zones = await hook(h.base, reg.webhook_id, { type: 'get_zones' });
  t.equal(zones.status, 200);
  t.same(
    zones.json.map((z: any) => [z.entity_id, z.attributes.latitude, z.attributes.longitude]),
    [['zone.home', 52.3731339, 4.8903147]],
    'get_zones answers the home zone',
  );

  t.equal((await h.rest('POST', '/api/services/core/set_location', { latitude: 40.4168, longitude: -3.7038 })).status, 200);
  const moved = await h.settled((z) => z.attributes.latitude === 40.4168);
  t.same([moved.attributes.latitude, moved.attributes.longitude], [40.4168, -3.7038], 'set_location moves it');
  t.same((await hook(h.base, reg.webhook_id, { type: 'get_zones' })).json[0].attributes.latitude, 40.4168);
});

t.test('a configured core location without zones or persons still makes zone.home, and a reload moves it', async (t) => {
  const h = await home(t, 'core:\n  name: Lighthouse\n  latitude: 51.5\n  longitude: -0.12\n  radius: 250\n');
  const zone = await h.zoneHome();
  t.same([zone?.attributes.friendly_name, zone?.attributes.latitude, zone?.attributes.longitude, zone?.attributes.radius], ['Lighthouse', 51.5, -0.12, 250]);

  await writeFile(join(h.dataDir, 'configuration.yaml'), 'core:\n  name: Harbour\n  latitude: 51.6\n  longitude: -0.12\n  radius: 80\n');
  t.equal((await h.rest('POST', '/api/services/core/reload_core_config', {})).status, 200);
  const reloaded = await h.settled((z) => z.attributes.friendly_name === 'Harbour');
  t.same([reloaded.attributes.friendly_name, reloaded.attributes.latitude, reloaded.attributes.radius], ['Harbour', 51.6, 80], 'reload_core_config moves it');
});

t.test('zone.home alone registers no virtual.reload', async (t) => {
  const h = await home(t, '');
  const services = (await h.rest('GET', '/api/services')).json as Array<{ domain: string }>;
  t.notOk(services.some((s) => s.domain === 'virtual'), 'the home zone is not a configured virtual entity');
});
