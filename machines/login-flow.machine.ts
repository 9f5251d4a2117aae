import { assign, fromPromise, setup } from 'xstate';

/** Who the credentials step found: the credential, its user (null before a first login) and the user's MFA modules. */
export interface VerifiedCredential {
  credentialId: string;
  userId: string | null;
  mfaModules: string[];
}

/** What the credentials step found: a credential, a refusal (null: `invalid_auth`), or a reason to abort the flow. */
export type CredentialCheck = VerifiedCredential | null | { abortReason: string };

/** What a data-entry flow step shows besides its form: `{base: 'invalid_auth'}` and the like. */
export type FlowErrors = Record<string, string>;

/** What a flow starts with. */
export interface LoginFlowInput {
  flowId: string;
  /** epoch ms; the MFA step expires relative to it */
  startedAt: number;
  /** a flow that only yields a credential (`link_user`): no MFA step, as in the original */
  credentialOnly?: boolean;
}

/** The flow's state besides its step; never holds a password. */
export interface LoginFlowContext {
  flowId: string;
  startedAt: number;
  credentialOnly: boolean;
  errors: FlowErrors;
  /** the username of the last submission (never the password) */
  username: string | null;
  credential: VerifiedCredential | null;
  mfaModule: string | null;
  mfaRetries: number;
  abortReason: string | null;
}

/** One submission of a form step; `input` already passed the step's schema. `at` is epoch ms. */
export type LoginFlowEvent = { type: 'submit'; input: Record<string, string>; at: number };

/** The finished flow's result: the credential that logged in. */
export type LoginFlowOutput = { credential: VerifiedCredential } | { abortReason: string };

/** The original's totp module gives up on an MFA step after five wrong codes (MAX_RETRY_TIME), or five minutes. */
const MFA_MAX_RETRIES = 5;
const MFA_LOGIN_WINDOW_MS = 5 * 60 * 1000;

/**
 * The login flow of a username/password provider as a data-entry flow: the `init` form, the
 * credential check (an injected actor), an optional MFA step, then `finished` (create_entry) or
 * `aborted`. States tagged `form` are the ones a client sees as `type: "form"`.
 */
export const loginFlowMachine = setup({
  types: {
    context: {} as LoginFlowContext,
    events: {} as LoginFlowEvent,
    input: {} as LoginFlowInput,
    output: {} as LoginFlowOutput,
    tags: {} as 'form',
  },
  actors: {
    // supplied by the actor layer; a machine never checks a password itself
    verifyCredentials: fromPromise<CredentialCheck, { flowId: string; fields: Record<string, string> }>(async () => {
      throw new Error('verifyCredentials was not provided');
    }),
    verifyMfaCode: fromPromise<boolean, { userId: string | null; module: string; code: string }>(async () => {
      throw new Error('verifyMfaCode was not provided');
    }),
  },
  guards: {
    credentialsRejected: (_, output: CredentialCheck) => output === null,
    checkAborted: (_, output: CredentialCheck) => output !== null && 'abortReason' in output,
    needsMfa: ({ context }, output: VerifiedCredential) => !context.credentialOnly && output.mfaModules.length > 0,
    severalMfaModules: ({ context }, output: VerifiedCredential) => !context.credentialOnly && output.mfaModules.length > 1,
    enabledModule: ({ context, event }) => context.credential?.mfaModules.includes(event.input.multi_factor_auth_module ?? '') ?? false,
    codeRejected: (_, valid: boolean) => !valid,
    outOfRetries: ({ context }) => context.mfaRetries + 1 >= MFA_MAX_RETRIES,
    loginExpired: ({ context, event }) => event.at - context.startedAt > MFA_LOGIN_WINDOW_MS,
  },
  actions: {
    rememberUsername: assign({ username: ({ event }) => event.input.username ?? null }),
    showInvalidAuth: assign({ errors: { base: 'invalid_auth' } }),
    showInvalidCode: assign({
      errors: { base: 'invalid_code' },
      mfaRetries: ({ context }) => context.mfaRetries + 1,
    }),
    rememberCredential: assign({ credential: (_, output: VerifiedCredential) => output, errors: {} }),
    chooseFirstMfaModule: assign({ mfaModule: ({ context }) => context.credential?.mfaModules[0] ?? null }),
    chooseMfaModule: assign({ mfaModule: ({ event }) => event.input.multi_factor_auth_module ?? null, errors: {} }),
    showInvalidAuthModule: assign({ errors: { base: 'invalid_auth_module' } }),
    abortWith: assign({ abortReason: (_, reason: string) => reason }),
  },
}).createMachine({
  id: 'loginFlow',
  initial: 'init',
  context: ({ input }) => ({
    flowId: input.flowId,
    startedAt: input.startedAt,
    credentialOnly: input.credentialOnly ?? false,
    errors: {},
    username: null,
    credential: null,
    mfaModule: null,
    mfaRetries: 0,
    abortReason: null,
  }),
  states: {
    init: {
      tags: ['form'],
      on: { submit: { target: 'checkingCredentials', actions: 'rememberUsername' } },
    },
    checkingCredentials: {
      invoke: {
        src: 'verifyCredentials',
        input: ({ context, event }) => ({ flowId: context.flowId, fields: event.input }),
        onDone: [
          { guard: { type: 'credentialsRejected', params: ({ event }) => event.output }, target: 'init', actions: 'showInvalidAuth' },
          {
            guard: { type: 'checkAborted', params: ({ event }) => event.output },
            target: 'aborted',
            actions: { type: 'abortWith', params: ({ event }) => (event.output as { abortReason: string }).abortReason },
          },
          {
            guard: { type: 'severalMfaModules', params: ({ event }) => event.output as VerifiedCredential },
            target: 'selectMfaModule',
            actions: { type: 'rememberCredential', params: ({ event }) => event.output as VerifiedCredential },
          },
          {
            guard: { type: 'needsMfa', params: ({ event }) => event.output as VerifiedCredential },
            target: 'mfa',
            actions: [{ type: 'rememberCredential', params: ({ event }) => event.output as VerifiedCredential }, 'chooseFirstMfaModule'],
          },
          { target: 'finished', actions: { type: 'rememberCredential', params: ({ event }) => event.output as VerifiedCredential } },
        ],
        onError: { target: 'aborted', actions: { type: 'abortWith', params: 'unknown_error' } },
      },
    },
    // the user has several MFA modules enabled: which one to use
    selectMfaModule: {
      tags: ['form'],
      on: {
        submit: [
          { guard: 'enabledModule', target: 'mfa', actions: 'chooseMfaModule' },
          { target: 'selectMfaModule', actions: 'showInvalidAuthModule' },
        ],
      },
    },
    // reached only when the user has an MFA module enabled
    mfa: {
      tags: ['form'],
      on: {
        submit: [
          { guard: 'loginExpired', target: 'aborted', actions: { type: 'abortWith', params: 'login_expired' } },
          { target: 'checkingMfa' },
        ],
      },
    },
    checkingMfa: {
      invoke: {
        src: 'verifyMfaCode',
        input: ({ context, event }) => ({
          userId: context.credential?.userId ?? null,
          module: context.mfaModule ?? '',
          code: (event as LoginFlowEvent).input.code ?? '',
        }),
        onDone: [
          {
            guard: { type: 'codeRejected', params: ({ event }) => event.output },
            target: 'retryOrGiveUp',
          },
          { target: 'finished' },
        ],
        onError: { target: 'aborted', actions: { type: 'abortWith', params: 'unknown_error' } },
      },
    },
    retryOrGiveUp: {
      always: [
        { guard: 'outOfRetries', target: 'aborted', actions: { type: 'abortWith', params: 'too_many_retry' } },
        { target: 'mfa', actions: 'showInvalidCode' },
      ],
    },
    finished: { type: 'final' },
    aborted: { type: 'final' },
  },
  output: ({ context }) =>
    context.credential && context.abortReason === null ? { credential: context.credential } : { abortReason: context.abortReason ?? 'unknown_error' },
});
