import t from 'tap';
import { randomIds, sequentialIds } from '../../actors/clock.ts';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const timeOf = (ulid: string) => [...ulid.slice(0, 10)].reduce((n, c) => n * 32 + CROCKFORD.indexOf(c), 0);

t.test('context ids are ULIDs of the write’s time, each one different', async (t) => {
  const ids = randomIds();
  const time = Date.UTC(2026, 10, 23, 21, 0, 0) + 123.456;
  const seen = new Set<string>();
  const wrong: string[] = [];
  // past the 4 KiB of randomness drawn at a time, so a refill is crossed
  for (let i = 0; i < 5000; i++) {
    const id = ids.ulid(time + i);
    if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(id) || timeOf(id) !== Math.floor(time + i)) wrong.push(id);
    seen.add(id);
  }
  t.same(wrong, [], 'every id is 26 Crockford characters starting with its time');
  t.equal(seen.size, 5000);
  t.equal(ids.ulid(time).slice(0, 10), sequentialIds().ulid(time).slice(0, 10), 'both generators spell the time alike');
  t.ok(ids.ulid(time).slice(0, 10) < ids.ulid(time + 1).slice(0, 10), 'later times sort later');
});
