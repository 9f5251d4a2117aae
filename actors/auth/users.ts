import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { userEventOf, userMachine, type UserCreated, type UserEvent, type UserStepRecord } from '../../machines/user.machine.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { GROUP_ADMIN, Groups } from './groups.ts';
import { ALL, NONE, NOWHERE, UserPermissions, compilePolicy, type EntityPermissions, type EntityPlacement } from './permissions.ts';

export { GROUP_ADMIN, GROUP_READ_ONLY, GROUP_USERS } from './groups.ts';

/** The stream of one user: its lifecycle and its credentials. */
export const userStream = (userId: string) => `auth/user/${userId}`;

/** A way to log in, owned by a user. `data` is provider specific (`{username}` for `core`). */
export interface Credential {
  id: string;
  user_id: string;
  auth_provider_type: string;
  auth_provider_id: string | null;
  data: Record<string, string>;
}

/** Data of a `credential_added` record; `password_hash` only for the `core` provider. */
export interface CredentialAdded extends Credential {
  password_hash?: string;
}

/** Data of a `password_changed` record. */
export interface PasswordChanged {
  credential_id: string;
  password_hash: string;
}

/** Data of a `credential_removed` record: the credential and, for `core`, its password are gone. */
export interface CredentialRemoved {
  credential_id: string;
}

/** The records of a user's stream `auth/user/<id>`: its lifecycle and its credentials. */
export type UserRecord =
  | { type: 'user_created'; data: UserCreated }
  | UserStepRecord
  | { type: 'credential_added'; data: CredentialAdded }
  | { type: 'password_changed'; data: PasswordChanged }
  | { type: 'credential_removed'; data: CredentialRemoved };
export const userRecords = typedRecords<UserRecord>('auth/user/', {
  user_created: true,
  user_activated: true,
  user_deactivated: true,
  user_updated: true,
  user_owner_set: true,
  user_deleted: true,
  mfa_enabled: true,
  mfa_disabled: true,
  credential_added: true,
  password_changed: true,
  credential_removed: true,
});

/** A user as the rest of the auth system reads it. */
export interface UserView {
  id: string;
  name: string | null;
  isOwner: boolean;
  isActive: boolean;
  isAdmin: boolean;
  systemGenerated: boolean;
  localOnly: boolean;
  groupIds: string[];
  createdAt: number;
}

export type UserSnapshot = SnapshotFrom<typeof userMachine>;

/** A user's view from its machine snapshot (an owner is always an admin; an inactive user is not). */
export function userViewOf(snapshot: UserSnapshot): UserView {
  const c = snapshot.context;
  const isActive = snapshot.value === 'active';
  return {
    id: c.id,
    name: c.name,
    isOwner: c.isOwner,
    isActive,
    isAdmin: c.isOwner || (isActive && c.groupIds.includes(GROUP_ADMIN)),
    systemGenerated: c.systemGenerated,
    localOnly: c.localOnly,
    groupIds: c.groupIds,
    createdAt: c.createdAt,
  };
}

/** Persisted form of the users (area snapshot). */
export interface UsersSnapshot {
  users: Array<{ value: unknown; context: unknown }>;
  credentials: CredentialAdded[];
}

/** The provider whose credentials hold a username and a password hash (the original's `homeassistant`). */
export const CORE_PROVIDER = 'core';

/** The data of a `user_created` record for a new, active, not system-generated user. */
export function newUserData(
  ids: { uuidHex(): string },
  now: number,
  user: { name: string | null; isOwner: boolean; groupIds: string[]; localOnly?: boolean },
): UserCreated {
  return {
    id: ids.uuidHex(),
    name: user.name,
    is_owner: user.isOwner,
    is_active: true,
    system_generated: false,
    local_only: user.localOnly ?? false,
    group_ids: [...user.groupIds],
    created_at: now,
  };
}

/** The data of a `credential_added` record: a username (already normalised) and its password hash. */
export function coreCredentialData(ids: { uuidHex(): string }, userId: string, username: string, passwordHash: string): CredentialAdded {
  return { id: ids.uuidHex(), user_id: userId, auth_provider_type: CORE_PROVIDER, auth_provider_id: null, data: { username }, password_hash: passwordHash };
}

/** The usernames of the `core` provider compare trimmed and lower-cased. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}


/** The users and credentials, rebuilt from their log records. */
export class Users {
  private readonly users = new Map<string, UserSnapshot>();
  private readonly credentials = new Map<string, Credential>();
  private readonly hashes = new Map<string, string>();
  private readonly byUsername = new Map<string, string>();
  /** read on every authenticated request, so built once per transition */
  private readonly views = new Map<string, UserView>();
  /** compiled once per user, and again when one of its records changes it */
  private readonly permits = new Map<string, UserPermissions>();

  constructor(
    readonly groups: Groups = new Groups(),
    /** where entities sit (the registries), for policies by device and area */
    private readonly placement: EntityPlacement = NOWHERE,
  ) {}

  /** Applies one committed record of an `auth/user/...` stream. */
  evolve(record: RecordOf<UserRecord>): void {
    if (record.type === 'user_created') {
      const created = record.data;
      this.users.set(created.id, initialTransition(userMachine, created)[0]);
      this.changed(created.id);
    } else if (record.type === 'credential_added') {
      this.addCredential(record.data);
    } else if (record.type === 'password_changed') {
      const changed = record.data;
      if (this.credentials.has(changed.credential_id)) this.hashes.set(changed.credential_id, changed.password_hash);
    } else if (record.type === 'credential_removed') {
      this.removeCredential(record.data.credential_id);
    } else {
      const userId = record.stream.slice('auth/user/'.length);
      const current = this.users.get(userId);
      const event = userEventOf(record);
      if (current?.can(event)) {
        const next = transition(userMachine, current, event)[0];
        if (next.status === 'done') {
          // a deleted user is gone, and so is every way to log in as it
          this.users.delete(userId);
          for (const c of this.credentialsOf(userId)) this.removeCredential(c.id);
        } else {
          this.users.set(userId, next);
        }
        this.changed(userId);
      }
    }
  }

  /** The machine snapshot of a user (what the authpub/ records are derived from). */
  machine(userId: string): UserSnapshot | undefined {
    return this.users.get(userId);
  }

  /** Whether `event` would apply to the user now (the machine's guards decide). */
  can(userId: string, event: UserEvent): boolean {
    return this.users.get(userId)?.can(event) ?? false;
  }

  get(userId: string): UserView | undefined {
    const cached = this.views.get(userId);
    if (cached) return cached;
    const snapshot = this.users.get(userId);
    if (!snapshot) return undefined;
    const view = userViewOf(snapshot);
    this.views.set(userId, view);
    return view;
  }

  /**
   * The user's permissions as they are now: all of them for the owner, else the merged policy
   * of its groups; none for a user that does not exist. The same object for as long as the user
   * exists, updated when its records change it.
   */
  permissions(userId: string): EntityPermissions {
    let permits = this.permits.get(userId);
    if (!permits) {
      if (!this.users.has(userId)) return NONE;
      permits = new UserPermissions(this.compile(userId));
      this.permits.set(userId, permits);
    }
    return permits;
  }

  private compile(userId: string): EntityPermissions {
    const snapshot = this.users.get(userId);
    if (!snapshot) return NONE;
    if (snapshot.context.isOwner) return ALL;
    return compilePolicy(this.groups.policyOf(snapshot.context.groupIds), this.placement);
  }

  /** A record changed the user: its view is built again when next read, its permissions now. */
  private changed(userId: string): void {
    this.views.delete(userId);
    const permits = this.permits.get(userId);
    if (!permits) return;
    permits.set(this.compile(userId));
    if (!this.users.has(userId)) this.permits.delete(userId);
  }

  /** Every user, in creation order. */
  all(): UserView[] {
    return [...this.users.keys()].map((id) => this.get(id)!);
  }

  /** True once a user that is not system-generated exists. */
  hasUsers(): boolean {
    for (const snapshot of this.users.values()) if (!snapshot.context.systemGenerated) return true;
    return false;
  }

  credential(id: string): Credential | undefined {
    return this.credentials.get(id);
  }

  credentialsOf(userId: string): Credential[] {
    return [...this.credentials.values()].filter((c) => c.user_id === userId);
  }

  /** The owned credential of a provider (type and id) whose data has `field` set to `value`. */
  credentialOf(provider: { type: string; id: string | null }, field: string, value: string): Credential | undefined {
    for (const c of this.credentials.values()) {
      if (c.auth_provider_type === provider.type && c.auth_provider_id === provider.id && c.data[field] === value) return c;
    }
    return undefined;
  }

  /** The `core` credential of a (normalised) username. */
  coreCredential(username: string): Credential | undefined {
    const id = this.byUsername.get(normalizeUsername(username));
    return id === undefined ? undefined : this.credentials.get(id);
  }

  /** The user's enabled multi-factor modules: module id → secret. */
  mfaOf(userId: string): Record<string, string> {
    return this.users.get(userId)?.context.mfa ?? {};
  }

  passwordHash(credentialId: string): string | undefined {
    return this.hashes.get(credentialId);
  }

  snapshot(): UsersSnapshot {
    return {
      users: [...this.users.values()].map((s) => ({ value: s.value, context: s.context })),
      credentials: [...this.credentials.values()].map((c) => {
        const hash = this.hashes.get(c.id);
        return hash === undefined ? { ...c } : { ...c, password_hash: hash };
      }),
    };
  }

  restore(data: UsersSnapshot): void {
    this.users.clear();
    this.credentials.clear();
    this.hashes.clear();
    this.byUsername.clear();
    this.views.clear();
    for (const u of data.users) {
      const snapshot = userMachine.resolveState(u as Parameters<typeof userMachine.resolveState>[0]);
      this.users.set(snapshot.context.id, snapshot);
    }
    for (const c of data.credentials) this.addCredential(c);
    for (const userId of [...this.permits.keys()]) this.changed(userId);
  }

  private removeCredential(id: string): void {
    const credential = this.credentials.get(id);
    if (!credential) return;
    this.credentials.delete(id);
    this.hashes.delete(id);
    const username = credential.data.username;
    if (credential.auth_provider_type === 'core' && typeof username === 'string' && this.byUsername.get(normalizeUsername(username)) === id) {
      this.byUsername.delete(normalizeUsername(username));
    }
  }

  private addCredential(added: CredentialAdded): void {
    const { password_hash, ...credential } = added;
    this.credentials.set(credential.id, credential);
    if (password_hash !== undefined) this.hashes.set(credential.id, password_hash);
    if (credential.auth_provider_type === 'core' && typeof credential.data.username === 'string') {
      this.byUsername.set(normalizeUsername(credential.data.username), credential.id);
    }
  }
}
