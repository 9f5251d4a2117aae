// configuration.yaml's tags read as the original's loader reads them, over real files: includes
// of files and folders, secrets from the including folder chain, environment variables, blueprint
// inputs, and errors that name the file and the line.
import t, { type Test } from 'tap';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../../../actors/core/config-error.ts';
import { loadConfiguration } from '../../../actors/core/configuration.ts';
import { Input, loadYamlFile } from '../../../actors/core/yaml-loader.ts';

/** A configuration folder holding these files (paths relative to it). */
async function tree(t: Test, files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-yaml-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

const load = (dir: string, env: Record<string, string> = {}, onWarning?: (m: string) => void) =>
  loadYamlFile(join(dir, 'configuration.yaml'), { configDir: dir, env, onWarning });

t.test('!include reads a file relative to the including file, nested', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'sensor: !include parts/sensor.yaml\nempty: !include empty.yaml\nnumber: !include number.yaml\n',
    'parts/sensor.yaml': '- platform: template\n  extra: !include deeper/extra.yaml\n',
    'parts/deeper/extra.yaml': 'value: 1\n',
    'empty.yaml': '',
    'number.yaml': '123\n',
  });
  t.same(await load(dir), {
    sensor: [{ platform: 'template', extra: { value: 1 } }],
    // an empty file stands for an empty mapping; a scalar file for its value
    empty: {},
    number: 123,
  });
});

t.test('!include_dir_list and !include_dir_named: one item per file, sorted, recursive', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'list: !include_dir_list items\nnamed: !include_dir_named items\n',
    'items/b.yaml': 'two\n',
    'items/a.yaml': 'one\n',
    'items/empty.yaml': '',
    'items/sub/c.yaml': 'three\n',
    'items/sub/deeper/d.yaml': 'four\n',
    'items/.hidden.yaml': 'hidden\n',
    'items/.hidden/e.yaml': 'in a hidden folder\n',
    'items/secrets.yaml': 'pw: x\n',
    'items/notes.yml': 'not .yaml\n',
    'items/readme.txt': 'text\n',
  });
  const doc = (await load(dir)) as any;
  // the folder's own files first (sorted), then its subfolders; an empty file is left out of a list
  t.same(doc.list, ['one', 'two', 'three', 'four']);
  // ...and is an empty mapping under its name
  t.same(doc.named, { a: 'one', b: 'two', empty: {}, c: 'three', d: 'four' });
  t.same(Object.keys(doc.named), ['a', 'b', 'empty', 'c', 'd'], 'in the order read');
});

t.test('!include_dir_merge_list flattens lists; !include_dir_merge_named merges mappings', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'merged_list: !include_dir_merge_list lists\nmerged_named: !include_dir_merge_named maps\n',
    'lists/first.yaml': '- one\n',
    'lists/second.yaml': '- two\n- three\n',
    'lists/sub/third.yaml': '- four\n',
    'lists/mapping.yaml': 'not: a list\n',
    'lists/empty.yaml': '',
    'maps/first.yaml': 'key1: one\nshared: first\n',
    'maps/second.yaml': 'key2: two\nkey3: three\n',
    'maps/sub/third.yaml': 'key4: four\nshared: third\n',
    'maps/list.yaml': '- not a mapping\n',
    'maps/empty.yaml': '',
  });
  const doc = (await load(dir)) as any;
  t.same(doc.merged_list, ['one', 'two', 'three', 'four'], 'files that are not lists are left out');
  t.same(doc.merged_named, { key1: 'one', shared: 'third', key2: 'two', key3: 'three', key4: 'four' }, 'a later file wins a shared key');
});

t.test('a folder include of a folder that does not exist is empty, as in the original', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'a: !include_dir_list nowhere\nb: !include_dir_named nowhere\nc: !include_dir_merge_list nowhere\nd: !include_dir_merge_named nowhere\n',
  });
  t.same(await load(dir), { a: [], b: {}, c: [], d: {} });
});

t.test('a link to a folder is not walked; a link to a file is read', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'list: !include_dir_list items\n',
    'items/a.yaml': 'one\n',
    'elsewhere/b.yaml': 'two\n',
    'elsewhere/c.yaml': 'three\n',
  });
  await symlink(join(dir, 'elsewhere'), join(dir, 'items', 'linked'));
  await symlink(join(dir, 'elsewhere', 'c.yaml'), join(dir, 'items', 'c.yaml'));
  t.same(await load(dir), { list: ['one', 'three'] });
});

t.test('secrets: the included file\'s folder first, then its parents up to the configuration folder', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'top: !secret pw\nsub: !include sub/sub.yaml\nlisted: !include_dir_list sub/more\n',
    'secrets.yaml': 'pw: from-top\nonly_top: top-only\nlogger: debug\n',
    'sub/sub.yaml': 'pw: !secret pw\nonly_top: !secret only_top\n',
    'sub/secrets.yaml': 'pw: from-sub\n',
    'sub/more/item.yaml': 'pw: !secret pw\n',
    'unrelated/secrets.yaml': 'unrelated: nope\n',
  });
  t.same(await load(dir), {
    top: 'from-top',
    sub: { pw: 'from-sub', only_top: 'top-only' },
    listed: [{ pw: 'from-sub' }],
  });

  const unrelated = await tree(t, {
    'configuration.yaml': 'sub: !include sub/sub.yaml\n',
    'sub/sub.yaml': 'a: 1\nb: !secret unrelated\n',
    'unrelated/secrets.yaml': 'unrelated: nope\n',
  });
  const file = join(unrelated, 'sub', 'sub.yaml');
  await t.rejects(load(unrelated), new ConfigurationError(`${file}: secret 'unrelated' is not defined in secrets.yaml (line 2)`), 'a sibling folder is not searched');

  const logger = await tree(t, { 'configuration.yaml': 'a: !secret logger\n', 'secrets.yaml': 'logger: debug\n' });
  await t.rejects(load(logger), /secret 'logger' is not defined/, '`logger` of secrets.yaml is never a secret');

  const nested = await tree(t, { 'configuration.yaml': 'a: !secret a\n', 'secrets.yaml': 'a: 1\nb: !secret a\n' });
  await t.rejects(load(nested), new RegExp(`${join(nested, 'secrets.yaml')}, line 2: !secret is not supported in secrets.yaml`));
});

t.test('!env_var: the variable, else the default (a string, words joined), else an error naming it', async (t) => {
  const dir = await tree(t, {
    'configuration.yaml': 'set: !env_var HEARTH_TEST_SET\ndefaulted: !env_var HEARTH_TEST_UNSET 8123\nwords: !env_var HEARTH_TEST_UNSET  two   words\noverridden: !env_var HEARTH_TEST_SET fallback\n',
  });
  t.same(await load(dir, { HEARTH_TEST_SET: 'from env' }), { set: 'from env', defaulted: '8123', words: 'two words', overridden: 'from env' });

  const missing = await tree(t, { 'configuration.yaml': 'a: 1\npassword: !env_var HEARTH_TEST_PASSWORD\n' });
  await t.rejects(
    load(missing),
    new ConfigurationError(`${join(missing, 'configuration.yaml')}, line 2: environment variable HEARTH_TEST_PASSWORD is not defined`),
  );
  process.env.HEARTH_TEST_FROM_PROCESS = 'yes';
  t.teardown(() => delete process.env.HEARTH_TEST_FROM_PROCESS);
  const fromProcess = await tree(t, { 'configuration.yaml': 'a: !env_var HEARTH_TEST_FROM_PROCESS\n' });
  t.same(await loadYamlFile(join(fromProcess, 'configuration.yaml'), { configDir: fromProcess }), { a: 'yes' }, 'process.env when no env is given');
});

t.test('!input stays a marker for blueprints', async (t) => {
  const dir = await tree(t, { 'configuration.yaml': 'blueprint:\n  name: Motion light\ntriggers:\n  - trigger: state\n    entity_id: !input motion_entity\n' });
  const doc = (await load(dir)) as any;
  t.ok(doc.triggers[0].entity_id instanceof Input);
  t.equal(doc.triggers[0].entity_id.name, 'motion_entity');
});

t.test('errors name the file and the line', async (t) => {
  const missing = await tree(t, { 'configuration.yaml': 'a: 1\nb: !include nothere.yaml\n' });
  await t.rejects(
    load(missing),
    new ConfigurationError(`${join(missing, 'configuration.yaml')}, line 2: Unable to read file ${join(missing, 'nothere.yaml')}`),
  );

  const bad = await tree(t, { 'configuration.yaml': 'a: !include sub/bad.yaml\n', 'sub/bad.yaml': 'a: a\nnokeyhere\n' });
  await t.rejects(load(bad), new RegExp(`^${join(bad, 'sub', 'bad.yaml')}: invalid YAML: .* at line 2, column 1`), 'bad YAML in an included file names that file');

  const badInDir = await tree(t, { 'configuration.yaml': 'a: !include_dir_list d\n', 'd/x.yaml': 'ok\n', 'd/y.yaml': '- [unclosed\n' });
  await t.rejects(load(badInDir), new RegExp(`^${join(badInDir, 'd', 'y.yaml')}: invalid YAML: .*line \\d+`), '...and so does one in a folder include');

  for (const tag of ['!include', '!include_dir_list', '!include_dir_named', '!include_dir_merge_list', '!include_dir_merge_named', '!env_var', '!secret']) {
    const dir = await tree(t, { 'configuration.yaml': `x: 1\nkey: ${tag}\n` });
    await t.rejects(load(dir), new ConfigurationError(`${join(dir, 'configuration.yaml')}, line 2: ${tag} needs an argument.`), tag);
  }

  const unhashable = await tree(t, { 'configuration.yaml': 'message:\n  {{ states.state }}\n' });
  await t.rejects(load(unhashable), new RegExp(`${join(unhashable, 'configuration.yaml')}, line 2: invalid key`), 'an unquoted template');

  const unknown = await tree(t, { 'configuration.yaml': 'a: 1\nb: !includ x.yaml\n' });
  await t.rejects(load(unknown), new ConfigurationError(`${join(unknown, 'configuration.yaml')}, line 2: unknown tag !includ`), 'a tag the original has no constructor for');

  const mappingArg = await tree(t, { 'configuration.yaml': 'a: !include {file: x.yaml}\n' });
  await t.rejects(load(mappingArg), /line 1: !include takes a plain value, not a mapping/);
});

t.test('only regular files are read; a loop of includes is refused', async (t) => {
  const folder = await tree(t, { 'configuration.yaml': 'a: !include sub\n', 'sub/x.yaml': '1\n' });
  await t.rejects(load(folder), new ConfigurationError(`Unable to read file ${join(folder, 'sub')}: not a regular file`));

  const fifo = await tree(t, { 'configuration.yaml': 'a: !include pipe.yaml\nb: !include_dir_list d\n' });
  execFileSync('mkfifo', [join(fifo, 'pipe.yaml')]);
  await t.rejects(load(fifo), /pipe\.yaml: not a regular file/, 'a FIFO would block the load');

  const outside = await tree(t, { 'conf/configuration.yaml': 'a: !include ../shared.yaml\n', 'shared.yaml': 'b: !secret pw\n', 'conf/secrets.yaml': 'pw: p\n' });
  t.same(await loadYamlFile(join(outside, 'conf', 'configuration.yaml'), { configDir: join(outside, 'conf') }), { a: { b: 'p' } }, 'a relative path may leave the folder, as in the original');
  const absolute = await tree(t, { 'elsewhere/x.yaml': 'from: elsewhere\n', 'elsewhere/d/y.yaml': '- listed\n' });
  const conf = await tree(t, { 'configuration.yaml': `a: !include ${join(absolute, 'elsewhere', 'x.yaml')}\nb: !include_dir_merge_list ${join(absolute, 'elsewhere', 'd')}\n` });
  t.same(await load(conf), { a: { from: 'elsewhere' }, b: ['listed'] }, 'an absolute path is taken as it is');

  const loop = await tree(t, { 'configuration.yaml': 'a: !include a.yaml\n', 'a.yaml': 'b: !include b.yaml\n', 'b.yaml': 'c: !include a.yaml\n' });
  await t.rejects(load(loop), /include loop: .*configuration\.yaml -> .*a\.yaml -> .*b\.yaml -> .*a\.yaml/);

  const latin1 = await tree(t, { 'configuration.yaml': 'a: !include l.yaml\n' });
  await writeFile(join(latin1, 'l.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
  await t.rejects(load(latin1), /l\.yaml: not valid UTF-8/);
});

t.test('a key given twice: the last value wins and the lines are reported', async (t) => {
  const dir = await tree(t, { 'configuration.yaml': 'key: thing1\nother: 1\nkey: thing2\n' });
  const warnings: string[] = [];
  t.same(await load(dir, {}, (m) => warnings.push(m)), { key: 'thing2', other: 1 });
  t.same(warnings, [`YAML file ${join(dir, 'configuration.yaml')} contains duplicate key "key". Check lines 1 and 3`]);
});

t.test('automation: !include automations.yaml reaches the automation section intact', async (t) => {
  // as the original's automation editor writes the file
  const automations = `- id: '1732780800000'
  alias: Porch light at dusk
  description: ''
  triggers:
  - trigger: sun
    event: sunset
    offset: -00:15:00
  conditions:
  - condition: state
    entity_id: input_boolean.away
    state: 'off'
  actions:
  - action: light.turn_on
    metadata: {}
    data:
      brightness_pct: 80
    target:
      entity_id: light.porch
  mode: single
- id: '1732780900000'
  alias: Empty
  description: ''
  triggers: []
  conditions: []
  actions: []
  mode: single
`;
  const dir = await tree(t, {
    'configuration.yaml': 'core:\n  name: Home\nautomation: !include automations.yaml\nscript: !include scripts.yaml\n',
    'automations.yaml': automations,
    'scripts.yaml': '',
  });
  const config = await loadConfiguration(dir);
  t.same(config.sections.automation, [
    {
      id: '1732780800000',
      alias: 'Porch light at dusk',
      description: '',
      triggers: [{ trigger: 'sun', event: 'sunset', offset: '-00:15:00' }],
      conditions: [{ condition: 'state', entity_id: 'input_boolean.away', state: 'off' }],
      actions: [{ action: 'light.turn_on', metadata: {}, data: { brightness_pct: 80 }, target: { entity_id: 'light.porch' } }],
      mode: 'single',
    },
    { id: '1732780900000', alias: 'Empty', description: '', triggers: [], conditions: [], actions: [], mode: 'single' },
  ]);
  t.same(config.sections.script, {}, 'an empty included file is an empty mapping');
  t.equal(config.core.name, 'Home');
});

t.test('plain scalars resolve as PyYAML resolves YAML 1.1', async (t) => {
  const cases: [string, unknown][] = [
    ['yes', true], ['No', false], ['ON', true], ['off', false], ['True', true],
    ['y', 'y'], ['n', 'n'], ['Y', 'Y'],
    ['1_000', 1000], ['0755', 493], ['09', '09'], ['0x1F', 31], ['0b101', 5], ['-0b101', -5],
    ['7:30', 450], ['07:30', '07:30'], ['1:30:00', 5400], ['-1:30', -90],
    ['1.5', 1.5], ['1.', 1], ['.5', 0.5], ['-.5', '-.5'], ['1e3', '1e3'], ['1.0e3', '1.0e3'], ['1.0e+3', 1000], ['1:30.5', 90.5],
    ['.inf', Infinity], ['-.Inf', -Infinity],
    ['~', null], ['Null', null], ['', null],
    ['2024-01-01', '2024-01-01'], ['"yes"', 'yes'], ["'0755'", '0755'],
  ];
  const text = cases.map(([plain], i) => `k${i}: ${plain}`).join('\n');
  const dir = await tree(t, { 'configuration.yaml': `${text}\nnan: .NaN\non: a key\nbase: &base {x: 1, y: 1}\nmerged:\n  <<: *base\n  y: 3\n` });
  const doc = (await load(dir)) as Record<string, unknown>;
  for (const [i, [plain, expected]] of cases.entries()) t.same(doc[`k${i}`], expected, plain || '(empty)');
  t.ok(Number.isNaN(doc.nan), '.NaN');
  t.equal(doc.true, 'a key', 'a key `on` is the boolean true');
  t.same(doc.merged, { x: 1, y: 3 }, 'merge keys');

  const tagged = await tree(t, { 'configuration.yaml': 'a: !!int "12"\nb: !!float "1"\nc: !!str 0755\nd: !!bool "yes"\n' });
  t.same(await load(tagged), { a: 12, b: 1, c: '0755', d: true }, 'explicit tags');
});
