import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { json, message, plainError, type HttpReply } from '../replies.ts';
import type { HttpRequest } from '../request.ts';
import type { Router } from '../router.ts';
import type { OnboardingService } from '../../actors/auth/onboarding-service.ts';
import { readJsonBody } from './auth.ts';

/** What the onboarding routes need. */
export interface OnboardingRouteDeps {
  auth: OnboardingService;
  /** reported by /api/onboarding/installation_type (the original: "Home Assistant OS", ...) */
  installationType?: string;
}

// GET /api/onboarding ------------------------------------------------------------------------

function getStatus({ auth }: OnboardingRouteDeps) {
  return (): HttpReply => json(200, auth.onboardingStatus());
}

// GET /api/onboarding/installation_type ------------------------------------------------------

function getInstallationType({ auth, installationType = 'Hearth Core' }: OnboardingRouteDeps) {
  // unauthenticated, so it goes quiet as soon as onboarding has begun
  return (): HttpReply => (auth.onboardingStatus().some((s) => s.done) ? plainError(401) : json(200, { installation_type: installationType }));
}

// POST /api/onboarding/users -----------------------------------------------------------------

const OnboardingUser = Type.Object(
  {
    name: Type.String(),
    username: Type.String(),
    password: Type.String(),
    client_id: Type.String(),
    language: Type.String(),
  },
  { additionalProperties: false },
);
const checkOnboardingUser = TypeCompiler.Compile(OnboardingUser);

function postUser({ auth }: OnboardingRouteDeps) {
  return async (req: HttpRequest): Promise<HttpReply> => {
    const body = readJsonBody(req, checkOnboardingUser);
    if (!body.ok) return body.reply;
    const { name, username, password, client_id } = body.value;
    // `language` names the default areas in the original; areas are not created here yet
    const created = await auth.createOwner({ name, username, password, clientId: client_id });
    return created.ok ? json(200, { auth_code: created.code }) : message(403, 'User step already done');
  };
}

// POST /api/onboarding/core_config and /api/onboarding/analytics -----------------------------

function postSimpleStep({ auth }: OnboardingRouteDeps, step: 'core_config' | 'analytics', refusal: string) {
  return async (req: HttpRequest): Promise<HttpReply> =>
    (await auth.completeOnboardingStep(step, req.principal!.userId)) ? json(200, {}) : message(403, refusal);
}

// POST /api/onboarding/integration -----------------------------------------------------------

const OnboardingIntegration = Type.Object({ client_id: Type.String(), redirect_uri: Type.String() }, { additionalProperties: false });
const checkOnboardingIntegration = TypeCompiler.Compile(OnboardingIntegration);

function postIntegration({ auth }: OnboardingRouteDeps) {
  return async (req: HttpRequest): Promise<HttpReply> => {
    const body = readJsonBody(req, checkOnboardingIntegration);
    if (!body.ok) return body.reply;
    const outcome = await auth.completeIntegrationStep(req.principal!, body.value.client_id, body.value.redirect_uri);
    if (outcome.ok) return json(200, { auth_code: outcome.code });
    switch (outcome.reason) {
      case 'already_done':
        return message(403, 'Integration step already done');
      case 'invalid_redirect':
        return message(400, 'invalid client id or redirect uri');
      case 'no_credential':
        return message(403, 'Credentials for user not available');
    }
  };
}

/** Registers /api/onboarding and its step views. */
export function registerOnboardingRoutes(root: Router, deps: OnboardingRouteDeps): void {
  const router = root.of('onboarding');
  router.get('/api/onboarding', { access: 'none' }, getStatus(deps));
  router.get('/api/onboarding/installation_type', { access: 'none' }, getInstallationType(deps));
  router.post('/api/onboarding/users', { access: 'none' }, postUser(deps));
  router.post('/api/onboarding/core_config', { access: 'user' }, postSimpleStep(deps, 'core_config', 'Core config step already done'));
  router.post('/api/onboarding/analytics', { access: 'user' }, postSimpleStep(deps, 'analytics', 'Analytics config step already done'));
  router.post('/api/onboarding/integration', { access: 'user' }, postIntegration(deps));
}
