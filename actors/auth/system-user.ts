import type { AuthModuleDeps } from './auth-records.ts';
import type { TokenIssuer } from './token-issuer.ts';
import { newUserData, userStream } from './users.ts';

/** System-generated users with a `system` refresh token: how the core hands another program access. */
export interface SystemUsers {
  /**
   * The system-generated user `name` (made with `groupIds` when there is none) and a live
   * `system` refresh token of it (made when it has none): how the core hands a supervisor API
   * access. The same user and token on every later call.
   */
  ensureSystemUser(name: string, groupIds: string[]): Promise<{ userId: string; refreshToken: string }>;
}

/** The system users, made through the shared users view and the token issuer. */
export function createSystemUsers({ users, records, clock, ids, issuer }: AuthModuleDeps & { issuer: Pick<TokenIssuer, 'create' | 'store'> }): SystemUsers {
  return {
    async ensureSystemUser(name, groupIds) {
      let user = users.all().find((candidate) => candidate.systemGenerated && candidate.name === name);
      if (!user) {
        const now = clock.now();
        const created = { ...newUserData(ids, now, { name, isOwner: false, groupIds }), system_generated: true };
        await records.append(records.record(userStream(created.id), { type: 'user_created', data: created }, null, now));
        user = users.get(created.id)!;
      } else if (groupIds.some((groupId) => !user!.groupIds.includes(groupId))) {
        // an older system user without the admin group (the original migrates it the same way)
        await records.append(records.record(userStream(user.id), { type: 'user_updated', data: { group_ids: [...new Set([...user.groupIds, ...groupIds])] } }, null));
      }
      const live = issuer.store.ofUser(user.id).find((rt) => rt.tokenType === 'system');
      if (live) return { userId: user.id, refreshToken: issuer.store.get(live.id)!.token };
      const created = issuer.create(user, { clientId: null, credentialId: null, tokenType: 'system' });
      await records.append(created);
      return { userId: user.id, refreshToken: created.data.token };
    },
  };
}
