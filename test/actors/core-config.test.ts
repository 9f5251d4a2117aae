// The core configuration refuses what the original refuses: secrets that are not in secrets.yaml
// (also those named like JavaScript's built-ins), time zones that do not exist, values out of range.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigurationError } from '../../actors/core/config-error.ts';
import { loadConfiguration } from '../../actors/core/configuration.ts';
import { validateCore } from '../../actors/core/core-section.ts';
import { CoreConfig } from '../../actors/core/core-config.ts';
import type { EventLog, EventRecord } from '../../store/types.ts';
import { api, dataDirWith, onboard, startTestHearth } from '../helpers/hearth.ts';
import { runToExit } from '../helpers/process.ts';

const TZ_MESSAGE = 'Invalid time zone passed in. Valid options can be found here: http://en.wikipedia.org/wiki/List_of_tz_database_time_zones';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

t.test('a secret is looked up among the own keys of secrets.yaml only', async (t) => {
  for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
    const dir = await dataDirWith(`core:\n  name: !secret ${name}\n`);
    await writeFile(join(dir, 'secrets.yaml'), 'home_name: Lighthouse\n');
    const file = join(dir, 'configuration.yaml');
    await t.rejects(loadConfiguration(dir), new ConfigurationError(`${file}: secret '${name}' is not defined in secrets.yaml`), name);
  }
  const dir = await dataDirWith('core:\n  name: !secret toString\n');
  await writeFile(join(dir, 'secrets.yaml'), 'toString: Lighthouse\n');
  t.equal((await loadConfiguration(dir)).core.name, 'Lighthouse', 'a secret really named toString is found');

  const listed = await dataDirWith('core:\n  name: !secret length\n');
  await writeFile(join(listed, 'secrets.yaml'), '- a\n- b\n');
  await t.rejects(loadConfiguration(listed), /secrets\.yaml: the top level must be a mapping/, 'secrets.yaml must be a mapping');
});

t.test('core values the original refuses', async (t) => {
  const refused: [Record<string, unknown>, RegExp][] = [
    [{ time_zone: 'Mars/Olympus_Mons' }, new RegExp(`^core: time_zone: ${escape(TZ_MESSAGE)} \\(got "Mars/Olympus_Mons"\\)$`)],
    [{ time_zone: 'europe/amsterdam' }, /^core: time_zone: Invalid time zone passed in/],
    [{ time_zone: '+02:00' }, /^core: time_zone: Invalid time zone/],
    [{ time_zone: 2 }, /^core: time_zone: Invalid time zone/],
    [{ latitude: 91 }, /^core: latitude: invalid latitude/],
    [{ latitude: '52' }, /^core: latitude: invalid latitude/],
    [{ latitude: NaN }, /^core: latitude: invalid latitude.*\(got NaN\)$/],
    [{ longitude: -180.5 }, /^core: longitude: invalid longitude/],
    [{ elevation: Infinity }, /^core: elevation: expected int/],
    [{ elevation: 'high' }, /^core: elevation: expected int/],
    [{ radius: -1 }, /^core: radius: value must be at least 0/],
    [{ unit_system: 'furlongs' }, /^core: unit_system: must be 'metric' or 'us_customary'/],
    [{ currency: 'eur' }, /^core: currency: invalid ISO 4217 formatted currency/],
    [{ currency: 'ABC' }, /^core: currency: invalid ISO 4217 formatted currency/],
    [{ country: 'XX' }, /^core: country: invalid ISO 3166 formatted country/],
    [{ country: null }, /^core: country: invalid ISO 3166 formatted country/],
    [{ language: 'klingon' }, /^core: language: invalid RFC 5646 formatted language/],
    [{ external_url: 'ftp://example.org' }, /^core: external_url: invalid url/],
    [{ internal_url: 'not a url' }, /^core: internal_url: invalid url/],
    [{ allowlist_external_dirs: ['/no/such/dir/anywhere'] }, /^core: allowlist_external_dirs: not a directory/],
    [{ allowlist_external_urls: ['javascript:alert(1)'] }, /^core: allowlist_external_urls: invalid url/],
    [{ debug: 'maybe' }, /^core: debug: invalid boolean value/],
    [{ name: { first: 'a' } }, /^core: name: expected a string/],
    [{ time_zon: 'UTC' }, /^core: extra keys not allowed: "time_zon"$/],
  ];
  for (const [section, message] of refused) t.throws(() => validateCore(section), message, JSON.stringify(section) ?? String(section));

  t.same(
    validateCore({
      name: 12,
      latitude: -33.9,
      longitude: 151.2,
      elevation: 12.7,
      radius: 100.9,
      unit_system: 'imperial',
      time_zone: 'Australia/Sydney',
      currency: 'AUD',
      country: 'AU',
      language: 'en-GB',
      external_url: 'https://example.org',
      allowlist_external_dirs: '/tmp',
      debug: 'yes',
      customize: {},
    }),
    {
      name: '12',
      latitude: -33.9,
      longitude: 151.2,
      elevation: 12,
      radius: 100,
      unit_system: 'imperial',
      time_zone: 'Australia/Sydney',
      currency: 'AUD',
      country: 'AU',
      language: 'en-GB',
      external_url: 'https://example.org',
      allowlist_external_dirs: ['/tmp'],
      debug: true,
      customize: {},
    },
    'accepted values in the form they are reported in',
  );
  for (const zone of ['UTC', 'Etc/UTC', 'GMT', 'US/Eastern', 'America/Argentina/Buenos_Aires', 'Europe/Kyiv', 'Europe/Kiev']) {
    t.same(validateCore({ time_zone: zone }), { time_zone: zone }, `${zone} is a time zone`);
  }
});

t.test('the file and the section are named', async (t) => {
  const dir = await dataDirWith('homeassistant:\n  latitude: 12\n  time_zone: Mars/Olympus_Mons\n');
  const file = join(dir, 'configuration.yaml');
  await t.rejects(loadConfiguration(dir), { message: `${file}: homeassistant: time_zone: ${TZ_MESSAGE} (got "Mars/Olympus_Mons")` });
});

t.test('a refused load keeps the configuration that was there', async (t) => {
  const config = new CoreConfig({ log: {} as EventLog, clock: { now: () => 0 } as any, configDir: '/config' });
  config.load({ time_zone: 'Europe/Amsterdam', latitude: 1 }, true);
  t.throws(() => config.load({ time_zone: 'Mars/Olympus_Mons', latitude: 2 }, true), /time_zone: Invalid time zone/);
  const dict = config.asDict('RUNNING');
  t.same([dict.time_zone, dict.latitude], ['Europe/Amsterdam', 1]);
});

t.test('a recorded location change sets the location and nothing else', async (t) => {
  const config = new CoreConfig({ log: {} as EventLog, clock: { now: () => 0 } as any, configDir: '/config' });
  const record = JSON.parse(
    '{"seq":1,"time":0,"stream":"core/config","type":"core_config_updated","data":{"__proto__":{"time_zone":"Mars"},"latitude":5,"longitude":"x","time_zone":"Mars"},"context":{"id":"c","parent_id":null,"user_id":null}}',
  ) as EventRecord;
  t.ok(config.area.owns(record), "a record of the core configuration's stream");
  if (config.area.owns(record)) config.area.evolve(record);
  const dict = config.asDict('RUNNING');
  t.equal(dict.latitude, 5);
  t.equal(dict.longitude, 4.8903147, 'a value that is no number is left out');
  t.equal(dict.time_zone, 'UTC');
  t.same(Object.keys(config.area.snapshot() as object), ['latitude']);
});

t.test('Hearth does not start with such a configuration', async (t) => {
  const zone = await dataDirWith('core:\n  time_zone: Mars/Olympus_Mons\n');
  const secret = await dataDirWith('core:\n  name: !secret toString\n');
  await writeFile(join(secret, 'secrets.yaml'), 'home_name: Lighthouse\n');
  const [badZone, badSecret] = await Promise.all([runToExit(['--port', '0', '--data', zone]), runToExit(['--port', '0', '--data', secret])]);
  t.equal(badZone.code, 1);
  t.match(badZone.out, `${join(zone, 'configuration.yaml')}: core: time_zone: ${TZ_MESSAGE} (got "Mars/Olympus_Mons")`);
  t.notMatch(badZone.out, /listening/);
  t.equal(badSecret.code, 1);
  t.match(badSecret.out, `${join(secret, 'configuration.yaml')}: secret 'toString' is not defined in secrets.yaml`);
  t.notMatch(badSecret.out, /listening/);

  await t.rejects(startTestHearth(t, { config: 'core:\n  latitude: 123\n' }), /configuration\.yaml: core: latitude: invalid latitude/, 'nor in process');
});

t.test('reload_core_config refuses a bad time zone whole', async (t) => {
  const { base, dataDir } = await startTestHearth(t, { config: 'core:\n  name: Before\n  time_zone: Europe/Amsterdam\n' });
  const rest = api(base, (await onboard(base)).access_token);
  await writeFile(join(dataDir, 'configuration.yaml'), 'core:\n  name: After\n  time_zone: Mars/Olympus_Mons\n');
  const refused = await rest('POST', '/api/services/core/reload_core_config', {});
  t.equal(refused.status, 400);
  t.match(refused.text, /time_zone: Invalid time zone passed in/);
  const kept = (await rest('GET', '/api/config')).json;
  t.same([kept.location_name, kept.time_zone], ['Before', 'Europe/Amsterdam'], 'the old configuration stays, name included');

  await writeFile(join(dataDir, 'configuration.yaml'), 'core:\n  name: After\n  time_zone: America/New_York\n');
  t.equal((await rest('POST', '/api/services/core/reload_core_config', {})).status, 200);
  const now = (await rest('GET', '/api/config')).json;
  t.same([now.location_name, now.time_zone], ['After', 'America/New_York']);
});
