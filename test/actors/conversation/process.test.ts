// Everyday English through POST /api/conversation/process and the WebSocket's
// conversation/process: the intent response a client sees, and the states after.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';
import { HOME_CONFIG, furnish } from './home.ts';

const entity = (id: string, name: string) => ({ name, type: 'entity', id });

t.test('commands and questions over REST', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const rest = api(base, tokens.access_token);
  const say = async (text: string, extra: Record<string, unknown> = {}) => {
    const r = await rest('POST', '/api/conversation/process', { text, ...extra });
    t.equal(r.status, 200, `${text}: 200`);
    return r.json;
  };
  const stateOf = async (id: string) => (await rest('GET', `/api/states/${id}`)).json.state;

  // by name, with the whole answer as the original's ConversationResult
  const on = await say('Turn on the kitchen light');
  t.same(Object.keys(on), ['response', 'conversation_id', 'continue_conversation'], 'the result keys');
  t.match(on.conversation_id, /^[0-9A-HJKMNP-TV-Z]{26}$/, 'a new ULID conversation id');
  t.equal(on.continue_conversation, false);
  t.same(on.response, {
    speech: { plain: { speech: 'Turned on kitchen light', extra_data: null } },
    card: {},
    language: 'en',
    response_type: 'action_done',
    data: { targets: [], success: [entity('light.kitchen_light', 'Kitchen light')], failed: [] },
  });
  t.equal(await stateOf('light.kitchen_light'), 'on', 'the light is on');

  // an alias, and words in another order
  t.equal((await say('switch the stove light off')).response.speech.plain.speech, 'Turned off stove light');
  t.equal(await stateOf('light.kitchen_light'), 'off', 'the alias reached the kitchen light');

  // by area: the area first, then each light
  const area = await say('turn on the lights in the kitchen');
  t.equal(area.response.speech.plain.speech, 'The lights are on');
  t.same(area.response.data.success, [{ name: 'Kitchen', type: 'area', id: 'kitchen' }, entity('light.kitchen_light', 'Kitchen light'), entity('light.ceiling', 'Ceiling')]);
  t.same([await stateOf('light.kitchen_light'), await stateOf('light.ceiling'), await stateOf('light.reading_lamp')], ['on', 'on', 'off'], 'only the kitchen');

  // by floor, through its alias and without "on the"
  const floor = await say('turn off the lights downstairs');
  t.same(floor.response.data.success[0], { name: 'Ground floor', type: 'floor', id: 'ground_floor' }, 'the floor is the first target');
  t.same([await stateOf('light.kitchen_light'), await stateOf('light.ceiling')], ['off', 'off']);
  await say('turn on the lights upstairs');
  t.equal(await stateOf('light.bedside'), 'on', 'upstairs');
  t.equal(await stateOf('light.reading_lamp'), 'off', 'not downstairs');

  // terse
  await say('lights off upstairs');
  t.equal(await stateOf('light.bedside'), 'off', '"lights off upstairs"');
  await say('lights on in the bedroom');
  t.equal(await stateOf('light.bedside'), 'on', '"lights on in the bedroom"');

  // an area's alias
  await say('turn on the lounge lights');
  t.equal(await stateOf('light.reading_lamp'), 'on', 'the lounge is the living room');

  // domain words: fans, switches
  t.equal((await say('turn on the fans')).response.speech.plain.speech, 'The fans are on');
  t.equal(await stateOf('fan.ceiling_fan'), 'on');
  await say('turn on the kettle');
  t.equal(await stateOf('switch.kettle'), 'on');
  t.equal((await say('toggle the kettle')).response.speech.plain.speech, 'Toggled kettle');
  t.equal(await stateOf('switch.kettle'), 'off');

  // covers: open and close by name, by device class; positions; stop
  t.equal((await say('open the garage door')).response.speech.plain.speech, 'Opening');
  t.equal(await stateOf('cover.garage_door'), 'open');
  await say('close the garage');
  t.equal(await stateOf('cover.garage_door'), 'closed', 'the garage device class');
  const position = await say('set the blinds to 50%');
  t.equal(position.response.speech.plain.speech, 'Position set');
  t.same(position.response.data.success, [entity('cover.living_room_blinds', 'Living room blinds')], 'blinds: the blind device class only');
  t.equal((await rest('GET', '/api/states/cover.living_room_blinds')).json.attributes.current_position, 50);
  t.equal((await say('stop the blinds')).response.speech.plain.speech, 'Stopped');

  // locks
  t.equal((await say('unlock the front door')).response.speech.plain.speech, 'Unlocked');
  t.equal(await stateOf('lock.front_door'), 'unlocked');
  t.equal((await say('is the front door locked')).response.speech.plain.speech, 'No, Front door is unlocked');
  await say('lock the front door');
  t.equal(await stateOf('lock.front_door'), 'locked');

  // questions
  const yes = await say('is the reading lamp on?');
  t.equal(yes.response.response_type, 'query_answer');
  t.equal(yes.response.speech.plain.speech, 'Yes');
  t.equal((await say('which lights are on')).response.speech.plain.speech, 'Bedside, Reading lamp');
  t.equal((await say('how many lights are on in the kitchen')).response.speech.plain.speech, '0');
  t.equal((await say('how many lights are on')).response.speech.plain.speech, '2');
  t.equal((await say('are all the lights on upstairs')).response.speech.plain.speech, 'Yes');
  t.equal((await say('are all the lights on in the kitchen')).response.speech.plain.speech, 'No, Ceiling, Kitchen light are not on');
  t.equal((await say('is there any light on in the living room')).response.speech.plain.speech, 'Yes, Reading lamp');
  t.equal((await say("what's the state of the kitchen temperature")).response.speech.plain.speech, 'Kitchen temperature is 21.5 °C');

  // temperatures: the area's sensor, else the thermostat
  const kitchen = await say("what's the temperature in the kitchen");
  t.equal(kitchen.response.response_type, 'query_answer');
  t.equal(kitchen.response.speech.plain.speech, 'It is 21.5 degrees');
  t.equal((await say('what is the temperature')).response.speech.plain.speech, 'It is 19.5 degrees', 'the thermostat');

  // date and time, from the handler's speech slots
  const time = await say('what time is it');
  t.match(time.response.speech.plain.speech, /^It is ([1-9]|1[0-2]):[0-5]\d (AM|PM)$/);
  t.match(time.response.speech_slots, { time: /^\d\d:\d\d/ });
  t.match((await say("what's the date today")).response.speech.plain.speech, /^Today is [A-Z][a-z]+ \d{1,2}, \d{4}$/);

  // small talk
  t.same((await say('never mind')).response.speech, {}, 'nevermind says nothing');
  t.equal((await say('thank you')).response.speech.plain.speech, "You're welcome");

  // what is not understood, and what is not there
  const nonsense = await say('fly me to the moon');
  t.same(nonsense.response, { speech: { plain: { speech: "Sorry, I couldn't understand that", extra_data: null } }, card: {}, language: 'en', response_type: 'error', data: { code: 'no_intent_match' } });
  const attic = await say('turn on the lights in the attic');
  t.same([attic.response.response_type, attic.response.data, attic.response.speech.plain.speech], ['error', { code: 'no_valid_targets' }, 'Sorry, I am not aware of any area called attic']);
  t.equal((await say('turn on the toaster')).response.speech.plain.speech, 'Sorry, I am not aware of any device called toaster');
  t.equal((await say('turn on the toaster in the kitchen')).response.speech.plain.speech, 'Sorry, I am not aware of any device called toaster in the kitchen area');
  const fans = await say('turn on the fans in the kitchen');
  t.same([fans.response.data, fans.response.speech.plain.speech], [{ code: 'no_valid_targets' }, 'Sorry, I am not aware of any fan in the Kitchen area'], 'a domain with nothing in the area');

  // said to a satellite in a room: "the lights" and "the temperature" are that room's
  const satellite = await hearth.registries.ensureDevice({ identifiers: [['virtual', 'satellite']], name: 'Kitchen satellite' });
  await hearth.registries.updateDevice(satellite.id, { area_id: 'kitchen' });
  await say('turn off the lights in the house');
  const here = await say('turn on the lights', { device_id: satellite.id });
  t.same(here.response.data.success.map((x: { id: string }) => x.id), ['kitchen', 'light.kitchen_light', 'light.ceiling'], "the satellite's area");
  t.same([await stateOf('light.kitchen_light'), await stateOf('light.bedside')], ['on', 'off'], 'only there');
  t.equal((await say("what's the temperature", { device_id: satellite.id })).response.speech.plain.speech, 'It is 21.5 degrees', "the satellite's area sensor");
  await say('turn on the lights');
  t.equal(await stateOf('light.bedside'), 'on', 'without a satellite, every light');

  // two devices called the same: an error, unless the satellite's room tells them apart
  await hearth.registries.updateEntity('fan.ceiling_fan', { aliases: ['ceiling'] });
  const twice = await say('turn off the ceiling');
  t.same([twice.response.data, twice.response.speech.plain.speech], [{ code: 'no_valid_targets' }, 'Sorry, there are multiple devices called Ceiling']);
  const preferred = await say('turn off the ceiling', { device_id: satellite.id });
  t.same(preferred.response.data.success, [entity('light.ceiling', 'Ceiling')], "the one in the satellite's room");

  t.equal((await say('broadcast dinner is ready')).response.speech.plain.speech, 'Broadcasting');
  t.equal((await say('hello')).response.speech.plain.speech, 'Hello');
  t.equal((await say('is the garage door open')).response.speech.plain.speech, 'No, Garage door is closed');

  // the configured language answers; language given is echoed
  t.equal((await say('turn off the kettle', { language: 'en' })).response.language, 'en');
});

t.test('the REST body is checked; unknown agents are refused', async (t) => {
  const { base } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const bad = async (body: unknown) => {
    const r = await rest('POST', '/api/conversation/process', body);
    t.equal(r.status, 400, JSON.stringify(body));
    return r.json;
  };
  t.same(await bad('{not json'), { message: 'Invalid JSON.' });
  t.same(await bad({}), { message: "Message format incorrect: required key not provided @ data['text']" });
  t.same(await bad({ text: 5 }), { message: "Message format incorrect: expected str for dictionary value @ data['text']" });
  t.same(await bad({ text: 'hi', agent_id: 'conversation.nobody' }), { message: "Message format incorrect: invalid agent ID for dictionary value @ data['agent_id']" });
  t.same(await bad({ text: 'hi', colour: 'red' }), { message: "Message format incorrect: extra keys not allowed @ data['colour']" });
  for (const agent_id of ['conversation.core', 'core']) {
    const r = await rest('POST', '/api/conversation/process', { text: 'thanks', agent_id });
    t.equal(r.json.response.speech.plain.speech, "You're welcome", `${agent_id} is the default agent`);
  }
  const anonymous = await fetch(`${base}/api/conversation/process`, { method: 'POST', body: JSON.stringify({ text: 'thanks' }) });
  t.equal(anonymous.status, 401, 'a bearer token is needed');
  // one word a megabyte long (found by the REST fuzz): understood as nothing, not a crash
  const long = await rest('POST', '/api/conversation/process', { text: 'a'.repeat(1 << 20) });
  t.equal(long.status, 200);
  t.equal(long.json.response.response_type, 'error');
});

t.test('the same over the WebSocket, and the conversation.process service', async (t) => {
  const { base, hearth } = await startTestHearth(t, { config: HOME_CONFIG });
  const tokens = await onboard(base);
  await furnish(base, tokens.access_token, hearth);
  const c = await authedClient(base, tokens.access_token);
  const { ask } = sorting(c);
  const rest = api(base, tokens.access_token);

  const a = await ask({ type: 'conversation/process', text: 'turn on the bedside' });
  t.equal(a.success, true);
  t.same(a.result.response.data.success, [entity('light.bedside', 'Bedside')]);
  t.equal(a.result.continue_conversation, false);
  t.equal((await rest('GET', '/api/states/light.bedside')).json.state, 'on');

  const q = await ask({ type: 'conversation/process', text: 'is the bedside on', conversation_id: a.result.conversation_id, language: 'en', device_id: null });
  t.equal(q.result.response.speech.plain.speech, 'Yes');
  t.equal(q.result.conversation_id, a.result.conversation_id, 'the same conversation goes on');

  const unknown = await ask({ type: 'conversation/process', text: 'hi', agent_id: 'conversation.nobody' });
  t.same(unknown.error, { code: 'invalid_format', message: "invalid agent ID for dictionary value @ data['agent_id']" });
  const noText = await ask({ type: 'conversation/process' });
  t.equal(noText.error.code, 'invalid_format', 'text is required');

  // the service answers the same dict when asked for its response
  const svc = await ask({ type: 'call_service', domain: 'conversation', service: 'process', service_data: { text: 'turn off the bedside' }, return_response: true });
  t.equal(svc.success, true, JSON.stringify(svc.error ?? ''));
  t.same(Object.keys(svc.result.response), ['response', 'conversation_id', 'continue_conversation']);
  t.equal(svc.result.response.response.speech.plain.speech, 'Turned off bedside');
  t.equal((await rest('GET', '/api/states/light.bedside')).json.state, 'off');
  const viaRest = await rest('POST', '/api/services/conversation/process?return_response', { text: 'how many lights are on' });
  t.equal(viaRest.status, 200);
  t.equal(viaRest.json.service_response.response.speech.plain.speech, '0');
  const badAgent = await ask({ type: 'call_service', domain: 'conversation', service: 'process', service_data: { text: 'hi', agent_id: 'x' }, return_response: true });
  t.equal(badAgent.success, false, 'an unknown agent fails the call');
  c.ws.close();
});
