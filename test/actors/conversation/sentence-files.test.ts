// Sentence files: template syntax and YAML errors that name the file and the key, a language
// folder loaded and merged, sentences from configuration.yaml, and 10k entity names among 500
// generated templates.
import t from 'tap';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compileSentences,
  loadSentenceDir,
  parseSentenceYaml,
  parseTemplate,
  prepareList,
  SentenceFileError,
  sentencesFromConfig,
  TemplateSyntaxError,
  type DynamicListValue,
  type SentenceFile,
} from '../../../actors/conversation/sentences/index.ts';
import { hit } from './sentence-match.ts';

t.test('template syntax errors name the problem', async (t) => {
  t.throws(() => parseTemplate('turn on (the'), TemplateSyntaxError);
  t.throws(() => parseTemplate('turn on [the'), /a "\[" without its "\]"/);
  t.throws(() => parseTemplate('turn on the)'), /unexpected "\)"/);
  t.throws(() => parseTemplate('turn {on'), /"\{" without its "\}"/);
  t.throws(() => parseTemplate('turn {a:b:c}'), /not a list reference/);
  t.throws(() => parseTemplate('a | b'), /outside of a group/);
  t.throws(() => parseTemplate('[a; b]'), /permutation/);
  t.same(parseTemplate('a \\(b\\)'), { t: 'text', v: 'a (b)' }, 'escapes');
});

t.test('YAML errors name the file and the key', async (t) => {
  const bad = (yaml: string, key: string, msg: RegExp) => {
    try {
      parseSentenceYaml(yaml, 'en/bad.yaml');
      t.fail(`no error for ${key}`);
    } catch (err) {
      t.ok(err instanceof SentenceFileError, key);
      t.equal((err as SentenceFileError).file, 'en/bad.yaml');
      t.equal((err as SentenceFileError).key, key);
      t.match((err as Error).message, msg);
    }
  };
  bad('intents: [', '', /not valid YAML/);
  bad('- a', '', /expected a mapping/);
  bad('intents: {X: {data: {}}}', 'intents.X', /"data"/);
  bad('intents: {X: {data: [{}]}}', 'intents.X.data[0].sentences', /sentence templates/);
  bad('intents: {X: {data: [{sentences: ["a (b"]}]}}', 'intents.X.data[0].sentences[0]', /without its/);
  bad('intents: {X: {data: [{sentences: [a], requires_context: [x]}]}}', 'intents.X.data[0].requires_context', /mapping/);
  bad('lists: {a: {range: {from: 1}}}', 'lists.a.range.to', /number/);
  bad('lists: {a: {range: {from: 1, to: 2, type: speed}}}', 'lists.a.range.type', /unknown range type/);
  bad('lists: {a: {values: [{out: 1}]}}', 'lists.a.values[0]', /"in"/);
  bad('lists: {a: {}}', 'lists.a', /values/);
  bad('skip_words: please', 'skip_words', /list of words/);
  bad('expansion_rules: {a: "(b"}', 'expansion_rules.a', /without its/);
  bad('responses: {intents: {X: {default: 3}}}', 'responses.intents.X.default', /text/);
  // errors found when compiling: unknown and circular rules
  const f = parseSentenceYaml('intents: {X: {data: [{sentences: ["<nope> a", "ok"]}, {sentences: ["<a>"], expansion_rules: {a: "<b>", b: "<a>"}}]}}', 'en/rules.yaml');
  t.throws(() => compileSentences([f]), { file: 'en/rules.yaml', key: 'intents.X.data[0].sentences[0]', message: /unknown expansion rule <nope>/ });
  const errors: SentenceFileError[] = [];
  const r = compileSentences([f], { onError: (e) => errors.push(e) });
  t.same(
    errors.map((e) => [e.key, e.problem]),
    [
      ['intents.X.data[0].sentences[0]', 'unknown expansion rule <nope>'],
      ['intents.X.data[1].sentences[0]', 'expansion rule <a> refers to itself (<a> -> <b> -> <a>)'],
    ],
  );
  t.equal(r.recognize('ok')?.intent, 'X', 'the good templates still work');
});

t.test('loading a language folder: files merged in name order, responses overridden', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-sentences-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(join(dir, 'en'));
  await writeFile(
    join(dir, 'en', 'b.yaml'),
    `language: en
intents:
  Hi:
    data:
      - sentences: ["{greeting} there"]
responses:
  intents:
    Hi:
      default: "Hi from b"
`,
  );
  await writeFile(
    join(dir, 'en', 'a.yaml'),
    `language: en
intents:
  Hi:
    data:
      - sentences: ["hi"]
lists:
  greeting:
    values: [hello, hey]
responses:
  intents:
    Hi:
      default: "Hi from a"
      other: "Other"
`,
  );
  await writeFile(join(dir, 'en', 'notes.txt'), 'not yaml');
  const files = await loadSentenceDir(dir, 'en');
  t.same(
    files.map((f) => [f.file, f.source, f.language]),
    [
      ['en/a.yaml', 'custom', 'en'],
      ['en/b.yaml', 'custom', 'en'],
    ],
  );
  const r = compileSentences(files);
  t.same([r.recognize('hey there')?.intent, r.recognize('hey there')?.file, r.recognize('hi')?.block], ['Hi', 'en/b.yaml', 0]);
  t.equal(r.recognize('hey there')?.block, 1, 'blocks of a later file add to the intent');
  t.equal(r.response('Hi', 'default'), 'Hi from b', 'the later file wins');
  t.equal(r.response('Hi', 'other'), 'Other');
  t.same(await loadSentenceDir(dir, 'nl'), [], 'no folder: no files');
  await writeFile(join(dir, 'en', 'c.yaml'), 'intents: {Bad: {data: [{sentences: "no list"}]}}');
  await t.rejects(loadSentenceDir(dir, 'en'), { name: 'SentenceFileError', file: 'en/c.yaml', key: 'intents.Bad.data[0].sentences' });
});

t.test('sentences from configuration.yaml', async (t) => {
  const r = compileSentences([sentencesFromConfig({ Party: ['party time', 'start the party'] })]);
  t.same(hit(r, 'Start the party!'), { intent: 'Party' });
  t.throws(() => sentencesFromConfig({ Party: 'party' }), { name: 'SentenceFileError', key: 'conversation.intents.Party.sentences' });
});

t.test('10k entity names match correctly among 500 templates', async (t) => {
  const many: DynamicListValue[] = [];
  for (let i = 0; i < 10_000; i++) {
    many.push({ in: `Device ${i} Lamp`, out: `light.device_${i}`, context: { domain: 'light', area: `area_${i % 50}` } });
    if (i % 10 === 0) many.push({ in: `Alias ${i}`, out: `light.device_${i}`, context: { domain: 'light', area: `area_${i % 50}` } });
  }
  const areaList: DynamicListValue[] = Array.from({ length: 50 }, (_, i) => ({ in: `Room ${i}`, out: `area_${i}` }));
  const files: SentenceFile[] = [bigFile(500)];
  const r = compileSentences(files);
  t.equal(r.templateCount, 503);
  const prepared = { name: prepareList(many), area: prepareList(areaList) };
  t.same(hit(r, 'turn on device 9876 lamp', { lists: prepared }), { intent: 'TurnOn', name: 'light.device_9876' });
  t.same(hit(r, 'turn on alias 120 in room 20', { lists: prepared }), { intent: 'TurnOn', name: 'light.device_120', area: 'area_20' });
  t.same(hit(r, 'custom phrase 321 for device 5 lamp', { lists: prepared }), { intent: 'Custom321', name: 'light.device_5' });
  t.same(hit(r, 'custom phrase 499 number 7', { lists: prepared }), { intent: 'Custom499', n: 7 });
  t.equal(hit(r, 'turn on device 10000 lamp', { lists: prepared }), null, 'not a name');
  t.equal(hit(r, 'custom phrase 500 for device 5 lamp', { lists: prepared }), null, 'not a template');
});

/** The two generic templates and `n` custom blocks; the last one has a second template. */
function bigFile(n: number): SentenceFile {
  const lines = ['language: en', 'intents:', '  TurnOn:', '    data:', '      - sentences: ["turn on [the] {name} in [the] {area}", "turn on [the] {name}"]'];
  for (let i = 0; i < n; i++) {
    const extra = i === n - 1 ? `, "custom phrase ${i} number {n}"` : '';
    lines.push(`  Custom${i}:`, '    data:', `      - sentences: ["custom phrase ${i} (for|to) [the] {name}"${extra}]`);
  }
  lines.push('lists:', '  n:', '    range: {from: 0, to: 100}');
  return parseSentenceYaml(lines.join('\n'), 'en/big.yaml');
}
