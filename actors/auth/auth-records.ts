import type { EventLog, NewEvent } from '../../store/types.ts';
import type { Clock, Ids } from '../clock.ts';
import type { ProviderKey } from './login-flows.ts';
import type { OnboardingRecord } from './onboarding.ts';
import type { AuthPubRecord } from './publish.ts';
import type { RefreshTokenRecord } from './tokens.ts';
import type { UserRecord, Users } from './users.ts';

/** What a login flow's outcome records on `auth/login_flow/<flow_id>` (an audit trail; never read back). */
export type LoginFlowRecord = {
  type: 'login_flow_step';
  data: Record<string, unknown> & { flow_id: string; handler: ProviderKey; client_id: string; redirect_uri: string; flow_type: string; ip_address: string };
};

/** Every record the auth modules write. */
export type AuthRecord = UserRecord | RefreshTokenRecord | OnboardingRecord | LoginFlowRecord | AuthPubRecord;

/** Makes one auth record (not yet appended): no origin, a fresh context naming `userId`. */
export type RecordMaker = <K extends AuthRecord>(stream: string, kind: K, userId?: string | null, time?: number) => Omit<NewEvent, 'type' | 'data'> & K;

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
    record: (stream, kind, userId = null, time = clock.now()) => ({
      ...kind,
      time,
      stream,
      context: { id: ids.ulid(time), parent_id: null, user_id: userId },
    }),
    async append(...events) {
      const published = publish(events);
      await log.append(published.length === 0 ? events : [...events, ...published]);
    },
  };
}
