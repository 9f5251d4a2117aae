import t from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../store/log.ts';

const ctx = { id: 'c', parent_id: null, user_id: null };

t.test('readStreams: a prefix of streams, after a seq, all or only the latest of each', async (t) => {
  const log = await openEventLog({ path: join(await mkdtemp(join(tmpdir(), 'hearth-rs-')), 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  const plan = ['entity/a', 'auth/user/1', 'entity/b', 'entity/a', 'entity0', 'entity/ab', 'auth/user/1', 'entity/b', 'entity/a'];
  await log.append(plan.map((stream, i) => ({ time: 1000 + i, stream, type: 't', data: { i }, context: ctx })));
  const seqsOf = async (prefix: string, options?: { after?: number; latest?: boolean }) => {
    const out: number[] = [];
    for await (const r of log.readStreams(prefix, options)) out.push(r.seq);
    return out;
  };
  const cases: Array<[string, { after?: number; latest?: boolean } | undefined, number[]]> = [
    ['entity/', undefined, [1, 3, 4, 6, 8, 9]],
    ['entity/', { latest: true }, [6, 8, 9]],
    ['entity/', { after: 4 }, [6, 8, 9]],
    ['entity/', { after: 8, latest: true }, [9]],
    ['entity/a', { latest: true }, [6, 9]],
    ['auth/', undefined, [2, 7]],
    ['auth/', { latest: true }, [7]],
    ['nothing/', undefined, []],
  ];
  for (const [prefix, options, want] of cases) t.same(await seqsOf(prefix, options), want, `${prefix} ${JSON.stringify(options ?? {})}`);
  const [record] = await (async () => {
    const out = [];
    for await (const r of log.readStreams('entity0')) out.push(r);
    return out;
  })();
  t.same(record.data, { i: 4 }, 'records come back whole');
});
