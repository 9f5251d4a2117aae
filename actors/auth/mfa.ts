import type { Clock, Ids } from '../clock.ts';
import { provisioningUri, randomBase32Secret, verifyTotp } from './totp.ts';
import { qrSvg } from './qr.ts';

/** One configured multi-factor module (the `auth_mfa_modules:` entries of the core section). */
export interface MfaModuleConfig {
  type: string;
  id?: string;
  name?: string;
}

/** A module as the auth system uses it. */
export interface MfaModule {
  id: string;
  type: string;
  name: string;
}

/** The module types Hearth knows, with the original's DEFAULT_TITLE of each. */
export const MFA_MODULE_TITLES: Record<string, string> = { totp: 'Time-based One Time Password' };

/**
 * The original's default when `auth_mfa_modules` is not configured (core_config.py,
 * async_process_ha_core_config): one totp module named "Authenticator app".
 */
export const DEFAULT_MFA_MODULES: MfaModuleConfig[] = [{ type: 'totp', id: 'totp', name: 'Authenticator app' }];

/** The original's totp module gives up on a login after this many wrong codes (MAX_RETRY_TIME). */
export const TOTP_MAX_RETRY_TIME = 5;
/** The original verifies login codes against this secret for an unknown user, for constant timing. */
const DUMMY_SECRET = 'FPPTH34D4E3MI2HG';
/** Setup flows nobody finished are dropped after this long. */
const SETUP_FLOW_TTL_MS = 10 * 60 * 1000;
const MAX_SETUP_FLOWS = 1000;

/** The form field of the totp module (its input_schema, serialised). */
export const TOTP_SCHEMA = [{ type: 'string', name: 'code', required: true }];

export function mfaModulesOf(configs: MfaModuleConfig[] | undefined): MfaModule[] {
  return (configs ?? DEFAULT_MFA_MODULES).map((c) => ({
    id: c.id ?? c.type,
    type: c.type,
    name: c.name ?? MFA_MODULE_TITLES[c.type] ?? 'Unnamed auth module',
  }));
}

interface SetupFlow {
  flowId: string;
  userId: string;
  module: MfaModule;
  userName: string;
  secret: string;
  url: string;
  createdAt: number;
}

/** What a setup-flow step led to: a result dict to answer, and the secret to record when finished. */
export type SetupOutcome =
  | { kind: 'result'; body: Record<string, unknown>; enable?: { userId: string; moduleId: string; secret: string } }
  | { kind: 'unknown_flow' }
  | { kind: 'malformed' };

/** The setup flows of multi-factor modules, in memory (as the original's MfaFlowManager). */
export class MfaSetupFlows {
  private readonly flows = new Map<string, SetupFlow>();

  constructor(private readonly deps: { clock: Clock; ids: Ids }) {}

  /** Starts a flow for `module` (known) and answers its `init` form with a fresh secret. */
  start(module: MfaModule, userId: string, userName: string): SetupOutcome {
    const now = this.deps.clock.now();
    for (const [id, flow] of this.flows) {
      if (now - flow.createdAt < SETUP_FLOW_TTL_MS && this.flows.size < MAX_SETUP_FLOWS) break;
      this.flows.delete(id);
    }
    const secret = randomBase32Secret();
    const flow: SetupFlow = { flowId: this.deps.ids.uuidHex(), userId, module, userName, secret, url: provisioningUri(secret, userName), createdAt: now };
    this.flows.set(flow.flowId, flow);
    return { kind: 'result', body: form(flow, {}) };
  }

  /** Feeds `input` to the flow: the right code (window 0, as the original's setup step) finishes it. */
  step(flowId: string, userId: string, input: unknown): SetupOutcome {
    const flow = this.flows.get(flowId);
    if (!flow || flow.userId !== userId || this.deps.clock.now() - flow.createdAt >= SETUP_FLOW_TTL_MS) {
      if (flow && flow.userId === userId) this.flows.delete(flowId);
      return { kind: 'unknown_flow' };
    }
    // the original treats no (or empty) input as the first step again: a new secret and form
    if (input === undefined || input === null || (typeof input === 'object' && !Array.isArray(input) && Object.keys(input).length === 0)) {
      flow.secret = randomBase32Secret();
      flow.url = provisioningUri(flow.secret, flow.userName);
      return { kind: 'result', body: form(flow, {}) };
    }
    if (typeof input !== 'object' || Array.isArray(input)) return { kind: 'malformed' };
    const raw = (input as Record<string, unknown>).code;
    // pyotp compares str(code): a number is a code too
    const code = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
    if (typeof code !== 'string') return { kind: 'malformed' };
    if (!verifyTotp(flow.secret, code, this.deps.clock.now(), 0)) return { kind: 'result', body: form(flow, { base: 'invalid_code' }) };
    this.flows.delete(flowId);
    const body = {
      version: 1,
      minor_version: 1,
      type: 'create_entry',
      flow_id: flow.flowId,
      handler: flow.module.id,
      title: flow.module.name,
      data: { result: flow.secret },
      description: null,
      description_placeholders: null,
    };
    return { kind: 'result', body, enable: { userId, moduleId: flow.module.id, secret: flow.secret } };
  }
}

function form(flow: SetupFlow, errors: Record<string, string>): Record<string, unknown> {
  return {
    type: 'form',
    flow_id: flow.flowId,
    handler: flow.module.id,
    step_id: 'init',
    data_schema: TOTP_SCHEMA,
    errors,
    // the original's qr_code is an SVG of `url` as PyQRCode draws it by default: level H, 4 pixels a module, 4 modules of quiet zone
    description_placeholders: { code: flow.secret, url: flow.url, qr_code: qrSvg(flow.url, { scale: 4, quietZone: 4, level: 'H' }) },
    last_step: null,
    preview: null,
  };
}

/** The original's totp login check: window 1; an unknown secret still costs one verification. */
export function verifyLoginCode(secret: string | undefined, code: string, timeMs: number): boolean {
  if (secret === undefined) {
    verifyTotp(DUMMY_SECRET, code, timeMs, 1);
    return false;
  }
  return verifyTotp(secret, code, timeMs, 1);
}
