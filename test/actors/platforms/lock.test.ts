// Virtual locks in a real Hearth: lock, unlock, open, codes, operations that take time, jams.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
lock:
  - platform: virtual
    name: Front door
    supports_open: true
    code_format: '^\\d{4}$'
  - platform: virtual
    name: Back door
    initial: unlocked
    operation_seconds: 0.1
  - platform: virtual
    name: Shed
    jam: true
`;

t.test('lock: services, codes and the open feature', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const front = await home.state('lock.front_door');
  t.same([front.state, front.attributes], ['locked', { code_format: '^\\d{4}$', friendly_name: 'Front door', supported_features: 1 }]);
  t.same((await home.state('lock.back_door')).attributes, { friendly_name: 'Back door', supported_features: 0 });

  const noCode = await home.wsCall('lock', 'unlock', {}, { entity_id: 'lock.front_door' });
  t.same([noCode.error.code, noCode.error.message, noCode.error.translation_key, noCode.error.translation_domain], [
    'service_validation_error',
    "Validation error: The code for lock.front_door doesn't match pattern ^\\d{4}$.",
    'add_default_code',
    'lock',
  ]);
  t.equal((await home.call('lock', 'unlock', { entity_id: 'lock.front_door', code: '12a4' })).status, 400);
  await home.call('lock', 'unlock', { entity_id: 'lock.front_door', code: 1234 });
  t.equal((await home.changed('lock.front_door')).new_state.state, 'unlocked', 'a number is a code too');
  await home.call('lock', 'open', { entity_id: 'lock.front_door', code: '1234' });
  t.equal((await home.changed('lock.front_door')).new_state.state, 'open');
  const open = await home.call('lock', 'open', { entity_id: 'lock.back_door' });
  t.same([open.status, open.json.message], [400, 'Entity lock.back_door does not support action lock.open.']);
});

t.test('lock: locking takes its time; a jam', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.wsCall('lock', 'lock', {}, { entity_id: 'lock.back_door' });
  t.equal((await home.changed('lock.back_door')).new_state.state, 'locking');
  t.equal((await home.changed('lock.back_door')).new_state.state, 'locked');
  await home.call('lock', 'unlock', { entity_id: 'lock.shed' });
  await home.changed('lock.shed');
  await home.call('lock', 'lock', { entity_id: 'lock.shed' });
  t.equal((await home.changed('lock.shed')).new_state.state, 'jammed', 'a lock set to jam jams');
  await home.call('lock', 'unlock', { entity_id: 'lock.shed' });
  t.equal((await home.changed('lock.shed')).new_state.state, 'unlocked', 'and can be unlocked again');
  await home.call('lock', 'unlock', { entity_id: 'lock.back_door' });
  t.equal((await home.changed('lock.back_door')).new_state.state, 'unlocking');
  const again = await restarted(t, home);
  t.equal((await again.state('lock.back_door')).state, 'unlocked', 'an unlocking lock comes back unlocked');
  t.equal((await again.state('lock.shed')).state, 'unlocked');
});
