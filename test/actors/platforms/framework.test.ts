// The platform form of configuration.yaml: entity ids from names, errors naming their place,
// registry entries for a unique_id, reload.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { slugify } from '../../../actors/entities/slug.ts';
import { parsePlatformSection } from '../../../actors/entities/platforms/config.ts';
import { platformDomains, VirtualPlatforms } from '../../../actors/entities/platforms/index.ts';
import type { PlatformRegistrar } from '../../../actors/entities/platforms/types.ts';
import { startHearth } from '../../../bin/instance.ts';
import { dataDirWith } from '../../helpers/hearth.ts';
import { virtualHome } from '../../helpers/platform.ts';
import { openEventLog } from '../../../store/log.ts';
import { EntityActors } from '../../../actors/entities/registry.ts';
import { ServiceRegistry } from '../../../actors/services/registry.ts';
import { manualClock, sequentialIds } from '../../../actors/clock.ts';

const switches = platformDomains.find((d) => d.domain === 'switch')!;

t.test('slugify as the original', async (t) => {
  const table: Array<[string, string]> = [
    ['Porch Light', 'porch_light'],
    ['Test_(More)', 'test_more'],
    ['  spaced  out  ', 'spaced_out'],
    ['Café Crème', 'cafe_creme'],
    ['ÜBER Straße', 'uber_strasse'],
    ["Bob's lamp", 'bob_s_lamp'],
    ['1,000 lumens', '1000_lumens'],
    ['Łódź Øresund', 'lodz_oresund'],
    ['!!!', 'unknown'],
    ['', ''],
  ];
  for (const [name, slug] of table) t.equal(slugify(name), slug, name);
});

t.test('entity ids: collisions get _2, _3', async (t) => {
  const entries = parsePlatformSection(switches, [
    { platform: 'virtual', name: 'Lamp' },
    { platform: 'virtual', name: 'lamp' },
    { platform: 'virtual', name: 'LAMP!' },
    { platform: 'virtual', name: 'Lamp 2' },
  ]);
  t.same(entries.map((e) => e.entityId), ['switch.lamp', 'switch.lamp_2', 'switch.lamp_3', 'switch.lamp_2_2']);
  t.same(parsePlatformSection(switches, { platform: 'virtual', name: 'Solo' }).map((e) => e.entityId), ['switch.solo'], 'a single mapping is a list of one');
  t.same(parsePlatformSection(switches, [{ platform: 'template', name: 'x' }], new Set(['template'])), [], 'entries of a platform set up elsewhere are left alone');
});

t.test('configuration errors name domain, entry and key', async (t) => {
  const table: Array<[unknown, RegExp]> = [
    [[{ platform: 'hue', name: 'x' }], /'switch' at switch\[0\], key 'platform': platform 'hue' is not available/],
    [[{ name: 'x' }], /switch\[0\], key 'platform': required key not provided/],
    [[{ platform: 'virtual', name: 'a' }, { platform: 'virtual' }], /switch\[1\] \(platform virtual\), key 'name': required key not provided/],
    [[{ platform: 'virtual', name: 'a', brightness: 3 }], /switch\[0\] \(platform virtual\), key 'brightness': extra keys not allowed/],
    [[{ platform: 'virtual', name: 'a', initial: 'maybe' }], /key 'initial': invalid boolean value maybe/],
    [[{ platform: 'virtual', name: 'a', device_class: 'lamp' }], /key 'device_class': value must be one of \['outlet', 'switch'\]/],
    [[{ platform: 'virtual', name: 'a', icon: 'lamp' }], /key 'icon': Icons should be specified/],
    [[{ platform: 'virtual', name: 'a', unique_id: 'u' }, { platform: 'virtual', name: 'b', unique_id: 'u' }], /switch\[1\], key 'unique_id': u is used by another entry/],
    [['lamp'], /switch\[0\]: expected a dictionary/],
  ];
  for (const [section, message] of table) t.throws(() => parsePlatformSection(switches, section), message, JSON.stringify(section));
});

t.test('a broken entry stops the start with that message', async (t) => {
  const dataDir = await dataDirWith('switch:\n  - platform: virtual\n    name: ok\n  - platform: nope\n    name: bad\n');
  await t.rejects(startHearth({ dataDir, port: 0, host: '127.0.0.1', log: () => {} }), /switch\[1\], key 'platform': platform 'nope' is not available/);
});

t.test('a unique_id gives a device and a registry entry, whose entity id is used', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-platform-'));
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  const clock = manualClock(Date.UTC(2026, 0, 1), 1);
  const ids = sequentialIds();
  const entities = new EntityActors({ log, clock });
  const services = new ServiceRegistry({ log, clock, entities });
  const calls: unknown[] = [];
  const registrar: PlatformRegistrar = {
    async ensureDevice(device) {
      calls.push(['device', device]);
      return 'dev1';
    },
    async ensureEntity(entity) {
      calls.push(['entity', entity]);
      return 'switch.renamed_by_user';
    },
  };
  const newContext = () => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: null });
  const platforms = new VirtualPlatforms({ entities, services, clock, log: () => {}, newContext, fireEvent: async () => {}, readSections: async () => ({}), registrar });
  t.teardown(() => platforms.stop());
  await platforms.configure({ switch: [{ platform: 'virtual', name: 'Garden', unique_id: 'g1', device_class: 'outlet' }, { platform: 'virtual', name: 'Plain' }] }, newContext());
  t.same(calls, [
    ['device', { identifiers: [['virtual', 'g1']], name: 'Garden', manufacturer: 'Hearth', model: 'Virtual switch' }],
    [
      'entity',
      {
        domain: 'switch',
        platform: 'virtual',
        unique_id: 'g1',
        suggested_entity_id: 'switch.garden',
        original_name: 'Garden',
        original_icon: null,
        original_device_class: 'outlet',
        supported_features: 0,
        unit_of_measurement: null,
        device_id: 'dev1',
      },
    ],
  ], 'only the entry with a unique_id is registered, with its device');
  t.ok(entities.has('switch.renamed_by_user'), 'the registry’s entity id is the entity’s');
  t.ok(entities.has('switch.plain'));
  t.notOk(entities.has('switch.garden'));
});

t.test('virtual.reload: entries appear, change and go; a broken file changes nothing', async (t) => {
  const home = await virtualHome(t, 'switch:\n  - platform: virtual\n    name: One\n');
  await home.call('switch', 'turn_on', { entity_id: 'switch.one' });
  await writeFile(join(home.dataDir, 'configuration.yaml'), 'switch:\n  - platform: virtual\n    name: One\n    icon: mdi:one\n  - platform: virtual\n    name: Two\n');
  t.equal((await home.call('virtual', 'reload')).status, 200);
  const one = await home.state('switch.one');
  t.same([one.state, one.attributes.icon], ['on', 'mdi:one'], 'a changed entry keeps its state');
  t.equal((await home.state('switch.two')).state, 'off', 'a new entry appears');
  await writeFile(join(home.dataDir, 'configuration.yaml'), 'switch:\n  - platform: virtual\n    name: Two\n  - platform: virtual\n    name: Bad\n    initial: maybe\n');
  const refused = await home.call('virtual', 'reload');
  t.equal(refused.status, 400);
  t.match(refused.text, /switch\[1\].*key 'initial'/);
  t.ok(await home.state('switch.one'), 'nothing changed');
  await writeFile(join(home.dataDir, 'configuration.yaml'), 'switch:\n  - platform: virtual\n    name: Two\n');
  await home.call('virtual', 'reload');
  t.equal(await home.state('switch.one'), undefined, 'a removed entry goes');
});
