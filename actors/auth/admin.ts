import type { NewEvent } from '../../store/types.ts';
import type { UserUpdated } from '../../machines/user.machine.ts';
import type { AuthModuleDeps } from './auth-records.ts';
import type { PasswordHasher } from './passwords.ts';
import {
  coreCredentialData,
  newUserData,
  normalizeUsername,
  userStream,
  type CredentialRemoved,
  type PasswordChanged,
  type UserView,
} from './users.ts';
import type { RefreshTokenView } from './tokens.ts';

/** One user as the WebSocket command config/auth/list shows it (the original's fields, in its order). */
export interface UserInfo {
  id: string;
  username: string | null;
  name: string | null;
  is_owner: boolean;
  is_active: boolean;
  local_only: boolean;
  system_generated: boolean;
  group_ids: string[];
  credentials: Array<{ type: string }>;
}

/** Why a user-administration request was refused; named as the original's error codes. */
export type AdminRefusal =
  | 'not_found'
  | 'user_not_found'
  | 'no_delete_self'
  | 'cannot_modify_system_generated'
  | 'cannot_deactivate_owner'
  | 'invalid_group'
  | 'system_generated'
  | 'username_exists'
  | 'auth_not_found'
  | 'credentials_not_found'
  | 'invalid_current_password';

export type AdminOutcome<T = undefined> = { ok: true; value: T } | { ok: false; reason: AdminRefusal };

/** What config/auth/update may change; absent fields stay as they are. */
export interface UserChanges {
  name?: string;
  isActive?: boolean;
  groupIds?: string[];
  localOnly?: boolean;
}

/** The user administration (config/auth/* and config/auth_provider/homeassistant/*). */
export interface UserAdmin {
  listUsers(): UserInfo[];
  /** A new active user without credentials; the owner only when no other user exists. */
  createUser(actorId: string, input: { name: string; groupIds?: string[]; localOnly?: boolean }): Promise<AdminOutcome<UserInfo>>;
  updateUser(actorId: string, userId: string, changes: UserChanges): Promise<AdminOutcome<UserInfo>>;
  /** Removes the user, its credentials and its refresh tokens (whose access tokens fail at once). */
  deleteUser(actorId: string, userId: string): Promise<AdminOutcome>;
  /** A `core` credential (username and password) for an existing user. */
  addCoreCredential(actorId: string, userId: string, username: string, password: string): Promise<AdminOutcome>;
  /** Removes the `core` credential of `username`, and so its password. */
  removeCoreCredential(actorId: string, username: string): Promise<AdminOutcome>;
  /** The user changes the password of its own (first) `core` credential. */
  changeOwnPassword(userId: string, currentPassword: string, newPassword: string): Promise<AdminOutcome>;
  /** Sets the password of a user's (first) `core` credential without the current one. */
  setPassword(actorId: string, userId: string, password: string): Promise<AdminOutcome>;
}

/** The `core` provider's passwords as the supervisor's auth helper checks and resets them (the hassio endpoints). */
export interface CorePasswords {
  /** Whether `username` and `password` are a `core` credential's (the provider's check, as a login form makes it). */
  checkCoreLogin(username: string, password: string): Promise<boolean>;
  /** Sets the password of the `core` credential `username`; false when there is none. */
  resetCorePassword(actorId: string, username: string, password: string): Promise<boolean>;
}

/** What user administration needs beyond the shared parts. */
export interface UserAdminDeps extends AuthModuleDeps {
  hasher: PasswordHasher;
  providerType: string;
  tokensOf(userId: string): RefreshTokenView[];
  /** revokes `rts` in the same append as `extra`, then tells the revocation listeners */
  revokeWith(rts: RefreshTokenView[], reason: string, extra: NewEvent[]): Promise<void>;
}

const refuse = (reason: AdminRefusal): { ok: false; reason: AdminRefusal } => ({ ok: false, reason });

/** The user administration over the shared users view; removing a user revokes its tokens with it. */
export function createUserAdmin(deps: UserAdminDeps): UserAdmin {
  const { users, clock, ids, hasher, providerType } = deps;
  const { record, append } = deps.records;
  /** a group id no system or configured group has (the original's "Invalid group specified") */
  const unknownGroup = (groupIds: string[] | undefined) => groupIds?.some((g) => !users.groups.has(g)) ?? false;
  /** normalised usernames whose credential is being created (the check and the append are apart) */
  const usernamesInProgress = new Set<string>();

  function info(user: UserView): UserInfo {
    const credentials = users.credentialsOf(user.id);
    const core = credentials.find((c) => c.auth_provider_type === providerType);
    return {
      id: user.id,
      username: core?.data.username ?? null,
      name: user.name,
      is_owner: user.isOwner,
      is_active: user.isActive,
      local_only: user.localOnly,
      system_generated: user.systemGenerated,
      group_ids: [...user.groupIds],
      credentials: credentials.map((c) => ({ type: c.auth_provider_type })),
    };
  }

  const coreCredentialOf = (userId: string) => users.credentialsOf(userId).find((c) => c.auth_provider_type === providerType);

  return {
    listUsers: () => users.all().map(info),

    async createUser(actorId, { name, groupIds, localOnly }) {
      if (unknownGroup(groupIds)) return refuse('invalid_group');
      const now = clock.now();
      const created = newUserData(ids, now, { name, isOwner: !users.hasUsers(), groupIds: groupIds ?? [], localOnly });
      await append(record(userStream(created.id), { type: 'user_created', data: created }, actorId, now));
      const user = users.get(created.id);
      return user ? { ok: true, value: info(user) } : refuse('not_found');
    },

    async updateUser(actorId, userId, { name, isActive, groupIds, localOnly }) {
      const user = users.get(userId);
      if (!user) return refuse('not_found');
      if (user.systemGenerated) return refuse('cannot_modify_system_generated');
      if (user.isOwner && isActive === false) return refuse('cannot_deactivate_owner');
      if (unknownGroup(groupIds)) return refuse('invalid_group');
      const stream = userStream(userId);
      const events: NewEvent[] = [];
      if (name !== undefined || groupIds !== undefined || localOnly !== undefined) {
        const update: UserUpdated = {};
        if (name !== undefined) update.name = name;
        if (groupIds !== undefined) update.group_ids = [...groupIds];
        if (localOnly !== undefined) update.local_only = localOnly;
        events.push(record(stream, { type: 'user_updated', data: update }, actorId));
      }
      if (isActive !== undefined) {
        const type = isActive ? 'user_activated' : 'user_deactivated';
        if (users.can(userId, { type })) events.push(record(stream, { type, data: {} }, actorId));
      }
      if (events.length > 0) await append(...events);
      const updated = users.get(userId);
      return updated ? { ok: true, value: info(updated) } : refuse('not_found');
    },

    async deleteUser(actorId, userId) {
      if (userId === actorId) return refuse('no_delete_self');
      if (!users.get(userId)) return refuse('not_found');
      const stream = userStream(userId);
      const removed = users.credentialsOf(userId).map((c) => {
        const data: CredentialRemoved = { credential_id: c.id };
        return record(stream, { type: 'credential_removed', data: data }, actorId);
      });
      await deps.revokeWith(deps.tokensOf(userId), 'user_removed', [...removed, record(stream, { type: 'user_deleted', data: {} }, actorId)]);
      return { ok: true, value: undefined };
    },

    async addCoreCredential(actorId, userId, username, password) {
      const user = users.get(userId);
      if (!user) return refuse('not_found');
      if (user.systemGenerated) return refuse('system_generated');
      const key = normalizeUsername(username);
      if (users.coreCredential(key) || usernamesInProgress.has(key)) return refuse('username_exists');
      usernamesInProgress.add(key);
      try {
        const passwordHash = await hasher.hash(password);
        if (!users.get(userId)) return refuse('not_found'); // deleted while hashing
        const credential = coreCredentialData(ids, userId, key, passwordHash);
        await append(record(userStream(userId), { type: 'credential_added', data: credential }, actorId));
        return { ok: true, value: undefined };
      } finally {
        usernamesInProgress.delete(key);
      }
    },

    async removeCoreCredential(actorId, username) {
      const credential = users.coreCredential(username);
      if (!credential) return refuse('auth_not_found');
      const data: CredentialRemoved = { credential_id: credential.id };
      await append(record(userStream(credential.user_id), { type: 'credential_removed', data: data }, actorId));
      return { ok: true, value: undefined };
    },

    async changeOwnPassword(userId, currentPassword, newPassword) {
      if (!users.get(userId)) return refuse('user_not_found');
      const credential = coreCredentialOf(userId);
      if (!credential) return refuse('credentials_not_found');
      const hash = users.passwordHash(credential.id);
      if (hash === undefined || !(await hasher.verify(currentPassword, hash))) return refuse('invalid_current_password');
      if (!users.credential(credential.id)) return refuse('credentials_not_found'); // removed meanwhile
      await storePassword(deps, credential, userId, newPassword);
      return { ok: true, value: undefined };
    },

    async setPassword(actorId, userId, password) {
      if (!users.get(userId)) return refuse('user_not_found');
      const credential = coreCredentialOf(userId);
      if (!credential) return refuse('credentials_not_found');
      await storePassword(deps, credential, actorId, password);
      return { ok: true, value: undefined };
    },
  };
}

/** The `core` passwords: a check that costs the same for an unknown username, and a reset. */
export function createCorePasswords({ users, records, hasher }: Pick<UserAdminDeps, 'users' | 'records' | 'hasher'>): CorePasswords {
  return {
    async checkCoreLogin(username, password) {
      const credential = users.coreCredential(username);
      const hash = credential && users.passwordHash(credential.id);
      if (!credential || hash === undefined) {
        await hasher.burn(password); // an unknown username costs the same as a wrong password
        return false;
      }
      return hasher.verify(password, hash);
    },

    async resetCorePassword(actorId, username, password) {
      const credential = users.coreCredential(username);
      if (!credential) return false;
      await storePassword({ records, hasher }, credential, actorId, password);
      return true;
    },
  };
}

/** Hashes `password` and records it as the credential's (`password_changed`, made by `actorId`). */
async function storePassword(
  { records, hasher }: Pick<UserAdminDeps, 'records' | 'hasher'>,
  credential: { id: string; user_id: string },
  actorId: string,
  password: string,
): Promise<void> {
  const changed: PasswordChanged = { credential_id: credential.id, password_hash: await hasher.hash(password) };
  await records.append(records.record(userStream(credential.user_id), { type: 'password_changed', data: changed }, actorId));
}
