// An outage is warned of once however the server's absence shows (nats.js's codes and the
// socket's alternate under load); a refusal with a reason of its own is warned of by that reason.
import t from 'tap';
import { failureKind } from '../../../actors/export/failure-kind.ts';

const error = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

t.test('every way of not reaching the server, or its JetStream, is one kind', async (t) => {
  const ways = [error('read ECONNRESET', 'ECONNRESET'), error('CONNECTION_REFUSED', 'CONNECTION_REFUSED'), error('connection closed', 'CONNECTION_CLOSED'), error('TIMEOUT', 'TIMEOUT'), error('connect ECONNREFUSED 127.0.0.1:4222', 'ECONNREFUSED'), error('TIMEOUT'), error('503', '503')];
  t.same(new Set(ways.map(failureKind)), new Set(['unreachable']));
});

t.test('a refusal or a misconfigured stream is its own kind', async (t) => {
  const refused = 'JetStream refused record 5 (b1.entity.sensor.b_2): 400 message size exceeds maximum allowed';
  t.equal(failureKind(error(refused)), refused);
  t.not(failureKind(error('stream hearth exists without the subjects hearth.>')), 'unreachable');
});
