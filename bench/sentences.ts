// Sentences recognised per second by the template engine (actors/conversation/sentences) with
// 10k entity names (plus 1k aliases), 50 areas and ~500 custom templates besides a few generic
// ones, over a mix of sentences: names, areas, numbers, custom phrases and sentences that match
// nothing. The baseline is the least any recogniser does: normalise the sentence (lower case,
// punctuation out, one regex) and look the whole sentence up in a Map of every test sentence —
// an exact-phrase table, which could not handle a single sentence outside the table.
import { compileSentences, parseSentenceYaml, prepareList, type DynamicListValue, type RecognizeResult } from '../actors/conversation/sentences/index.ts';
import { isMain, num, runAlone, type BenchOptions, type BenchResult, type Row, rate } from './common.ts';
import { hotSpotNotes, startProfile } from './profile.ts';

const ENTITIES = 10_000;
const AREAS = 50;
const CUSTOM = 500;
const SENTENCES = 2_000;
const ROUNDS = 3;
const ROUND_MS = 2000;

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'to', 'vi', 'sa', 'de', 'po', 'fu', 'zi', 'ba', 'go', 'he', 'ju'];
/** A made-up word per number, so each custom template has its own words. */
function word(i: number): string {
  let w = '';
  do {
    w += SYLLABLES[i % SYLLABLES.length];
    i = Math.floor(i / SYLLABLES.length);
  } while (i > 0);
  return w + 'x';
}

function sentenceFile() {
  const lines = [
    'language: en',
    'intents:',
    '  TurnOn:',
    '    data:',
    '      - sentences: ["(turn|switch) on [the] {name} [in [the] {area}]", "(turn|switch) [the] {name} on"]',
    '  TurnOff:',
    '    data:',
    '      - sentences: ["(turn|switch) off [the] {name} [in [the] {area}]", "(turn|switch) off all [the] lights in [the] {area}"]',
    '  SetBrightness:',
    '    data:',
    '      - sentences: ["set [the] {name} [brightness] to {pct}[%| percent]", "(dim|brighten) [the] {name} to {pct}[%| percent]"]',
    '        requires_context: {domain: light}',
    '  Temperature:',
    '    data:',
    '      - sentences: ["what is the temperature in [the] {area}", "how (warm|cold) is it in [the] {area}"]',
  ];
  for (let i = 0; i < CUSTOM; i++) {
    const kind = i % 4;
    const a = word(i * 3);
    const b = word(i * 3 + 1);
    const s =
      kind === 0 ? `(start|activate) [the] ${a} ${b} [scene|mode]`
      : kind === 1 ? `${a} [the] {name} [please]`
      : kind === 2 ? `set ${a} ${b} to {pct}[%| percent]`
      : `(what is|tell me) [the] ${a} in [the] {area}`;
    lines.push(`  Custom${i}:`, '    data:', `      - sentences: ["${s}"]`);
  }
  lines.push('lists:', '  pct:', '    range: {type: percentage, from: 0, to: 100}', 'skip_words: ["please", "can you"]');
  return parseSentenceYaml(lines.join('\n'), 'en/bench.yaml');
}

/** The test sentences and the intent each must give (null: no match). */
function sentences(): { text: string; intent: string | null }[] {
  const out: { text: string; intent: string | null }[] = [];
  for (let i = 0; i < SENTENCES; i++) {
    const e = (i * 7919) % ENTITIES;
    const c = (i * 31) % CUSTOM;
    const area = `Room ${i % AREAS}`;
    const a = word(c * 3);
    const b = word(c * 3 + 1);
    switch (i % 10) {
      case 0: case 1: out.push({ text: `Turn on the Device ${e} Lamp`, intent: 'TurnOn' }); break;
      case 2: out.push({ text: `switch off device ${e} lamp in the ${area}`, intent: 'TurnOff' }); break;
      case 3: out.push({ text: `Set the device ${e} lamp brightness to ${i % 101}%`, intent: 'SetBrightness' }); break;
      case 4: out.push({ text: `What is the temperature in the ${area}?`, intent: 'Temperature' }); break;
      case 5: case 6: {
        const kind = c % 4;
        const text =
          kind === 0 ? `activate the ${a} ${b} scene`
          : kind === 1 ? `${a} the device ${e} lamp please`
          : kind === 2 ? `set ${a} ${b} to ${i % 101} percent`
          : `tell me the ${a} in ${area}`;
        out.push({ text, intent: `Custom${c}` });
        break;
      }
      case 7: out.push({ text: `turn on the device ${e} lampshade`, intent: null }); break;
      case 8: out.push({ text: `please order a pizza with ${word(i)} and ${word(i + 1)}`, intent: null }); break;
      default: out.push({ text: `set ${a} ${b} to 150 percent`, intent: null }); break;
    }
  }
  return out;
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const names: DynamicListValue[] = [];
  for (let i = 0; i < ENTITIES; i++) {
    const context = { domain: 'light', area: `area_${i % AREAS}` };
    names.push({ in: `Device ${i} Lamp`, out: `light.device_${i}`, context });
    if (i % 10 === 0) names.push({ in: `Lamp alias ${i}`, out: `light.device_${i}`, context });
  }
  const areas: DynamicListValue[] = Array.from({ length: AREAS }, (_, i) => ({ in: `Room ${i}`, out: `area_${i}` }));

  let t0 = performance.now();
  const file = sentenceFile();
  const recognizer = compileSentences([file]);
  const compileMs = performance.now() - t0;
  t0 = performance.now();
  const lists = { name: prepareList(names), area: prepareList(areas) };
  const prepareMs = performance.now() - t0;

  const cases = sentences();
  // the sentences must be recognised right before their speed means anything
  for (const c of cases) {
    const got = recognizer.recognize(c.text, { lists });
    if ((got?.intent ?? null) !== c.intent) throw new Error(`"${c.text}" gave ${got?.intent ?? 'no match'}, expected ${c.intent ?? 'no match'}`);
  }

  const PUNCT = /[\p{P}]+/gu;
  const table = new Map<string, string | null>();
  for (const c of cases) table.set(c.text.toLowerCase().replace(PUNCT, ' ').replace(/\s+/g, ' ').trim(), c.intent);

  let sink = 0;
  let i = 0;
  let j = 0;
  const engine = () => {
    const c = cases[i++ % cases.length];
    const r: RecognizeResult | null = recognizer.recognize(c.text, { lists });
    if (r) sink += r.template.length;
  };
  const raw = () => {
    const c = cases[j++ % cases.length];
    const hit = table.get(c.text.toLowerCase().replace(PUNCT, ' ').replace(/\s+/g, ' ').trim());
    if (hit) sink += hit.length;
  };
  rate(300, raw);
  rate(300, engine);
  const notes: string[] = [];
  const runs = { raw: [] as number[], engine: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.raw.push(rate(ROUND_MS, raw));
    const stop = options.profile && round === 0 ? await startProfile() : undefined;
    runs.engine.push(rate(ROUND_MS, engine));
    if (stop) notes.push(...hotSpotNotes('sentence recognition', await stop()));
  }

  // what the word index buys: the same sentences trying every template
  const unindexed = compileSentences([file], { index: false });
  let u = 0;
  const unindexedRate = rate(1000, () => unindexed.recognize(cases[u++ % cases.length].text, { lists }));

  // the slowest kind of sentence: a miss that shares the generic templates' words
  const miss = 'turn on the device 4242 lampshade in the room 7';
  const missRate = rate(1000, () => recognizer.recognize(miss, { lists }));

  const best = (xs: number[]) => Math.max(...xs);
  const perSentence = 1e6 / best(runs.engine);
  const row: Row = {
    label: `sentences recognised (${num(ENTITIES + ENTITIES / 10, 0)} names, ${recognizer.templateCount} templates)`,
    value: best(runs.engine),
    unit: 'sentences/s',
    baseline: { label: 'normalise + Map lookup of the whole sentence', value: best(runs.raw) },
    ratio: best(runs.engine) / best(runs.raw),
    target: '< 1 ms per sentence',
    met: perSentence < 1000,
    detail: `${perSentence.toFixed(1)} µs per sentence; a near-miss ("${miss}") ${(1e6 / missRate).toFixed(1)} µs`,
  };
  notes.unshift(
    `${cases.length} sentences cycled: 30% names (turn on/off, with an area), 10% brightness with a percentage and requires_context, 10% areas, 20% custom phrases (${CUSTOM} custom templates besides 8 generic ones), 30% that match nothing; every one checked for the right intent before timing`,
    `baseline: the sentence lower-cased, punctuation replaced by one regex, looked up whole in a Map of the test sentences — the floor of any recogniser, which knows nothing outside its table`,
    `without the word index (every template tried on every sentence): ${num(unindexedRate, 0)} sentences/s, ${(1e6 / unindexedRate).toFixed(1)} µs per sentence`,
    `compiling the templates took ${compileMs.toFixed(0)} ms; preparing the ${num(names.length, 0)} names ${prepareMs.toFixed(0)} ms (done once per registry change)`,
    `best of ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s: engine ${runs.engine.map((x) => num(x, 0)).join(', ')}; raw ${runs.raw.map((x) => num(x, 0)).join(', ')} per s (checksum ${sink % 1000})`,
  );
  return { name: 'sentences', title: 'sentences recognised/s with 10k entity names and 500 custom templates vs a whole-sentence Map lookup', rows: [row], notes };
}

if (isMain(import.meta.url)) await runAlone(run);
