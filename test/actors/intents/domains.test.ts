// The intents of the light, climate and media_player domains through POST /api/intent/handle:
// what each answers, the service call it makes, and the states after.
import t from 'tap';
import { startHome, errorAnswer } from './home.ts';

const entity = (id: string, name: string) => ({ name, type: 'entity', id });
const done = (success: unknown[]) => ({ speech: {}, card: {}, language: 'en', response_type: 'action_done', data: { targets: [], success, failed: [] } });

t.test('CoreLightSet: light.turn_on with brightness_pct, a colour by name as rgb_color', async (t) => {
  const home = await startHome(t);
  t.same(await home.handle('CoreLightSet', { name: 'hall light', color: 'Blue', brightness: '40' }), done([entity('light.hall_light', 'Hall Light')]), 'no speech of its own');
  t.match(await home.state('light.hall_light'), { state: 'on', attributes: { brightness: 102, color_mode: 'hs', rgb_color: [0, 0, 255] } });
  const bedroom = await home.handle('CoreLightSet', { area: 'bedroom', domain: 'light', brightness: 10 });
  t.same(bedroom.data.success.map((s: { id: string }) => s.id), ['bedroom', 'light.bedroom_light', 'light.reading_lamp_2'], 'the area, then its lights');
  t.equal((await home.state('light.bedroom_light')).attributes.brightness, 26);
  t.same(await home.handle('CoreLightSet', { name: 'hall light', color: 'sunset' }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreLightSet'), 'a colour with no name');
  t.same(await home.handle('CoreLightSet', { name: 'hall light', brightness: 101 }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreLightSet'), 'brightness is 0..100');
});

t.test('CoreClimateSetTemperature: one thermostat, by name, area or the asking place', async (t) => {
  const home = await startHome(t);
  t.same(await home.handle('CoreClimateSetTemperature', { name: 'thermostat', temperature: '21.5' }), done([entity('climate.thermostat', 'Thermostat')]));
  t.equal((await home.state('climate.thermostat')).attributes.temperature, 21.5, 'climate.set_temperature');
  await home.handle('CoreClimateSetTemperature', { area: 'bedroom', temperature: 18 });
  t.equal((await home.state('climate.bedroom_heater')).attributes.temperature, 18, 'the one in the area');
  t.same(await home.handle('CoreClimateSetTemperature', { temperature: 19 }), errorAnswer('no_valid_targets', 'Sorry, more than one device matched your request'), 'two thermostats, none preferred');
  await home.handle('CoreClimateSetTemperature', { temperature: 19, preferred_area_id: 'living_room' });
  t.equal((await home.state('climate.thermostat')).attributes.temperature, 19, "the asking device's area tells them apart");
  t.same(await home.handle('CoreClimateSetTemperature', { name: 'thermostat' }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreClimateSetTemperature'), 'a temperature is required');
});

t.test('media players: next, previous and volume of a playing player', async (t) => {
  const home = await startHome(t);
  t.same(await home.handle('CoreMediaNext', { name: 'tv' }), done([entity('media_player.tv', 'TV')]));
  t.equal((await home.state('media_player.tv')).attributes.media_track, 2, 'media_player.media_next_track');
  await home.handle('CoreMediaPrevious', { name: 'tv' });
  t.equal((await home.state('media_player.tv')).attributes.media_track, 1, 'media_player.media_previous_track');
  await home.handle('CoreSetVolume', { name: 'speaker', volume_level: 25 });
  t.equal((await home.state('media_player.speaker')).attributes.volume_level, 0.25, 'volume_set with volume_level 0..1');
  t.same(await home.handle('CoreSetVolume', { name: 'tv', volume_level: 120 }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreSetVolume'));
  t.same(await home.handle('CoreMediaNext', { name: 'kitchen light' }), errorAnswer('no_valid_targets', 'Sorry, I am not aware of any device called kitchen light'), 'media players only');
});

t.test('pause and resume: a resume without a name resumes what the spoken pause reached, unless one was paused since', async (t) => {
  const home = await startHome(t);
  t.same(await home.handle('CoreMediaPause', { name: 'tv' }), done([entity('media_player.tv', 'TV')]));
  t.equal((await home.state('media_player.tv')).state, 'paused', 'media_player.media_pause');
  // states are filtered before names, as the original's: the paused TV is not among the players asked about
  t.same(await home.handle('CoreMediaPause', { name: 'tv' }), errorAnswer('no_valid_targets', 'Sorry, I am not aware of any device called tv'), 'only a playing player pauses');
  // the speaker is paused afterwards by other means: "resume" means it
  await home.rest('POST', '/api/services/media_player/media_pause', { entity_id: 'media_player.speaker' });
  const first = await home.handle('CoreMediaUnpause', { area: 'living room' });
  t.same(first.data.success.map((s: { id: string }) => s.id), ['living_room', 'media_player.speaker'], 'the one paused since');
  t.same([(await home.state('media_player.speaker')).state, (await home.state('media_player.tv')).state], ['playing', 'paused']);
  // that memory is used up: every paused player of the area now
  await home.handle('CoreMediaUnpause', { area: 'living room' });
  t.equal((await home.state('media_player.tv')).state, 'playing');

  // a pause of the whole room, then the speaker resumed and paused again by voice: the last pause is what resumes
  await home.handle('CoreMediaPause', { area: 'living room' });
  await home.handle('CoreMediaUnpause', { name: 'speaker' });
  await home.handle('CoreMediaPause', { name: 'speaker' });
  const resumed = await home.handle('CoreMediaUnpause', { area: 'living room' });
  t.same(resumed.data.success.map((s: { id: string }) => s.id), ['living_room', 'media_player.speaker'], 'what the last spoken pause reached');
  t.equal((await home.state('media_player.tv')).state, 'paused');
});
