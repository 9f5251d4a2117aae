// Ids from names and MAC addresses, as the original's slugify, normalize_name and format_mac make them.
import t from 'tap';
import { normalizeName, slugify, uniqueSlug } from '../../actors/registries/names.ts';
import { formatMac } from '../../actors/registries/devices.ts';

t.test('slugify', async (t) => {
  for (const [text, slug] of [
    ['T-!@#$!#@$!$est', 't_est'],
    ['Test More', 'test_more'],
    ['Test_(More)', 'test_more'],
    ['Tèst_Mörê', 'test_more'],
    ['B8:27:EB:00:00:00', 'b8_27_eb_00_00_00'],
    ['test.com', 'test_com'],
    ['greg_phone - exp_wayp1', 'greg_phone_exp_wayp1'],
    ['We are, we are, a... Test Calendar', 'we_are_we_are_a_test_calendar'],
    ['Tèst_äöüß_ÄÖÜ', 'test_aouss_aou'],
    ["Bob's Room", 'bobs_room'],
    ['1,000 Lights', '1000_lights'],
    ['影師嗎', 'unknown'],
    ['', ''],
  ]) {
    t.equal(slugify(text), slug, JSON.stringify(text));
  }
});

t.test('unique ids and normalized names', async (t) => {
  const taken = new Set(['kitchen', 'kitchen_2']);
  t.equal(uniqueSlug('Kitchen', (id) => taken.has(id)), 'kitchen_3');
  t.equal(uniqueSlug('Hall', (id) => taken.has(id)), 'hall');
  t.equal(normalizeName('Living Room'), normalizeName('living room'));
  t.equal(normalizeName('Straße'), 'strasse');
  t.not(normalizeName('Living-Room'), normalizeName('Living Room'));
});

t.test('format_mac', async (t) => {
  for (const [mac, formatted] of [
    ['AA:BB:CC:DD:EE:FF', 'aa:bb:cc:dd:ee:ff'],
    ['AA-BB-CC-DD-EE-FF', 'aa:bb:cc:dd:ee:ff'],
    ['aabb.ccdd.eeff', 'aa:bb:cc:dd:ee:ff'],
    ['AABBCCDDEEFF', 'aa:bb:cc:dd:ee:ff'],
    ['not a mac', 'not a mac'],
  ]) {
    t.equal(formatMac(mac), formatted, mac);
  }
});
