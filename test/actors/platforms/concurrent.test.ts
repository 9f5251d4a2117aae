// Calls that reach the same entities at the same time: each writes the state it made, as the
// original does, so no change is lost between them.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';

t.test('two toggles at once each write their own state change', async (t) => {
  const h = await startTestHearth(t, { config: 'switch:\n  - platform: virtual\n    name: Kettle\n  - platform: virtual\n    name: Fan\n' });
  const tokens = await onboard(h.base);
  const rest = api(h.base, tokens.access_token);
  const since = h.hearth.log.lastSeq();
  const calls = await Promise.all([1, 2, 3, 4].map(() => rest('POST', '/api/services/switch/toggle', { entity_id: ['switch.kettle', 'switch.fan'] })));
  for (const c of calls) {
    t.equal(c.status, 200);
    t.same(c.json.map((s: any) => s.entity_id).sort(), ['switch.fan', 'switch.kettle'], 'every call answers the states it changed');
  }
  const changes: string[] = [];
  for await (const r of h.hearth.log.read({ gt: since })) {
    if (r.type === 'state_changed' && r.stream === 'entity/switch.kettle') changes.push((r.data as any).new_state.state);
  }
  t.same(changes, ['on', 'off', 'on', 'off'], 'four calls, four changes in the log, in order');
  t.equal((await rest('GET', '/api/states/switch.kettle')).json.state, 'off');
});
