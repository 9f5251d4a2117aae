import t from 'tap';
import { createActor } from 'xstate';
import { entityMachine, entityTransition, type EntityContext } from '../../machines/entity.machine.ts';

const context = { id: 'c1', parent_id: null, user_id: null };
const write = (state: string, time: number, attributes: Record<string, unknown> = {}, force_update = false) =>
  ({ type: 'write' as const, state, attributes, force_update, context, time });

t.test('an entity decides what each write and removal records', async (t) => {
  let c: EntityContext = { entityId: 'sensor.t', current: null, decided: null };
  c = entityTransition(c, write('20', 1000, { unit: '°C' }));
  t.match(c.decided, { type: 'state_changed', old: null, next: { state: '20', last_changed: 1000, last_updated: 1000, last_reported: 1000 } });
  const created = c.current;
  c = entityTransition(c, write('20', 2000, { unit: '°C' }));
  t.match(c.decided, { type: 'state_reported', old: created, next: { state: '20', last_changed: 1000, last_updated: 1000, last_reported: 2000 } });
  c = entityTransition(c, write('20', 3000, { unit: 'K' }));
  t.match(c.decided, { type: 'state_changed', next: { last_changed: 1000, last_updated: 3000 } }, 'attributes alone keep last_changed');
  c = entityTransition(c, write('20', 4000, { unit: 'K' }, true));
  t.match(c.decided, { type: 'state_changed', next: { last_changed: 4000 } }, 'force_update moves last_changed');
  const before = c.current;
  c = entityTransition(c, { type: 'remove', context, time: 5000 });
  t.same([c.current, c.decided], [null, { type: 'state_changed', old: before, next: null }]);
  c = entityTransition(c, { type: 'remove', context, time: 6000 });
  t.equal(c.decided, null, 'removing what does not exist records nothing');
  t.equal(before?.state, '20', 'a transition never changes the state it was given');
});

t.test('the entity is an xstate actor whose snapshot holds the decision', async (t) => {
  const actor = createActor(entityMachine, { input: { entityId: 'light.x', current: null } });
  actor.start();
  actor.send(write('on', 10));
  t.match(actor.getSnapshot().context, { current: { entity_id: 'light.x', state: 'on' }, decided: { type: 'state_changed', old: null } });
  actor.stop();
});
