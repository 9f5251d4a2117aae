// Virtual covers in a real Hearth: moves that take time, stop mid-way, toggle, tilt, restart.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
cover:
  - platform: virtual
    name: Garage door
    device_class: garage
    travel_seconds: 0.5
  - platform: virtual
    name: Blinds
    tilt: true
    initial: open
  - platform: virtual
    name: Gate
    supported_features: [open, close]
`;

t.test('cover: instant moves, tilt, attributes', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const blinds = await home.state('cover.blinds');
  t.same([blinds.state, blinds.attributes], ['open', { current_position: 100, current_tilt_position: 0, friendly_name: 'Blinds', supported_features: 255 }]);
  t.same((await home.state('cover.garage_door')).attributes, { current_position: 0, device_class: 'garage', friendly_name: 'Garage door', supported_features: 15 });

  const set = await home.call('cover', 'set_cover_position', { entity_id: 'cover.blinds', position: 40 });
  t.same(set.json.map((s: any) => [s.state, s.attributes.current_position]), [['open', 40]], 'without travel time it is there at once');
  await home.call('cover', 'close_cover', { entity_id: 'cover.blinds' });
  t.equal((await home.state('cover.blinds')).state, 'closed');
  await home.call('cover', 'toggle', { entity_id: 'cover.blinds' });
  t.same((await home.state('cover.blinds')).attributes.current_position, 100, 'toggle opens a closed cover');
  await home.call('cover', 'set_cover_position', { entity_id: 'cover.blinds', position: 60 });
  await home.call('cover', 'toggle', { entity_id: 'cover.blinds' });
  t.same((await home.state('cover.blinds')).attributes.current_position, 0, 'part-open after opening: toggle closes');
  await home.wsCall('cover', 'set_cover_tilt_position', { tilt_position: 30 }, { entity_id: 'cover.blinds' });
  t.same((await home.state('cover.blinds')).attributes.current_tilt_position, 30);
  await home.wsCall('cover', 'toggle_cover_tilt', {}, { entity_id: 'cover.blinds' });
  t.same((await home.state('cover.blinds')).attributes.current_tilt_position, 0, 'toggle_cover_tilt closes a tilt that is not closed');
  await home.wsCall('cover', 'open_cover_tilt', {}, { entity_id: 'cover.blinds' });
  t.same((await home.state('cover.blinds')).attributes.current_tilt_position, 100);
});

t.test('cover: unsupported features and bad positions are refused', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const position = await home.call('cover', 'set_cover_position', { entity_id: 'cover.gate', position: 50 });
  t.same([position.status, position.json], [400, { message: 'Entity cover.gate does not support action cover.set_cover_position.' }]);
  const stop = await home.wsCall('cover', 'stop_cover', {}, { entity_id: 'cover.gate' });
  t.same([stop.error.code, stop.error.translation_key], ['service_validation_error', 'service_not_supported']);
  const tilt = await home.wsCall('cover', 'open_cover_tilt', {}, { entity_id: 'cover.garage_door' });
  t.match(tilt.error.message, /cover.garage_door does not support action cover.open_cover_tilt/);
  const range = await home.wsCall('cover', 'set_cover_position', { position: 101 }, { entity_id: 'cover.blinds' });
  t.same(range.error.code, 'invalid_format');
  t.match(range.error.message, /data\['position'\]/);
  const missing = await home.wsCall('cover', 'set_cover_position', {}, { entity_id: 'cover.blinds' });
  t.match(missing.error.message, /required key not provided @ data\['position'\]/);
  t.equal((await home.call('cover', 'toggle', { entity_id: 'cover.gate' })).status, 200, 'toggle needs open and close, which the gate has');
});

t.test('cover: a travelling cover takes its time, and a stop keeps it mid-way across a restart', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const answer = await home.call('cover', 'open_cover', { entity_id: 'cover.garage_door' });
  t.same(answer.json.map((s: any) => [s.state, s.attributes.current_position]), [['opening', 0]], 'the call answers as the move starts');
  const first = await home.changed('cover.garage_door');
  t.same([first.old_state.state, first.new_state.state], ['closed', 'opening']);
  const positions: number[] = [];
  let last: any;
  do {
    last = (await home.changed('cover.garage_door')).new_state;
    positions.push(last.attributes.current_position);
  } while (last.state === 'opening');
  t.same(positions, [10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 'ten steps of 10%');
  t.equal(last.state, 'open');
  t.equal(last.context.id, first.context.id, 'the steps of the move carry the call’s context');

  await home.call('cover', 'close_cover', { entity_id: 'cover.garage_door' });
  await home.changed('cover.garage_door', (s) => s.state === 'closing');
  const partway = await home.changed('cover.garage_door', (s) => s.attributes.current_position <= 70);
  t.equal(partway.new_state.state, 'closing');
  await home.call('cover', 'stop_cover', { entity_id: 'cover.garage_door' });
  await home.changed('cover.garage_door', (s) => s.state === 'open');
  const stopped = await home.state('cover.garage_door');
  t.equal(stopped.state, 'open', 'stopped part-way is open');
  const kept = stopped.attributes.current_position;
  t.ok(kept > 0 && kept < 100, `kept at ${kept}`);
  await t.rejects(home.changed('cover.garage_door', () => true, 200), 'no further step after the stop');

  const again = await restarted(t, home);
  const after = await again.state('cover.garage_door');
  t.same([after.state, after.attributes.current_position, after.last_updated], ['open', kept, stopped.last_updated], 'the position is kept across a restart');
});

t.test('cover: a move cut short by a restart rests where it was last written', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.call('cover', 'open_cover', { entity_id: 'cover.garage_door' });
  await home.changed('cover.garage_door', (s) => s.attributes.current_position >= 20);
  const again = await restarted(t, home);
  const after = await again.state('cover.garage_door');
  t.equal(after.state, 'open', 'no longer opening');
  t.ok(after.attributes.current_position >= 20 && after.attributes.current_position < 100, `at ${after.attributes.current_position}`);
  await t.rejects(again.changed('cover.garage_door', () => true, 200), 'and it does not move on');
});

t.test('cover: toggle while moving stops; a command while moving turns it around', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.call('cover', 'open_cover', { entity_id: 'cover.garage_door' });
  await home.changed('cover.garage_door', (s) => s.attributes.current_position >= 20);
  await home.call('cover', 'close_cover', { entity_id: 'cover.garage_door' });
  await home.changed('cover.garage_door', (s) => s.state === 'closing');
  const closed = await home.changed('cover.garage_door', (s) => s.state === 'closed');
  t.equal(closed.new_state.attributes.current_position, 0);
  await home.call('cover', 'open_cover', { entity_id: 'cover.garage_door' });
  await home.changed('cover.garage_door', (s) => s.attributes.current_position >= 10);
  await home.call('cover', 'toggle', { entity_id: 'cover.garage_door' });
  const state = await home.state('cover.garage_door');
  t.equal(state.state, 'open', 'toggle of a moving cover that can stop stops it');
});
