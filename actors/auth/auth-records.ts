import type { EventLog, NewEvent } from '../../store/types.ts';
import type { Clock, Ids } from '../clock.ts';
import type { Users } from './users.ts';

/** Makes one auth record (not yet appended): no origin, a fresh context naming `userId`. */
export type RecordMaker = (stream: string, type: string, data: unknown, userId?: string | null, time?: number) => NewEvent;

/** The auth modules' one way into the log. */
export interface AuthRecords {
  record: RecordMaker;
  /** appends `events` and, in the same batch, the authpub/ records read replicas need of them */
  append(...events: NewEvent[]): Promise<void>;
}

/** What every auth module is handed: the shared users and credentials view, the log, time and ids. */
export interface AuthModuleDeps {
  users: Users;
  records: AuthRecords;
  clock: Clock;
  ids: Ids;
}

/**
 * The auth records of `log`; `publish` derives the authpub/ records of a batch from the state it
 * starts from, so what a replica needs of a change is appended with it, never after it.
 */
export function createAuthRecords(log: EventLog, clock: Clock, ids: Ids, publish: (events: readonly NewEvent[]) => NewEvent[]): AuthRecords {
  return {
    record: (stream, type, data, userId = null, time = clock.now()) => ({
      time,
      stream,
      type,
      data,
      context: { id: ids.ulid(time), parent_id: null, user_id: userId },
    }),
    async append(...events) {
      const published = publish(events);
      await log.append(published.length === 0 ? events : [...events, ...published]);
    },
  };
}
