import type { Context } from '../../store/types.ts';
import { currentKey, legacyKey, open, seal } from './crypto.ts';
import type { Registrations } from './registrations.ts';
import { EMPTY_OK, errorReply, type Registration, type WebhookAction, type WebhookActions, type WebhookReply } from './types.ts';
import { isObject } from '../json-object.ts';

/**
 * The webhook channel of the companion apps (core-wire §6.2, §6.3): the envelope, decryption,
 * the action table, encrypted answers. Each call ends in an answer: a status and a JSON text,
 * or null for an empty body.
 */

export interface WebhookAnswer {
  status: number;
  /** JSON text, or null for an empty body */
  body: string | null;
}

export interface WebhookDeps {
  registrations: Registrations;
  /** a context for a call made on behalf of `userId` */
  newContext(userId: string): Context;
  /** reads a request body as JSON (the gateway's one reader), or says it is not JSON */
  readJson(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false };
  warn(line: string): void;
}

const EMPTY: WebhookAnswer = { status: 200, body: null };

/** Python's `"encrypted" in body` for a dict (key), a list (element) or a string (substring). */
function mentionsEncrypted(raw: unknown): boolean {
  if (typeof raw === 'string') return raw.includes('encrypted');
  if (Array.isArray(raw)) return raw.includes('encrypted');
  return isObject(raw) && 'encrypted' in raw;
}

/**
 * The two envelope schemas: plain `{type, data?}` (data an object or a list) and encrypted
 * `{type, encrypted: true, encrypted_data?}`, no other keys. `type` is taken as the original's
 * cv.string takes it (numbers and booleans become text; such types are unknown anyway).
 */
type Envelope = { type: string; encrypted: false; data: unknown } | { type: string; encrypted: true; encryptedData: string | undefined };

function envelopeOf(v: Record<string, unknown>): Envelope | undefined {
  const t = v.type;
  if (typeof t !== 'string' && typeof t !== 'number' && typeof t !== 'boolean') return undefined;
  const type = typeof t === 'boolean' ? (t ? 'True' : 'False') : String(t);
  const keys = Object.keys(v);
  if (keys.every((k) => k === 'type' || k === 'data') && (v.data === undefined || (typeof v.data === 'object' && v.data !== null))) {
    return { type, encrypted: false, data: v.data ?? {} };
  }
  if (!keys.every((k) => k === 'type' || k === 'encrypted' || k === 'encrypted_data') || v.encrypted !== true) return undefined;
  if (v.encrypted_data !== undefined && typeof v.encrypted_data !== 'string') return undefined;
  return { type, encrypted: true, encryptedData: v.encrypted_data as string | undefined };
}

export class Webhook implements WebhookActions {
  private readonly actions = new Map<string, WebhookAction>();

  constructor(private readonly deps: WebhookDeps) {}

  register(type: string, action: WebhookAction): void {
    this.actions.set(type, action);
  }

  has(type: string): boolean {
    return this.actions.has(type);
  }

  /** Answers one POST/PUT to `/api/webhook/<webhookId>`; never throws. */
  async handle(webhookId: string, body: Uint8Array): Promise<WebhookAnswer> {
    try {
      return await this.dispatch(webhookId, body);
    } catch (err) {
      this.deps.warn(`webhook ${webhookId.slice(0, 8)}…: ${(err as Error).message}`);
      return EMPTY;
    }
  }

  private async dispatch(webhookId: string, body: Uint8Array): Promise<WebhookAnswer> {
    const registrations = this.deps.registrations;
    if (registrations.wasDeleted(webhookId)) return { status: 410, body: null };
    const registration = registrations.get(webhookId);
    // an unknown id looks like any other: nothing tells a stranger whether it exists
    if (!registration) return EMPTY;
    const read = this.deps.readJson(body);
    if (!read.ok || read.value === undefined) return { status: 400, body: '{}' };
    const raw = read.value;
    // the original asks `"encrypted" in body` first: of a number, a boolean or null that raises (an empty 200)
    if (raw === null || typeof raw === 'number' || typeof raw === 'boolean') return EMPTY;
    if (!mentionsEncrypted(raw) && registration.supports_encryption) {
      return answer(errorReply('encryption_required', 'Encryption required'), registration);
    }
    const envelope = isObject(raw) ? envelopeOf(raw) : undefined;
    if (!envelope) return answer(EMPTY_OK, registration);
    let data: unknown = envelope.encrypted ? undefined : envelope.data;
    const context = this.deps.newContext(registration.user_id);
    if (envelope.encrypted) {
      data = await this.decrypt(registration, envelope.encryptedData, context);
      if (data === undefined) return answer(EMPTY_OK, registration);
    }
    const action = this.actions.get(envelope.type);
    if (!action) return answer(EMPTY_OK, registration);
    const current = registrations.get(webhookId) ?? registration;
    const reply = await action({ registration: current, data, context });
    // enable_encryption and the current-key upgrade change how this very answer is sealed
    return answer(reply, registrations.get(webhookId) ?? current);
  }

  /**
   * The payload of an encrypted envelope, or undefined (logged) when it cannot be read. The
   * current key first; the first payload it opens (and that is JSON) retires the legacy key.
   */
  private async decrypt(registration: Registration, encoded: string | undefined, context: Context): Promise<unknown> {
    // the original reads the missing key and fails: the dispatcher's empty 200
    if (encoded === undefined) throw new Error('encrypted envelope without encrypted_data');
    const secret = registration.secret;
    if (secret === null) {
      this.deps.warn('Ignoring encrypted payload because no decryption key known');
      return undefined;
    }
    const current = open(encoded, currentKey(secret));
    const bytes = current ?? (registration.no_legacy_encryption ? undefined : open(encoded, legacyKey(secret)));
    if (!bytes) {
      this.deps.warn('Ignoring encrypted payload because unable to decrypt');
      return undefined;
    }
    const read = this.deps.readJson(bytes);
    if (!read.ok || read.value === undefined) {
      this.deps.warn('Ignoring invalid JSON in encrypted payload');
      return undefined;
    }
    if (current && !registration.no_legacy_encryption) await this.deps.registrations.retireLegacyEncryption(registration.webhook_id, context);
    // a payload of JSON null is no payload
    return read.value === null ? undefined : read.value;
  }
}

/** The action's reply as sent: sealed for an encrypting registration unless plain. */
export function answer(reply: WebhookReply, registration: Registration): WebhookAnswer {
  if (reply.body === null || reply.body === undefined) return { status: reply.status, body: null };
  const text = JSON.stringify(reply.body);
  if (reply.plain || !registration.supports_encryption || registration.secret === null) return { status: reply.status, body: text };
  const key = registration.no_legacy_encryption ? currentKey(registration.secret) : legacyKey(registration.secret);
  return { status: reply.status, body: JSON.stringify({ encrypted: true, encrypted_data: seal(text, key) }) };
}
