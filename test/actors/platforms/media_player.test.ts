// Virtual media players in a real Hearth: power, play/pause, volume, mute, source.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
media_player:
  - platform: virtual
    name: Living room TV
    device_class: tv
    source_list: [HDMI 1, HDMI 2, Radio]
  - platform: virtual
    name: Kitchen speaker
    supported_features: [turn_on, turn_off, play, pause]
`;

t.test('media_player: services and attributes', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const tv = await home.state('media_player.living_room_tv');
  t.same([tv.state, tv.attributes], ['off', { source_list: ['HDMI 1', 'HDMI 2', 'Radio'], device_class: 'tv', friendly_name: 'Living room TV', supported_features: 23997 }]);
  await home.call('media_player', 'turn_on', { entity_id: 'media_player.living_room_tv' });
  const on = await home.state('media_player.living_room_tv');
  t.same([on.state, on.attributes.volume_level, on.attributes.is_volume_muted, on.attributes.source], ['on', 0.5, false, 'HDMI 1']);
  await home.wsCall('media_player', 'volume_up', {}, { entity_id: 'media_player.living_room_tv' });
  t.equal((await home.state('media_player.living_room_tv')).attributes.volume_level, 0.6);
  await home.call('media_player', 'volume_set', { entity_id: 'media_player.living_room_tv', volume_level: 0.25 });
  await home.call('media_player', 'volume_mute', { entity_id: 'media_player.living_room_tv', is_volume_muted: true });
  await home.call('media_player', 'select_source', { entity_id: 'media_player.living_room_tv', source: 'Radio' });
  await home.call('media_player', 'media_play', { entity_id: 'media_player.living_room_tv' });
  await home.call('media_player', 'media_next_track', { entity_id: 'media_player.living_room_tv' });
  const playing = await home.state('media_player.living_room_tv');
  t.same([playing.state, playing.attributes.volume_level, playing.attributes.is_volume_muted, playing.attributes.source, playing.attributes.media_track], ['playing', 0.25, true, 'Radio', 2]);
  await home.call('media_player', 'media_play_pause', { entity_id: 'media_player.living_room_tv' });
  t.equal((await home.state('media_player.living_room_tv')).state, 'paused');

  const source = await home.wsCall('media_player', 'select_source', { source: 'Netflix' }, { entity_id: 'media_player.living_room_tv' });
  t.match(source.error.message, /Source Netflix is not one of the source_list/);
  const volume = await home.wsCall('media_player', 'volume_set', { volume_level: 2 }, { entity_id: 'media_player.living_room_tv' });
  t.match(volume.error.message, /data\['volume_level'\]/);
  const unsupported = await home.call('media_player', 'volume_up', { entity_id: 'media_player.kitchen_speaker' });
  t.same([unsupported.status, unsupported.json.message], [400, 'Entity media_player.kitchen_speaker does not support action media_player.volume_up.']);

  const again = await restarted(t, home);
  const after = await again.state('media_player.living_room_tv');
  t.same([after.state, after.attributes.source, after.attributes.volume_level], ['paused', 'Radio', 0.25], 'kept across a restart');
  await again.call('media_player', 'turn_off', { entity_id: 'media_player.living_room_tv' });
  t.same((await again.state('media_player.living_room_tv')).attributes, { source_list: ['HDMI 1', 'HDMI 2', 'Radio'], device_class: 'tv', friendly_name: 'Living room TV', supported_features: 23997 }, 'off shows no volume or source');
});
