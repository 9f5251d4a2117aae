import type { AuthModuleDeps } from './auth-records.ts';
import { MfaSetupFlows, mfaModulesOf, verifyLoginCode, type MfaModule, type MfaModuleConfig } from './mfa.ts';
import { userStream, type Users } from './users.ts';
import type { CurrentUser } from './types.ts';

/** What auth/setup_mfa and auth/depose_mfa led to: a result, or a WebSocket error code and message. */
export type MfaOutcome = { ok: true; result: unknown } | { ok: false; code: string; message: string };

/** Setting a second factor up and taking it away (the WebSocket commands auth/setup_mfa and auth/depose_mfa). */
export interface MfaSetup {
  /**
   * auth/setup_mfa: starts the setup flow of `moduleId`, or feeds `input` to the flow `flowId`;
   * the answer is the flow's result dict. A finished flow enables the module (an `mfa_enabled` record).
   */
  setupMfa(userId: string, request: { moduleId: string } | { flowId: string; input: unknown }): Promise<MfaOutcome>;
  /** auth/depose_mfa: disables the module for the user (an `mfa_disabled` record when it was enabled). */
  deposeMfa(userId: string, moduleId: string): Promise<MfaOutcome>;
}

/** The configured multi-factor modules and which of them each user has enabled (its `mfa_enabled` records). */
export class MfaModules {
  private readonly modules: MfaModule[];

  constructor(configs: MfaModuleConfig[] | undefined, private readonly users: Users) {
    this.modules = mfaModulesOf(configs);
  }

  find(moduleId: string): MfaModule | undefined {
    return this.modules.find((module) => module.id === moduleId);
  }

  /** The module's name as the login flow's MFA steps show it (its id when it is not configured). */
  nameOf(moduleId: string): string {
    return this.find(moduleId)?.name ?? moduleId;
  }

  /** The configured modules the user has enabled, in configuration order. */
  enabledFor(userId: string): string[] {
    const enabled = this.users.mfaOf(userId);
    return this.modules.filter((module) => Object.hasOwn(enabled, module.id)).map((module) => module.id);
  }

  /** Every configured module with whether the user has it enabled (auth/current_user). */
  statusOf(userId: string): CurrentUser['mfa_modules'] {
    return this.modules.map(({ id, name }) => ({ id, name, enabled: Object.hasOwn(this.users.mfaOf(userId), id) }));
  }

  /** Whether `code` is the login code of the user's module now; an unknown user or module costs a check too. */
  verifyLoginCode(userId: string | null, moduleId: string, code: string, nowMs: number): boolean {
    const enabled = userId === null ? {} : this.users.mfaOf(userId);
    const secret = Object.hasOwn(enabled, moduleId) ? enabled[moduleId] : undefined;
    return verifyLoginCode(secret, code, nowMs);
  }
}

/** The MFA setup commands, their flows in memory and their records on the user's stream. */
export function createMfaSetup({ users, records, clock, ids, modules }: AuthModuleDeps & { modules: MfaModules }): MfaSetup {
  const setupFlows = new MfaSetupFlows({ clock, ids });
  const unauthorized: MfaOutcome = { ok: false, code: 'unauthorized', message: 'Unauthorized' };

  return {
    async setupMfa(userId, request) {
      const user = users.get(userId);
      if (!user || user.systemGenerated) return unauthorized;
      if ('moduleId' in request) {
        const module = modules.find(request.moduleId);
        if (!module) return { ok: false, code: 'no_module', message: `MFA module ${request.moduleId} is not found` };
        const started = setupFlows.start(module, userId, user.name ?? 'None');
        return started.kind === 'result' ? { ok: true, result: started.body } : { ok: false, code: 'unknown_error', message: 'Unknown error' };
      }
      const outcome = setupFlows.step(request.flowId, userId, request.input);
      if (outcome.kind === 'unknown_flow') return { ok: false, code: 'not_found', message: 'Flow not found' };
      if (outcome.kind === 'malformed') return { ok: false, code: 'invalid_format', message: 'User input malformed' };
      if (outcome.enable) {
        const { moduleId, secret } = outcome.enable;
        await records.append(records.record(userStream(userId), { type: 'mfa_enabled', data: { module_id: moduleId, secret } }, userId));
      }
      return { ok: true, result: outcome.body };
    },

    async deposeMfa(userId, moduleId) {
      const user = users.get(userId);
      if (!user || user.systemGenerated) return unauthorized;
      if (!modules.find(moduleId)) {
        return { ok: false, code: 'disable_failed', message: `Cannot disable MFA Module ${moduleId}: Unable find multi-factor auth module: ${moduleId}` };
      }
      if (Object.hasOwn(users.mfaOf(userId), moduleId)) {
        await records.append(records.record(userStream(userId), { type: 'mfa_disabled', data: { module_id: moduleId } }, userId));
      }
      return { ok: true, result: 'done' };
    },
  };
}
