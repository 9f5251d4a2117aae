// A record's stream (and a bus event's type) as NATS subject tokens.
import t from 'tap';
import { SubjectCache, isExported, subjectOf, subjectToken } from '../../../actors/export/subjects.ts';

t.test('streams and bus types become subject tokens', async (t) => {
  t.equal(subjectOf('hearth', 'entity/light.kitchen', 'state_changed'), 'hearth.entity.light.kitchen');
  t.equal(subjectOf('hearth', 'bus', 'call_service'), 'hearth.bus.call_service');
  t.equal(subjectOf('hearth', 'registry/area/x', 'area_created'), 'hearth.registry.area.x');
  t.equal(subjectOf('a.b', 'bus', 'my event'), 'a.b.bus.my~20event');
});

t.test('wildcards, spaces, ~ and non-ASCII are escaped; empty tokens are ~', async (t) => {
  t.equal(subjectToken('*'), '~2a');
  t.equal(subjectToken('>'), '~3e');
  t.equal(subjectToken('a~b'), 'a~7eb');
  t.equal(subjectToken('é'), '~c3~a9');
  t.equal(subjectToken('tab\there'), 'tab~09here');
  t.equal(subjectOf('hearth', 'x//y', 't'), 'hearth.x.~.y');
  for (const s of ['*', '>', 'a b', 'é', '', 'a.b'].map(subjectToken)) t.match(s, /^[A-Za-z0-9_~-]+$/, `${JSON.stringify(s)} is one safe token`);
});

t.test('auth streams are never exported', async (t) => {
  t.notOk(isExported('auth/user/abc'));
  t.notOk(isExported('auth/ip_ban'));
  t.ok(isExported('authority/x'));
  t.ok(isExported('entity/sensor.auth'));
});

t.test('the kept subjects are the mapping’s, bus events by their type, and the cache starts over past its limit', async (t) => {
  const cache = new SubjectCache('hearth', 2);
  t.equal(cache.of('entity/light.kitchen', 'state_changed'), 'hearth.entity.light.kitchen');
  t.equal(cache.of('entity/light.kitchen', 'state_reported'), 'hearth.entity.light.kitchen', 'again, from the cache');
  t.equal(cache.of('bus', 'call_service'), 'hearth.bus.call_service');
  t.equal(cache.of('bus', 'my event'), 'hearth.bus.my~20event', 'the bus is never taken from the cache');
  t.equal(cache.of('registry/area/x', 'area_created'), 'hearth.registry.area.x');
  t.equal(cache.of('entity/a b', 't'), 'hearth.entity.a~20b', 'a third stream, past the limit of two');
  t.equal(cache.of('entity/light.kitchen', 't'), 'hearth.entity.light.kitchen', 'and the first once more');
});
