// Sentences that used to misfire, and the intents of the light, climate and media_player
// domains, through POST /api/conversation/process and the WebSocket's conversation/process: the
// answer a client sees, and the states the service calls left.
import t, { type Test } from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';

const CONFIG = `
light:
  - { platform: virtual, name: Kitchen light, unique_id: kitchen_light }
  - { platform: virtual, name: Ceiling, unique_id: kitchen_ceiling }
  - { platform: virtual, name: Hall light, unique_id: hall_light, supported_color_modes: [hs] }
  - { platform: virtual, name: Party light, unique_id: party_light }
cover:
  - { platform: virtual, name: Garage door, unique_id: garage, device_class: garage, travel_seconds: 0 }
climate:
  - { platform: virtual, name: Thermostat, unique_id: thermostat, hvac_modes: ['off', heat], initial: heat, current_temperature: 19.5 }
media_player:
  - { platform: virtual, name: TV, unique_id: tv, device_class: tv, initial: playing, volume_level: 0.5 }
`;

type Say = (text: string) => Promise<{ speech: string; response_type: string; data: Record<string, unknown> }>;

/** A home with a kitchen (two lights) and a living room (the thermostat and the TV), and a way to talk to it. */
async function home(t: Test, over: 'rest' | 'websocket') {
  const { base } = await startTestHearth(t, { config: CONFIG });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const c = await authedClient(base, tokens.access_token);
  t.teardown(() => c.ws.close());
  const { ask } = sorting(c);
  const must = async (msg: Record<string, unknown>) => {
    const a = await ask(msg);
    if (!a.success) throw new Error(`${JSON.stringify(msg)}: ${JSON.stringify(a.error)}`);
    return a.result;
  };
  await must({ type: 'config/area_registry/create', name: 'Kitchen' });
  await must({ type: 'config/area_registry/create', name: 'Living room' });
  for (const [entity_id, area_id] of [['light.kitchen_light', 'kitchen'], ['light.ceiling', 'kitchen'], ['climate.thermostat', 'living_room'], ['media_player.tv', 'living_room']]) {
    await must({ type: 'config/entity_registry/update', entity_id, area_id });
  }
  const say: Say = async (text) => {
    if (over === 'rest') {
      const r = await rest('POST', '/api/conversation/process', { text });
      t.equal(r.status, 200, `${text}: 200`);
      return { ...r.json.response, speech: r.json.response.speech.plain?.speech };
    }
    const result = await must({ type: 'conversation/process', text });
    return { ...result.response, speech: result.response.speech.plain?.speech };
  };
  const state = async (id: string) => (await rest('GET', `/api/states/${id}`)).json;
  return { say, state, must };
}

async function misfires(t: Test, over: 'rest' | 'websocket') {
  const { say, state, must } = await home(t, over);
  const position = await say('set the garage door position to 50%');
  t.same([position.response_type, position.speech], ['action_done', 'Position set'], '"position" is a word of the sentence, not a floor');
  t.equal((await state('cover.garage_door')).attributes.current_position, 50, 'cover.set_cover_position');

  const unknown = await say('turn on the disco ball');
  t.same([unknown.data, unknown.speech], [{ code: 'no_valid_targets' }, 'Sorry, I am not aware of any device called disco ball'], 'the whole name is unknown');
  t.equal((await say('turn on the disco ball in the kitchen')).speech, 'Sorry, I am not aware of any device called disco ball in the kitchen area');
  await must({ type: 'config/entity_registry/update', entity_id: 'light.party_light', name: 'Disco Ball' });
  t.equal((await say('turn on the disco ball')).speech, 'Turned on disco ball', 'a light of that name now');
  t.equal((await state('light.party_light')).state, 'on');
}

async function newIntents(t: Test, over: 'rest' | 'websocket') {
  const { say, state } = await home(t, over);
  const speech = async (text: string) => (await say(text)).speech;

  // lights: brightness of an area's lights, colour of one light
  const kitchen = await say('set the kitchen lights to 50%');
  t.equal(kitchen.speech, 'Brightness set');
  t.same(
    (kitchen.data.success as { id: string }[]).map((s) => s.id),
    ['kitchen', 'light.kitchen_light', 'light.ceiling'],
    'the area, then its lights',
  );
  for (const id of ['light.kitchen_light', 'light.ceiling']) t.match((await state(id)) as object, { state: 'on', attributes: { brightness: 128 } }, `${id} at 50% (brightness_pct)`);
  t.equal((await state('light.hall_light')).state, 'off', 'not the hall');
  t.equal(await speech('set the hall light to red'), 'Color set');
  t.match(await state('light.hall_light'), { state: 'on', attributes: { color_mode: 'hs', rgb_color: [255, 0, 0] } }, 'the colour by name');
  t.equal(await speech('dim the kitchen light to 20 percent'), 'Brightness set');
  t.equal((await state('light.kitchen_light')).attributes.brightness, 51);

  // the thermostat: the only one, one in an area, one by name
  t.equal(await speech('set the temperature to 21 degrees'), 'Temperature set');
  t.equal((await state('climate.thermostat')).attributes.temperature, 21, 'climate.set_temperature');
  await say('set the temperature in the living room to 20.5 degrees');
  t.equal((await state('climate.thermostat')).attributes.temperature, 20.5, 'by area, with a half degree');
  await say('set the thermostat to 22');
  t.equal((await state('climate.thermostat')).attributes.temperature, 22, 'by name');

  // the TV: pause, resume, next and previous track, volume
  t.equal(await speech('pause the tv'), 'Paused');
  t.equal((await state('media_player.tv')).state, 'paused', 'media_player.media_pause');
  t.equal(await speech('pause the tv'), 'Sorry, no device is playing', 'only a playing player pauses');
  t.equal(await speech('resume the tv'), 'Resumed');
  t.equal((await state('media_player.tv')).state, 'playing', 'media_player.media_play');
  t.equal(await speech('next track on the tv'), 'Playing next');
  t.equal((await state('media_player.tv')).attributes.media_track, 2, 'media_player.media_next_track');
  t.equal(await speech('previous track on the tv'), 'Playing previous');
  t.equal((await state('media_player.tv')).attributes.media_track, 1, 'media_player.media_previous_track');
  t.equal(await speech('set the volume of the tv to 30%'), 'Volume set');
  t.equal((await state('media_player.tv')).attributes.volume_level, 0.3, 'media_player.volume_set with 0..1');
}

t.test('misfires over REST: a template word is no floor; an unknown name is named whole', (t) => misfires(t, 'rest'));
t.test('misfires over the WebSocket', (t) => misfires(t, 'websocket'));
t.test('lights, thermostats and media players over REST', (t) => newIntents(t, 'rest'));
t.test('lights, thermostats and media players over the WebSocket', (t) => newIntents(t, 'websocket'));
