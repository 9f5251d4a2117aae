// A real log on disk whose appends can be made to fail on demand: a disk that fails exactly
// when a test says so, at the edge of what a test can otherwise reach.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../store/log.ts';
import type { EventLog } from '../../store/types.ts';

export async function refusingLog(t: { teardown(fn: () => unknown): void }): Promise<{ log: EventLog; refuse(on: boolean): void }> {
  const real = await openEventLog({ path: join(await mkdtemp(join(tmpdir(), 'hearth-refusing-')), 'log'), commit: 'fast' });
  t.teardown(() => real.close());
  let refusing = false;
  const log = new Proxy(real, {
    get(target, key) {
      if (key === 'append') {
        return (events: Parameters<EventLog['append']>[0]) => (refusing ? Promise.reject(new Error('disk full')) : target.append(events));
      }
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { log, refuse: (on) => void (refusing = on) };
}
