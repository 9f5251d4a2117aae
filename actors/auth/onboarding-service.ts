import type { NewEvent } from '../../store/types.ts';
import type { AuthModuleDeps } from './auth-records.ts';
import type { Principal } from './types.ts';
import { verifyRedirectUri, type FetchPage } from './client-id.ts';
import type { AuthCodes } from './codes.ts';
import { ONBOARDING_STEPS, ONBOARDING_STREAM, type Onboarding, type OnboardingStep } from './onboarding.ts';
import type { PasswordHasher } from './passwords.ts';
import type { RefreshTokenView } from './tokens.ts';
import { GROUP_ADMIN, coreCredentialData, newUserData, normalizeUsername, userStream } from './users.ts';

/** What the onboarding integration step led to. */
export type IntegrationStepOutcome = { ok: true; code: string } | { ok: false; reason: 'already_done' | 'invalid_redirect' | 'no_credential' };

/** The onboarding steps (the /api/onboarding routes). */
export interface OnboardingService {
  /** The onboarding steps in order with their state. */
  onboardingStatus(): Array<{ step: OnboardingStep; done: boolean }>;
  /** The onboarding user step: creates the owner (admin) with a `core` credential; an auth code for it. */
  createOwner(input: { name: string; username: string; password: string; clientId: string }): Promise<{ ok: true; code: string } | { ok: false }>;
  /** Marks a step without side effects done (core_config, analytics); false when it already was. */
  completeOnboardingStep(step: 'core_config' | 'analytics', userId: string): Promise<boolean>;
  /** The onboarding integration step: an auth code for the caller's credential. */
  completeIntegrationStep(principal: Principal, clientId: string, redirectUri: string): Promise<IntegrationStepOutcome>;
}

/** What the onboarding module needs beyond the shared parts. */
export interface OnboardingDeps extends AuthModuleDeps {
  /** which steps are done, rebuilt from `onboarding_step_done` records by the auth area */
  progress: Onboarding;
  hasher: PasswordHasher;
  /** the login module's authorization codes: each step that signs someone in ends with one */
  codes: Pick<AuthCodes, 'create'>;
  refreshToken(id: string): RefreshTokenView | undefined;
  fetchPage: FetchPage;
}

/** The onboarding steps, each done once: the first that finishes records it, a second attempt is refused. */
export function createOnboardingService(deps: OnboardingDeps): OnboardingService {
  const { progress, users, records, clock, ids, hasher, codes } = deps;
  /** steps whose record is being made (the check and the append are apart) */
  const stepsInProgress = new Set<OnboardingStep>();

  async function markStep(step: OnboardingStep, userId: string | null, extra: NewEvent[] = []): Promise<boolean> {
    if (progress.isDone(step) || stepsInProgress.has(step)) return false;
    stepsInProgress.add(step);
    try {
      await records.append(...extra, records.record(ONBOARDING_STREAM, { type: 'onboarding_step_done', data: { step } }, userId));
      return true;
    } finally {
      stepsInProgress.delete(step);
    }
  }

  return {
    onboardingStatus: () => ONBOARDING_STEPS.map((step) => ({ step, done: progress.isDone(step) })),

    async createOwner({ name, username, password, clientId }) {
      if (progress.isDone('user') || stepsInProgress.has('user')) return { ok: false };
      stepsInProgress.add('user');
      let passwordHash: string;
      try {
        passwordHash = await hasher.hash(password);
      } finally {
        stepsInProgress.delete('user');
      }
      const now = clock.now();
      const created = newUserData(ids, now, { name, isOwner: !users.hasUsers(), groupIds: [GROUP_ADMIN] });
      const credential = coreCredentialData(ids, created.id, normalizeUsername(username), passwordHash);
      const done = await markStep('user', null, [
        records.record(userStream(created.id), { type: 'user_created', data: created }, null, now),
        records.record(userStream(created.id), { type: 'credential_added', data: credential }, null, now),
      ]);
      if (!done) return { ok: false };
      return { ok: true, code: codes.create(clientId, credential.id) };
    },

    completeOnboardingStep: (step, userId) => markStep(step, userId),

    async completeIntegrationStep(principal, clientId, redirectUri) {
      if (progress.isDone('integration') || stepsInProgress.has('integration')) return { ok: false, reason: 'already_done' };
      if (!(await verifyRedirectUri(clientId, redirectUri, deps.fetchPage))) return { ok: false, reason: 'invalid_redirect' };
      const rt = deps.refreshToken(principal.refreshTokenId);
      if (!rt?.credentialId || !users.credential(rt.credentialId)) return { ok: false, reason: 'no_credential' };
      if (!(await markStep('integration', principal.userId))) return { ok: false, reason: 'already_done' };
      return { ok: true, code: codes.create(clientId, rt.credentialId) };
    },
  };
}
