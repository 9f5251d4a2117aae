import type { Context } from '../../store/types.ts';
import { currentKey, legacyKey, open, seal } from './crypto.ts';
import type { Registrations } from './registrations.ts';
import { EMPTY_OK, errorReply, type Registration, type WebhookAction, type WebhookActions, type WebhookReply } from './types.ts';

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
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The two envelope schemas: plain `{type, data?}` and encrypted `{type, encrypted, encrypted_data?}`, no other keys. */
type Envelope = { type: string; encrypted: false; data: unknown } | { type: string; encrypted: true; encryptedData: string | undefined };

function envelopeOf(v: Record<string, unknown>): Envelope | undefined {
  const type = typeof v.type === 'number' ? String(v.type) : v.type;
  if (typeof type !== 'string') return undefined;
  const keys = Object.keys(v);
  const plain = keys.every((k) => k === 'type' || k === 'data');
  if (plain && (v.data === undefined || typeof v.data === 'object') && v.data !== null) return { type, encrypted: false, data: v.data ?? {} };
  const encrypted = keys.every((k) => k === 'type' || k === 'encrypted' || k === 'encrypted_data');
  if (!encrypted || typeof v.encrypted !== 'boolean') return undefined;
  if (v.encrypted_data !== undefined && typeof v.encrypted_data !== 'string') return undefined;
  if (!v.encrypted) return { type, encrypted: false, data: {} };
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
    if (isObject(raw) && !('encrypted' in raw) && registration.supports_encryption) {
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

  /** The payload of an encrypted envelope, or undefined (logged) when it cannot be read. */
  private async decrypt(registration: Registration, encoded: string | undefined, context: Context): Promise<unknown> {
    const secret = registration.secret;
    if (encoded === undefined || secret === null) {
      this.deps.warn('Ignoring encrypted payload because unable to decrypt');
      return undefined;
    }
    let bytes = open(encoded, currentKey(secret));
    if (bytes) {
      if (!registration.no_legacy_encryption) await this.deps.registrations.retireLegacyEncryption(registration.webhook_id, context);
    } else if (!registration.no_legacy_encryption) {
      bytes = open(encoded, legacyKey(secret));
    }
    if (!bytes) {
      this.deps.warn('Ignoring encrypted payload because unable to decrypt');
      return undefined;
    }
    const read = this.deps.readJson(bytes);
    if (!read.ok || read.value === undefined) {
      this.deps.warn('Ignoring invalid JSON in encrypted payload');
      return undefined;
    }
    return read.value;
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
