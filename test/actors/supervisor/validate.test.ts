// Flat supervisor bodies: the first problem in the body's order, named at its key with the key's whole value.
import t from 'tap';
import type { TObject } from '@sinclair/typebox';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { Refusal, boolean, int, list, oneOf, refine, required, schema, str, validate } from '../../../actors/supervisor/validate.ts';

const SHAPE = schema({ watchdog: boolean, port: int(1, 65535), jobs: list(oneOf(['a', 'b'])), name: required(str) });
const message = (body: Record<string, unknown>, shape: TObject = SHAPE) => {
  try {
    validate(body, shape);
    return 'ok';
  } catch (err) {
    return err instanceof SupervisorError ? err.message : `not a SupervisorError: ${err}`;
  }
};

t.test('the first problem in the body order, then a missing key', async (t) => {
  t.equal(message({ port: 0, watchdog: 'x', name: 'n' }), "value must be at least 1 @ data['port']. Got 0");
  t.equal(message({ watchdog: 'x', port: 0, name: 'n' }), "expected boolean @ data['watchdog']. Got 'x'");
  t.equal(message({ bogus: 1, port: 0 }), "extra keys not allowed @ data['bogus']. Got 1");
  t.equal(message({ port: 1 }), "required key not provided @ data['name']. Got None");
  t.equal(message({ jobs: ['a', 'c'], name: 'n' }), "value must be one of ['a', 'b'] @ data['jobs']. Got ['a', 'c']", 'an item is named at its list');
});

t.test('the checked values, coerced; extra keys left out where a schema allows them', async (t) => {
  t.same(validate({ watchdog: 'on', name: 'n' }, SHAPE), { watchdog: true, name: 'n' });
  t.same(validate({ name: 'n', other: 1 }, schema({ name: str }, { allowExtra: true })), { name: 'n' });
});

t.test("a refinement's Refusal is named at its key; its own answer goes through", async (t) => {
  const shape = schema({
    pair: refine(list(str), (items) => {
      if (items.length !== 2) throw new Refusal('expected two items');
      if (items[0] === items[1]) throw new SupervisorError('the two are the same');
      return items;
    }),
  });
  t.equal(message({ pair: ['a'] }, shape), "expected two items @ data['pair']. Got ['a']");
  t.equal(message({ pair: ['a', 'a'] }, shape), 'the two are the same');
});
