// The default agent's commands: agents, prepare, custom sentences read again without a restart,
// debug, language scores, sentences.
import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting, userToken } from '../../helpers/ws-sorting.ts';
import { HOME_CONFIG, furnish } from './home.ts';

const MINE = `
language: en
intents:
  CoreTurnOn:
    data:
      - sentences:
          - "make [it] cosy [in here]"
        slots:
          name: Reading lamp
        response: cosy
  CoreGetState:
    data:
      - sentences:
          - "is anything brewing"
        slots:
          name: Kettle
          state: "on"
        response: one_yesno
  OrderPizza:
    data:
      - sentences:
          - "order [a] {topping} pizza"
lists:
  topping:
    wildcard: true
responses:
  intents:
    CoreTurnOn:
      cosy: "Cosy it is, {{ slots.name }} is on"
      default: "Done: {{ slots.name }} is on"
`;

t.test('custom sentences take effect on conversation/prepare and conversation.reload, without a restart', async (t) => {
  const { base, hearth, dataDir, lines } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  const rest = api(base, tokens.access_token);
  const say = async (text: string) => (await ask({ type: 'conversation/process', text })).result.response;

  t.equal((await say('make it cosy')).data.code, 'no_intent_match', 'not known before the file exists');
  const dir = join(dataDir, 'custom_sentences', 'en');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'mine.yaml'), MINE);
  t.equal((await say('make it cosy')).data.code, 'no_intent_match', 'not read until asked to');

  t.match(await ask({ type: 'conversation/prepare' }), { type: 'result', success: true, result: null }, 'prepare answers null');
  const cosy = await say('make it cosy in here');
  t.equal(cosy.speech.plain.speech, 'Cosy it is, Reading lamp is on', "a custom response, with the fixed slot's value");
  t.equal((await rest('GET', '/api/states/light.reading_lamp')).json.state, 'on', 'a custom sentence drives a built-in intent with fixed slots');
  t.equal((await say('turn on the bedside')).speech.plain.speech, 'Done: bedside is on', "a custom file's response overrides a built-in key");
  t.equal((await say('is anything brewing')).speech.plain.speech, 'No, Kettle is off', 'fixed name and state on a query');
  const pizza = await say('order a pepperoni pizza');
  t.same([pizza.response_type, pizza.data], ['error', { code: 'failed_to_handle' }], 'an intent nobody handles');
  t.equal(pizza.speech.plain.speech, 'Unknown intent OrderPizza');

  // the debug command tells where a match came from
  const debug = await ask({ type: 'conversation/agent/core/debug', sentences: ['make it cosy', 'turn on the kitchen light', 'order a cheese pizza', 'sing me a song'] });
  t.equal(debug.success, true);
  const [mine, builtin, wild, none] = debug.result.results;
  t.same(mine, {
    intent: { name: 'CoreTurnOn' },
    slots: { name: 'Reading lamp' },
    details: { name: { name: 'name', value: 'Reading lamp', text: '' } },
    targets: { 'light.reading_lamp': { matched: true } },
    match: true,
    sentence_template: 'make [it] cosy [in here]',
    unmatched_slots: {},
    source: 'custom',
    file: 'en/mine.yaml',
  });
  t.same([builtin.intent, builtin.source, builtin.file, builtin.slots, builtin.targets], [{ name: 'CoreTurnOn' }, 'builtin', undefined, { name: 'Kitchen light' }, { 'light.kitchen_light': { matched: true } }]);
  t.same(wild.slots, { topping: 'cheese' }, 'a wildcard slot');
  t.equal(none, null, 'no match is null');

  // a changed file, read again by the service
  await writeFile(join(dir, 'mine.yaml'), MINE.replace('make [it] cosy [in here]', 'lights for reading'));
  await ask({ type: 'call_service', domain: 'conversation', service: 'reload', service_data: {} });
  t.equal((await say('make it cosy')).data.code, 'no_intent_match', 'the old sentence is gone');
  t.equal((await say('lights for reading')).speech.plain.speech, 'Cosy it is, Reading lamp is on', 'the new one works');

  // a broken file is left out, with a line naming it; the others still work
  await writeFile(join(dir, 'broken.yaml'), 'intents: [this is: not valid');
  await ask({ type: 'conversation/prepare', agent_id: 'conversation.core' });
  t.ok(lines.some((l) => l.includes('custom_sentences/en/broken.yaml')), 'the broken file is named in the log');
  t.equal((await say('lights for reading')).response_type, 'action_done');

  t.same((await ask({ type: 'conversation/prepare', agent_id: 'conversation.nobody' })).error, { code: 'not_found', message: 'Agent not found' });
  c.ws.close();
});

t.test('agents, languages and sentences', async (t) => {
  const { base, dataDir } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  await mkdir(join(dataDir, 'custom_sentences', 'nl'), { recursive: true });
  await writeFile(join(dataDir, 'custom_sentences', 'nl', 'hallo.yaml'), 'language: nl\nintents:\n  CoreNevermind:\n    data:\n      - sentences: ["laat maar"]\n');
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  await ask({ type: 'conversation/prepare' });

  t.same((await ask({ type: 'conversation/agent/list' })).result, { agents: [{ id: 'conversation.core', name: 'Hearth', supported_languages: ['en', 'nl'] }] });
  t.same((await ask({ type: 'conversation/agent/list', language: 'en-GB' })).result.agents[0].supported_languages, ['en'], 'filtered to the language');
  t.same((await ask({ type: 'conversation/agent/list', language: 'de', country: 'DE' })).result.agents[0].supported_languages, [], 'a language nobody speaks');

  t.same((await ask({ type: 'conversation/agent/core/language_scores', language: 'en', country: 'US' })).result, {
    languages: { en: { cloud: 0, focused_local: 3, full_local: 3 }, nl: { cloud: 0, focused_local: 1, full_local: 1 } },
    preferred_language: 'en',
  });
  t.same((await ask({ type: 'conversation/sentences/list' })).result, { trigger_sentences: [] });

  const nl = await ask({ type: 'conversation/process', text: 'laat maar', language: 'nl' });
  t.same([nl.result.response.language, nl.result.response.response_type], ['nl', 'action_done'], 'a language with custom sentences only');
  const en = await ask({ type: 'conversation/process', text: 'laat maar', language: 'en' });
  t.equal(en.result.response.data.code, 'no_intent_match');

  // chat-log subscriptions are for admins, as in the original
  const user = await authedClient(base, await userToken(base, tokens.access_token));
  const { ask: userAsk } = sorting(user);
  t.equal((await userAsk({ type: 'conversation/chat_log/subscribe_index' })).error.code, 'unauthorized');
  t.equal((await userAsk({ type: 'conversation/process', text: 'never mind' })).success, true, 'but anyone may talk');
  user.ws.close();
  c.ws.close();
});

t.test("configuration.yaml's conversation: intents:", async (t) => {
  const config = (sentence: string) => `${HOME_CONFIG}\nconversation:\n  intents:\n    CoreTurnOn:\n      - "${sentence}"\n`;
  const { base, hearth, dataDir } = await startTestHearth(t, { config: config('wake up [the] {name}') });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const rest = api(base, tokens.access_token);
  const say = async (text: string) => (await rest('POST', '/api/conversation/process', { text })).json.response;

  t.equal((await say('wake up the kettle')).response_type, 'action_done');
  t.equal((await rest('GET', '/api/states/switch.kettle')).json.state, 'on', 'a sentence of the configuration');
  await writeFile(join(dataDir, 'configuration.yaml'), config('rise and shine {name}'));
  await rest('POST', '/api/services/conversation/reload', {});
  t.equal((await say('wake up the kettle')).data.code, 'no_intent_match', 'read again on reload');
  t.equal((await say('rise and shine bedside')).response_type, 'action_done');
  t.equal((await rest('GET', '/api/states/light.bedside')).json.state, 'on');
});

t.test('the names follow the home: renames, aliases and new areas count at once', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const rest = api(base, tokens.access_token);
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  const say = async (text: string) => (await rest('POST', '/api/conversation/process', { text })).json.response;

  t.equal((await say('turn on the bedside')).response_type, 'action_done');
  await ask({ type: 'config/entity_registry/update', entity_id: 'light.bedside', name: 'Night light' });
  t.equal((await say('turn off the night light')).response_type, 'action_done', 'the new name');
  t.equal((await rest('GET', '/api/states/light.bedside')).json.state, 'off');
  await ask({ type: 'config/entity_registry/update', entity_id: 'light.bedside', aliases: ['moon'] });
  t.equal((await say('turn on the moon')).response_type, 'action_done', 'a new alias');
  t.equal((await say('turn on the lights in the garden')).speech.plain.speech, 'Sorry, I am not aware of any area called garden');
  await ask({ type: 'config/area_registry/create', name: 'Garden' });
  const garden = await say('turn on the lights in the garden');
  t.same([garden.data, garden.speech.plain.speech], [{ code: 'no_valid_targets' }, 'Sorry, I am not aware of any light in the Garden area'], 'a new area, with no lights yet');
  c.ws.close();
});

t.test('debug: words nobody has are unmatched slots, not a match', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  const [attic, which] = (await ask({ type: 'conversation/agent/core/debug', sentences: ['turn on the lights in the attic', 'which lights are on in the kitchen'] })).result.results;
  t.match(attic, { intent: { name: 'CoreTurnOn' }, match: false, source: 'builtin' });
  t.same(Object.values(attic.unmatched_slots), [attic.unmatched_slots.name ?? attic.unmatched_slots.area], 'one unmatched slot');
  t.same([which.match, which.slots, which.targets], [true, { domain: 'light', state: 'on', area: 'Kitchen' }, { 'light.kitchen_light': { matched: false }, 'light.ceiling': { matched: false } }], 'targets not in the asked state are listed unmatched');
  c.ws.close();
});

t.test('after a restart: custom sentences read at start, aliases and areas known, old conversations ended', async (t) => {
  const first = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(first.base);
  await furnish(first.base, tokens.access_token, first.hearth);
  await mkdir(join(first.dataDir, 'custom_sentences', 'en'), { recursive: true });
  await writeFile(join(first.dataDir, 'custom_sentences', 'en', 'mine.yaml'), MINE);
  const before = (await api(first.base, tokens.access_token)('POST', '/api/conversation/process', { text: 'turn on the stove light' })).json;
  await first.hearth.stop();

  const again = await startTestHearth(t, { dataDir: first.dataDir });
  const rest = api(again.base, tokens.access_token);
  const say = async (text: string, extra: Record<string, unknown> = {}) => (await rest('POST', '/api/conversation/process', { text, ...extra })).json;
  t.equal((await say('make it cosy')).response.speech.plain.speech, 'Cosy it is, Reading lamp is on', 'the custom file, read at start');
  t.equal((await say('turn off the lights in the lounge')).response.response_type, 'action_done', 'the area alias');
  t.equal((await rest('GET', '/api/states/light.reading_lamp')).json.state, 'off');
  t.equal((await rest('GET', '/api/states/light.kitchen_light')).json.state, 'on', 'the state the first run left');
  const after = await say('is the stove light on', { conversation_id: before.conversation_id });
  t.equal(after.response.speech.plain.speech, 'Yes');
  t.not(after.conversation_id, before.conversation_id, 'a conversation of the last run is not continued');
});

t.test('the conversation and intent integrations are loaded components', async (t) => {
  const { base } = await startTestHearth(t, { config: '' });
  const tokens = await onboard(base);
  const components = (await api(base, tokens.access_token)('GET', '/api/components')).json;
  t.ok(components.includes('conversation') && components.includes('intent'), JSON.stringify(components));
});
