import type { Context } from '../../store/types.ts';

/**
 * Companion-app registrations and their webhook channel (the original's mobile_app). The
 * registration actor (actors/mobile/registrations.ts) owns the records; actions (sensors,
 * location, push...) plug into the webhook's action table.
 */

/** A registration as stored (the original's config-entry data keys). */
export interface Registration {
  webhook_id: string;
  app_id: string;
  app_name: string;
  app_version: string;
  device_name: string;
  manufacturer: string;
  model: string;
  os_name: string;
  os_version: string | null;
  /** the app's own device id (sent or generated) */
  device_id: string;
  supports_encryption: boolean;
  /** 64 hex chars when encryption is supported, else null */
  secret: string | null;
  user_id: string;
  app_data: Record<string, unknown>;
  cloudhook_url: string | null;
  no_legacy_encryption: boolean;
  /** the device-registry id of the app's device (`core_device_id` in get_config) */
  core_device_id: string;
}

/** A registration made, changed or deleted, as committed to the log. */
export interface RegistrationChange {
  type: 'created' | 'updated' | 'deleted';
  webhookId: string;
}

/** What actions need of the registrations. */
export interface RegistrationsView {
  get(webhookId: string): Registration | undefined;
  list(): Registration[];
  /** called after each committed change of a registration (not while restoring) */
  onChange?(listener: (change: RegistrationChange) => void): void;
}

/** One webhook call as an action sees it (data already decrypted and checked for shape). */
export interface WebhookCall {
  registration: Registration;
  data: unknown;
  /** the registration's user (`Context(user_id=...)`) */
  context: Context;
}

/**
 * An action's answer: a status and a JSON body (null: an empty body), encrypted for an
 * encrypting registration unless `plain` (error bodies, empty `{}`, enable_encryption's reply).
 */
export interface WebhookReply {
  status: number;
  body: unknown;
  plain?: boolean;
}

export type WebhookAction = (call: WebhookCall) => Promise<WebhookReply>;

/** Where actions are registered by webhook `type`. */
export interface WebhookActions {
  register(type: string, action: WebhookAction): void;
}

/** The deliberate empty OK (`{}`), never encrypted. */
export const EMPTY_OK: WebhookReply = { status: 200, body: {}, plain: true };

/** The original's `error_response` body. */
export function errorReply(code: string, message: string, status = 400): WebhookReply {
  return { status, body: { success: false, error: { code, message } }, plain: true };
}
