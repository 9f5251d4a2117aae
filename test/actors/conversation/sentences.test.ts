// The sentence template engine matching on its own: the original's template syntax, lists of
// each kind, context rules, skip words, first-match order, unmatched slots and unknown words.
// Sentence files (their errors, loading, a large generated one) are sentence-files.test.ts.
import t from 'tap';
import { compileSentences, parseSentenceYaml, prepareList } from '../../../actors/conversation/sentences/index.ts';
import { areas, engine, hit, lists, names } from './sentence-match.ts';

t.test('alternatives, also inside words', async (t) => {
  const r = engine(`
intents:
  Color:
    data:
      - sentences: ["make it (red | green | blue)", "turn(ed|ing) (up|down)"]
`);
  for (const s of ['make it red', 'make it green', 'Make it BLUE!', 'turned up', 'turning down']) t.same(hit(r, s), { intent: 'Color' }, s);
  for (const s of ['make it yellow', 'make it', 'turn up', 'turnedup', 'make it red now']) t.equal(hit(r, s), null, `${s} does not match`);
});

t.test('optional parts, alone and inside words', async (t) => {
  const r = engine(`
intents:
  Lights:
    data:
      - sentences: ["turn on [the] light[s] [please | now]"]
`);
  for (const s of ['turn on light', 'turn on the light', 'turn on the lights', 'turn on lights now', 'turn on the light please']) t.ok(hit(r, s), s);
  for (const s of ['turn on the the light', 'turn on lightss', 'turn on light later']) t.equal(hit(r, s), null, `${s} does not match`);
});

t.test('permutations match their parts in any order', async (t) => {
  const r = engine(`
intents:
  Perm:
    data:
      - sentences: ["(set; the {thing}; now)"]
lists:
  thing:
    values: [lamp, fan]
`);
  for (const s of ['set the lamp now', 'now set the fan', 'the lamp now set', 'the fan set now']) t.same(hit(r, s)?.intent, 'Perm', s);
  t.equal(hit(r, 'set now'), null, 'every part is needed');
  t.same(hit(r, 'now the fan set'), { intent: 'Perm', thing: 'fan' });
});

t.test('list references, slot names and expansion rules (global, local, nested)', async (t) => {
  const r = engine(`
intents:
  SetColor:
    data:
      - sentences: ["<set> {name} to {color:target_color}"]
        expansion_rules:
          set: "(set|make) [the]"
      - sentences: ["<paint> {name}"]
  Other:
    data:
      - sentences: ["<set> it"]
lists:
  color:
    values: [red, {in: "(dark|deep) blue", out: navy}]
expansion_rules:
  set: "put"
  paint: "<colour> <set>"
  colour: "color"
`);
  t.same(hit(r, 'make the kitchen light to red', { lists }), { intent: 'SetColor', name: 'light.kitchen', target_color: 'red' }, 'local rule, slot name after the colon');
  t.same(hit(r, 'set kitchen light to deep blue', { lists }), { intent: 'SetColor', name: 'light.kitchen', target_color: 'navy' }, 'a template value');
  t.same(hit(r, 'color put garage door', { lists }), { intent: 'SetColor', name: 'cover.garage' }, 'nested global rules');
  t.same(hit(r, 'put it'), { intent: 'Other' }, 'the global rule outside the block');
  t.equal(hit(r, 'make it'), null, 'a local rule stays in its block');
  const res = r.recognize('SET the Kitchen Light to Dark Blue.', { lists })!;
  t.same(res.slots.target_color, { name: 'target_color', value: 'navy', text: 'Dark Blue', list: 'color' }, 'text as written');
  t.same(res.slots.name.context, { domain: 'light', area: 'kitchen' });
  t.equal(res.template, '<set> {name} to {color:target_color}');
});

t.test('punctuation and case are ignored; skip words are dropped', async (t) => {
  const r = engine(`
intents:
  Hello:
    data:
      - sentences: ["what's the time"]
skip_words: ["please", "can you"]
`);
  for (const s of ["What's the time?", "what's, the time!", 'please what’s the time', "can you please what's the time please"]) t.same(hit(r, s), { intent: 'Hello' }, s);
  t.equal(hit(r, 'can what the time'), null);
  t.equal(hit(r, 'you please'), null, 'a sentence of skip words only');
});

t.test('range lists: digits, number words, steps, percentages and multipliers', async (t) => {
  const r = engine(`
intents:
  Brightness:
    data:
      - sentences: ["brightness {pct}[%| percent]"]
  Temp:
    data:
      - sentences: ["set [the] temperature to {temp} [degrees]"]
  Step:
    data:
      - sentences: ["fan speed {speed}"]
lists:
  pct: {range: {type: percentage, from: 0, to: 100}}
  temp: {range: {type: temperature, from: -10, to: 30, fractions: halves}}
  speed: {range: {from: 0, to: 100, step: 25, multiplier: 0.01}}
`);
  t.same(hit(r, 'brightness 50%'), { intent: 'Brightness', pct: 50 });
  t.same(hit(r, 'brightness 50 percent'), { intent: 'Brightness', pct: 50 });
  t.same(hit(r, 'brightness twenty five percent'), { intent: 'Brightness', pct: 25 });
  t.same(hit(r, 'brightness a hundred'), { intent: 'Brightness', pct: 100 });
  t.equal(hit(r, 'brightness 101'), null, 'above the range');
  t.equal(hit(r, 'brightness 5.5'), null, 'no fractions by default');
  t.same(hit(r, 'set the temperature to 21.5 degrees'), { intent: 'Temp', temp: 21.5 });
  t.same(hit(r, 'set temperature to -5'), { intent: 'Temp', temp: -5 });
  t.same(hit(r, 'set temperature to minus five'), { intent: 'Temp', temp: -5 });
  t.same(hit(r, 'fan speed 75'), { intent: 'Step', speed: 0.75 }, 'multiplied');
  t.equal(hit(r, 'fan speed 70'), null, 'off the step');
  t.equal(r.recognize('brightness 50%')!.slots.pct.text, '50%');
});

t.test('wildcard lists take any words, trimmed', async (t) => {
  const r = engine(`
intents:
  Play:
    data:
      - sentences: ["play {album} by {artist}", "play {album}"]
lists:
  album: {wildcard: true}
  artist: {wildcard: true}
`);
  t.same(hit(r, 'play Abbey Road by The Beatles'), { intent: 'Play', album: 'Abbey Road', artist: 'The Beatles' });
  const res = r.recognize('play   something  loud  ')!;
  t.equal(res.slots.album.value, 'something  loud', 'inner text as said, ends trimmed');
  t.equal(res.template, 'play {album}');
  t.equal(hit(r, 'play'), null, 'a wildcard takes at least one word');
});

t.test('values lists: plain strings, in/out, context', async (t) => {
  const r = engine(`
intents:
  Speak:
    data:
      - sentences: ["speak on {speaker}"]
        requires_context: {area: kitchen}
      - sentences: ["speak on {speaker}"]
        response: elsewhere
lists:
  speaker:
    values:
      - "kitchen speaker"
      - in: "living room [speaker]"
        out: media_player.living_room
        context: {area: living_room}
      - in: "the radio"
        out: media_player.radio
        context: {area: kitchen}
`);
  const plain = r.recognize('speak on kitchen speaker')!;
  t.same([plain.slots.speaker.value, plain.response], ['kitchen speaker', 'elsewhere'], 'a plain value is its own out; no context so the second block');
  const radio = r.recognize('speak on the radio')!;
  t.same([radio.slots.speaker.value, radio.block, radio.context], ['media_player.radio', 0, { area: 'kitchen' }], 'the value context satisfies requires_context');
  t.equal(r.recognize('speak on living room')!.slots.speaker.value, 'media_player.living_room');
});

t.test('dynamic lists: names, areas and floors given at match time', async (t) => {
  const r = engine(`
intents:
  TurnOn:
    data:
      - sentences: ["turn on [the] {name} [in [the] {area}]", "turn on [the] {area} lights", "turn on [the] lights (upstairs|on [the] {floor})"]
`);
  t.same(hit(r, 'turn on the ceiling fan', { lists }), { intent: 'TurnOn', name: 'fan.ceiling' });
  t.same(hit(r, 'turn on kitchen light in the lounge', { lists }), { intent: 'TurnOn', name: 'light.kitchen', area: 'living_room' }, 'an alias');
  t.same(hit(r, 'turn on the living room lights', { lists }), { intent: 'TurnOn', area: 'living_room' });
  t.same(hit(r, 'turn on lights on the upstairs', { lists }), { intent: 'TurnOn', floor: 'first' });
  t.same(hit(r, 'turn on the kitchen', { lists }), { intent: 'TurnOn', name: 'switch.kitchen' }, 'the shorter name when the longer does not fit');
  t.equal(hit(r, 'turn on the attic', { lists }), null, 'an unknown name');
  t.equal(hit(r, 'turn on the ceiling fan'), null, 'no lists given');
  const prepared = { name: prepareList(names), area: prepareList(areas) };
  t.same(hit(r, 'turn on the garage door', { lists: prepared }), { intent: 'TurnOn', name: 'cover.garage' }, 'prepared lists');
  t.ok(r.dynamicLists.includes('name') && r.dynamicLists.includes('area') && r.dynamicLists.includes('floor'));
});

t.test('requires_context and excludes_context: value contexts and the match-time context', async (t) => {
  const r = engine(`
intents:
  LightOn:
    data:
      - sentences: ["turn on {name}"]
        requires_context: {domain: light}
        slots: {domain: light}
  CoverOpen:
    data:
      - sentences: ["turn on {name}"]
        requires_context: {domain: [cover, valve]}
  Generic:
    data:
      - sentences: ["turn on {name}"]
        excludes_context: {domain: [cover, fan]}
  Here:
    data:
      - sentences: ["lights here"]
        requires_context:
          area: {slot: true}
      - sentences: ["lights here"]
  NotInGarage:
    data:
      - sentences: ["quiet"]
        excludes_context: {area: garage}
`);
  t.same(hit(r, 'turn on kitchen light', { lists }), { intent: 'LightOn', name: 'light.kitchen', domain: 'light' }, 'fixed slot added');
  t.same(hit(r, 'turn on garage door', { lists }), { intent: 'CoverOpen', name: 'cover.garage' }, 'one of the allowed values');
  t.same(hit(r, 'turn on kitchen', { lists }), { intent: 'Generic', name: 'switch.kitchen' });
  t.equal(hit(r, 'turn on ceiling fan', { lists }), null, 'excluded everywhere');
  t.same(hit(r, 'lights here', { context: { area: 'kitchen' } }), { intent: 'Here', area: 'kitchen' }, 'the device area copied into a slot');
  t.equal(r.recognize('lights here')!.block, 1, 'without an area, the next block');
  t.equal(hit(r, 'quiet', { context: { area: 'garage' } }), null);
  t.same(hit(r, 'quiet', { context: { area: 'kitchen' } }), { intent: 'NotInGarage' });
  t.same(hit(r, 'quiet'), { intent: 'NotInGarage' }, 'no context: nothing excluded');
});

t.test('the first matching block in order; custom or built-in first as chosen', async (t) => {
  const builtin = parseSentenceYaml(
    `
intents:
  First:
    data:
      - sentences: ["hello [there]"]
  Second:
    data:
      - sentences: ["hello there"]
      - sentences: ["good (morning|day)"]
`,
    'builtin/en.yaml',
    'builtin',
  );
  const custom = parseSentenceYaml(
    `
intents:
  Second:
    data:
      - sentences: ["hello there"]
        response: mine
        metadata: {custom: true}
`,
    'en/mine.yaml',
  );
  const a = compileSentences([builtin, custom]);
  const ra = a.recognize('hello there')!;
  t.same([ra.intent, ra.source, ra.file, ra.response, ra.metadata], ['Second', 'custom', 'en/mine.yaml', 'mine', { custom: true }], 'custom first by default');
  const b = compileSentences([builtin, custom], { order: 'builtin-first' });
  const rb = b.recognize('hello there')!;
  t.same([rb.intent, rb.source, rb.file], ['First', 'builtin', 'builtin/en.yaml']);
  t.same(b.intents, ['First', 'Second']);
  t.same(
    b.recognizeAll('hello there').map((x) => [x.intent, x.block, x.source]),
    [
      ['First', 0, 'builtin'],
      ['Second', 0, 'builtin'],
      ['Second', 2, 'custom'],
    ],
    'every block, custom blocks added after the built-in ones of the intent',
  );
  t.equal(b.recognize('good day')!.block, 1);
  t.equal(b.templateCount, 4);
});

t.test('block lists, required keywords, wildcard order, values said as written', async (t) => {
  const r = engine(`
intents:
  Mode:
    data:
      - sentences: ["set mode {mode}"]
        lists:
          mode:
            values: [eco, {in: "(turbo|boost)", out: fast}]
        required_keywords: [mode]
      - sentences: ["set mode {mode}"]
  Play:
    data:
      - sentences: ["play {album}", "play {album} by {artist}"]
  Say:
    data:
      - sentences: ["say {phrase}"]
lists:
  mode:
    values: [quiet]
  album: {wildcard: true}
  artist: {wildcard: true}
  phrase:
    values: ["(hi|hello) [there]"]
`);
  t.same(hit(r, 'set mode boost'), { intent: 'Mode', mode: 'fast' }, 'the block list');
  t.same(hit(r, 'set mode quiet'), { intent: 'Mode', mode: 'quiet' }, 'the file list in the other block');
  t.equal(r.recognize('set mode quiet')!.block, 1);
  t.equal(r.recognize('set mode eco')!.block, 0);
  t.same(hit(r, 'play abbey road by the beatles'), { intent: 'Play', album: 'abbey road', artist: 'the beatles' }, 'the template with more text first');
  t.same(hit(r, 'say Hello there'), { intent: 'Say', phrase: 'Hello there' }, 'a template value without out gives the words said');
});

t.test('range fractions and digits', async (t) => {
  const r = engine(`
intents:
  Half:
    data:
      - sentences: ["half {h}"]
  Tenth:
    data:
      - sentences: ["tenth {t}"]
  Words:
    data:
      - sentences: ["words {w}"]
lists:
  h: {range: {from: 0, to: 10, fractions: halves}}
  t: {range: {from: 0, to: 10, fractions: tenths}}
  w: {range: {from: 0, to: 10, digits: false}}
`);
  t.same(hit(r, 'half 2.5'), { intent: 'Half', h: 2.5 });
  t.equal(hit(r, 'half 2.3'), null, 'halves only');
  t.same(hit(r, 'tenth 2.3'), { intent: 'Tenth', t: 2.3 });
  t.equal(hit(r, 'tenth 2.35'), null);
  t.same(hit(r, 'words seven'), { intent: 'Words', w: 7 });
  t.equal(hit(r, 'words 7'), null, 'no digits');
  t.throws(() => parseSentenceYaml('lists: {a: {range: {from: 0, to: 1, fractions: thirds}}}', 'en/x.yaml'), { name: 'SentenceFileError', key: 'lists.a.range.fractions' });
});

t.test('context rules with value and slot mappings, context values as {value, text}', async (t) => {
  const r = engine(`
intents:
  Here:
    data:
      - sentences: ["lights on"]
        requires_context:
          area:
            value: [kitchen, garage]
            slot: room
  Timer:
    data:
      - sentences: ["start a timer"]
        requires_context:
          device_id: {slot: true}
`);
  const res = r.recognize('lights on', { context: { area: { value: 'kitchen', text: 'Kitchen' } } })!;
  t.same(res.slots.room, { name: 'room', value: 'kitchen', text: 'Kitchen', list: null }, 'copied under another slot name, with its text');
  t.equal(r.recognize('lights on', { context: { area: 'attic' } }), null, 'a value outside the list');
  t.equal(r.recognize('start a timer'), null, 'no device');
  t.equal(r.recognize('start a timer', { context: { device_id: 'abc' } })!.slots.device_id.value, 'abc');
  const debug = r.recognize('start a timer', { allowUnmatched: true })!;
  t.same(debug.unmatchedSlots, { device_id: { name: 'device_id', text: '<missing>', list: null } }, 'a missing context key as the original shows it');
});

t.test('the word index never hides a template (same answers as trying every template)', async (t) => {
  const yaml = `
intents:
  A:
    data:
      - sentences: ["turn(ed|ing) [the] {name} (on|off)", "light[s] (on|up) [in [the] {area}]", "(open; the {name}; now)"]
      - sentences: ["{name} [please] on", "[the] {area} lights (on|off)", "set {name} to {n}[%| percent]"]
  B:
    data:
      - sentences: ["what['s| is] the (time|date)", "make it (warm|cold)er", "good(night| night| morning)"]
      - sentences: ["<greet> there", "{name}", "play {w} (by|from) {w2}"]
lists:
  n: {range: {from: 0, to: 100}}
  w: {wildcard: true}
  w2: {wildcard: true}
expansion_rules:
  greet: "(hi|hello)[ ]"
`;
  const files = [parseSentenceYaml(yaml, 'en/idx.yaml')];
  const indexed = compileSentences(files);
  const plain = compileSentences(files, { index: false });
  const sentences = [
    'turned the kitchen light on', 'turning kitchen off', 'turn kitchen on', 'lights on', 'light up in the kitchen', 'lights up in lounge',
    'open the garage door now', 'now open the ceiling fan', 'the kitchen light open now', 'kitchen light please on', 'kitchen on',
    'the living room lights off', 'kitchen lights on', 'set kitchen light to 40%', 'set kitchen to 40 percent', "what's the time",
    'what is the date', 'whats the time', 'make it warmer', 'make it colder', 'goodnight', 'good night', 'good morning', 'hi there',
    'hello there', 'kitchen light', 'ceiling fan', 'play a song by someone', 'play x from y from z', 'turn on', 'nothing at all', 'lights',
  ];
  let matched = 0;
  for (const s of sentences) {
    const a = indexed.recognizeAll(s, { lists });
    const b = plain.recognizeAll(s, { lists });
    t.same(a, b, s);
    if (a.length) matched++;
  }
  t.ok(matched >= 25, `most sentences match something (${matched})`);
});

t.test('unmatched slots for debugging', async (t) => {
  const r = engine(`
intents:
  TurnOn:
    data:
      - sentences: ["turn on [the] {name} in [the] {area}", "turn on [the] {name}"]
`);
  t.equal(r.recognize('turn on the attic fan', { lists }), null, 'no strict match');
  const res = r.recognize('turn on the attic fan', { lists, allowUnmatched: true })!;
  t.same([res.intent, res.slots, res.unmatchedSlots], ['TurnOn', {}, { name: { name: 'name', text: 'attic fan', list: 'name' } }]);
  const one = r.recognize('turn on kitchen light in the attic', { lists, allowUnmatched: true })!;
  t.same(Object.keys(one.slots), ['name']);
  t.same(one.unmatchedSlots, { area: { name: 'area', text: 'attic', list: 'area' } }, 'the matched name kept, the area unmatched');
});

t.test('unknown words run to the words after them; the match with the most template words said is kept', async (t) => {
  const r = engine(`
intents:
  TurnOn:
    data:
      - sentences: ["turn on [the] {name} [<where>]"]
      - sentences: ["turn on [the] {name} [scene]"]
        requires_context:
          domain: scene
      - sentences: ["turn on [the] lights <where>"]
        slots:
          domain: light
          name: all
  SetLevel:
    data:
      - sentences: ["set [the] {name} [level] [<where>] to {pct}[%]"]
  IsIt:
    data:
      - sentences: ["is [the] {name} {state}"]
lists:
  pct:
    range: {type: percentage, from: 0, to: 100}
  state:
    values: ["on", "off"]
expansion_rules:
  where: "(in [the] {area} | on [the] {floor} | [the] {floor})"
`);
  const unknown = (text: string) => {
    const res = r.recognize(text, { lists, allowUnmatched: true });
    if (!res) return null;
    const said = (slots: Record<string, { text: string }>) => Object.fromEntries(Object.entries(slots).map(([k, v]) => [k, v.text]));
    return { intent: res.intent, slots: said(res.slots), unmatched: said(res.unmatchedSlots) };
  };
  t.same(unknown('turn on the disco ball'), { intent: 'TurnOn', slots: {}, unmatched: { name: 'disco ball' } }, 'the whole name, not "disco" and a floor "ball"');
  t.same(unknown('turn on the disco ball in the kitchen'), { intent: 'TurnOn', slots: { area: 'kitchen' }, unmatched: { name: 'disco ball' } }, 'the name ends where "in" is said');
  t.same(unknown('turn on the lights in the attic'), { intent: 'TurnOn', slots: { domain: '', name: '' }, unmatched: { area: 'attic' } }, 'more template words said: the lights of an unknown area');
  t.same(hit(r, 'set the garage door level to 50%', { lists }), { intent: 'SetLevel', name: 'cover.garage', pct: 50 }, 'the template word after a name is no floor');
  t.same(unknown('set the garage door levels to 50%'), { intent: 'SetLevel', slots: { name: 'garage door', pct: '50' }, unmatched: { floor: 'levels' } }, 'after a name said, words no template has are the next slot\'s');
  t.same(unknown('set the garage door to 150%'), { intent: 'SetLevel', slots: { name: 'garage door' }, unmatched: { pct: '150' } }, 'a number out of range is an unmatched number');
  t.same(unknown('is the toaster on'), { intent: 'IsIt', slots: { state: 'on' }, unmatched: { name: 'toaster' } }, 'unknown words end where a value of the next list is said');
  t.equal(unknown('switch off the disco ball'), null, 'no template fits the words around: no match');
});
