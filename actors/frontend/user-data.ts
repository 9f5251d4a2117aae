import type { Area } from '../area.ts';
import type { Clock } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';

/**
 * The frontend's per-user data (the original's `frontend/*_user_data` commands): small JSON
 * values by key that a user's frontends keep for that user alone (language, theme, sidebar
 * order...). Each write is one record `user_data_set` {key, value} on
 * `frontend/user_data/<user_id>`; a user's data is every key's last value.
 */

export const USER_DATA_PREFIX = 'frontend/user_data/';
const SNAPSHOT_VERSION = 1;

/** Limits that keep one user's data from growing the log and every snapshot without end. */
export const USER_DATA_LIMITS = {
  /** characters of a key */
  keyLength: 255,
  /** bytes of one value as JSON */
  valueBytes: 64 * 1024,
  /** keys one user may hold */
  keys: 256,
};

/** A value as the client sent it: any JSON value (the gateway checks it is one). */
export type UserDataValue = unknown;

/** Why a write is refused: the WebSocket error code and a message. */
export type UserDataRefusal = [code: string, message: string];

type Listener = (key: string) => void;

/** A user's records on `frontend/user_data/<user_id>`: each sets one key. */
export type UserDataRecord = { type: 'user_data_set'; data: { key: string; value?: UserDataValue } };
const userDataRecords = typedRecords<UserDataRecord>(USER_DATA_PREFIX, { user_data_set: true });

export class FrontendUserData implements Area<RecordOf<UserDataRecord>> {
  readonly name = 'frontend-user-data';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = USER_DATA_PREFIX;
  // a stream's records each set one key: all of them make the user's data
  readonly latestSuffices = false;
  private readonly data = new Map<string, Map<string, UserDataValue>>();
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(private readonly deps: { log: EventLog; clock: Clock }) {
    // listeners hear of a write once it is committed, whichever connection made it
    deps.log.onCommit((records) => {
      for (const r of records) {
        if (!this.owns(r)) continue;
        this.evolve(r);
        const userId = r.stream.slice(USER_DATA_PREFIX.length);
        for (const l of [...(this.listeners.get(userId) ?? [])]) l(r.data.key);
      }
    });
  }

  owns(record: EventRecord): record is RecordOf<UserDataRecord> {
    return userDataRecords.owns(record);
  }

  evolve(record: RecordOf<UserDataRecord>): void {
    if (typeof record.data?.key !== 'string') return;
    const userId = record.stream.slice(USER_DATA_PREFIX.length);
    let mine = this.data.get(userId);
    if (!mine) this.data.set(userId, (mine = new Map()));
    mine.set(record.data.key, record.data.value ?? null);
  }

  snapshot(): unknown {
    return Object.fromEntries([...this.data].map(([user, values]) => [user, Object.fromEntries(values)]));
  }

  restore(data: unknown): void {
    this.data.clear();
    for (const [user, values] of Object.entries((data ?? {}) as Record<string, Record<string, UserDataValue>>)) {
      this.data.set(user, new Map(Object.entries(values)));
    }
  }

  /** One key's value for a user; null when never set (as the original answers). */
  get(userId: string, key: string): UserDataValue {
    return this.data.get(userId)?.get(key) ?? null;
  }

  /** All of a user's keys and values. */
  all(userId: string): Record<string, UserDataValue> {
    return Object.fromEntries(this.data.get(userId) ?? []);
  }

  /** Why this write would be refused, or undefined. */
  refusal(userId: string, key: string, value: unknown): UserDataRefusal | undefined {
    if (key.length === 0) return ['invalid_format', 'The key must not be empty'];
    if (key.length > USER_DATA_LIMITS.keyLength) return ['invalid_format', `The key is longer than ${USER_DATA_LIMITS.keyLength} characters`];
    const json = JSON.stringify(value);
    if (json === undefined) return ['invalid_format', 'The value must be JSON'];
    const bytes = Buffer.byteLength(json);
    if (bytes > USER_DATA_LIMITS.valueBytes) return ['invalid_format', `The value is ${bytes} bytes as JSON; at most ${USER_DATA_LIMITS.valueBytes} are kept`];
    const mine = this.data.get(userId);
    if (mine && !mine.has(key) && mine.size >= USER_DATA_LIMITS.keys) return ['invalid_format', `At most ${USER_DATA_LIMITS.keys} keys are kept for a user`];
    return undefined;
  }

  /** Sets one key of a user's data; resolves once committed, or to why it was refused. */
  async set(userId: string, key: string, value: unknown, context: Context): Promise<UserDataRefusal | undefined> {
    const refused = this.refusal(userId, key, value);
    if (refused) return refused;
    await this.deps.log.append([userDataRecords.make(USER_DATA_PREFIX + userId, { type: 'user_data_set', data: { key, value } }, context, this.deps.clock.now())]);
    return undefined;
  }

  /**
   * Calls `onChange` after every committed write of the user's `key` (of any key when none);
   * returns the unsubscribe.
   */
  subscribe(userId: string, key: string | undefined, onChange: () => void): () => void {
    const listener: Listener = (changed) => {
      if (key === undefined || changed === key) onChange();
    };
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(userId) === set) this.listeners.delete(userId);
    };
  }
}
