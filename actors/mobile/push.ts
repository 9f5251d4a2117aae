import { Type } from '@sinclair/typebox';
import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog } from '../../store/types.ts';
import { typedRecords } from '../../store/typed-records.ts';
import type { ServiceRegistry } from '../services/registry.ts';
import { ServiceError, type ServiceSpec } from '../services/types.ts';
import { slugify } from '../entities/slug.ts';
import { EMPTY_OK, type Registration, type RegistrationsView, type WebhookActions, type WebhookCall, type WebhookReply } from './types.ts';

/**
 * Push notifications to companion apps (core-wire §6.8, §6.9): a legacy notify service per
 * registration that supports push, delivered over the app's local WebSocket channel when one
 * is open (confirmed within a deadline, else re-sent through the relay) or else POSTed to the
 * vendor relay at `app_data.push_url`. Every delivery is recorded in the log under
 * `mobile_app/push/<webhook_id>` (push_sent, push_confirmed, push_failed), never the push token.
 */

/** The notification as the app receives it (title and data only when set). */
export interface PushMessage {
  message: string;
  title?: string;
  data?: Record<string, unknown>;
}

/** Minimal logging of the push module (a Logger fits). */
export interface PushLogger {
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
}

export interface PushDeps {
  registrations: RegistrationsView;
  services: ServiceRegistry;
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logger: PushLogger;
  /** the relay's answer deadline (the original's 10 s) */
  relayTimeoutMs?: number;
  /** how long a local-channel message may wait for its confirmation (the original's 10 s) */
  confirmTimeoutMs?: number;
  /** the HTTP client (tests may wrap it); the global fetch by default */
  fetch?: typeof fetch;
  /** renders the service's message and title templates (as the original's legacy notify); as given without it */
  render?: (template: string) => { ok: true; text: string } | { ok: false; error: string };
}

/** The default title the original leaves out of what it sends. */
export const DEFAULT_TITLE = 'Home Assistant';
export const PUSH_TIMEOUT_MS = 10_000;
export const CONFIRM_TIMEOUT_MS = 10_000;

/** Why a channel may not be opened or confirmed: [code, message] as the WebSocket answers. */
export type ChannelRefusal = readonly [code: 'not_found' | 'unauthorized', message: string];

const NOT_FOUND: ChannelRefusal = ['not_found', 'Webhook ID not found'];
const UNAUTHORIZED: ChannelRefusal = ['unauthorized', 'User not linked to this webhook ID'];
const NO_CHANNEL: ChannelRefusal = ['not_found', 'Push notification channel not found'];

/** An open local channel as its opener holds it. */
export interface ChannelHandle {
  /** tears the channel down (unsubscribe, disconnect); unconfirmed messages go to the relay */
  close(): void;
}

interface Pending {
  message: PushMessage;
  timer: NodeJS.Timeout;
}

interface Channel {
  webhookId: string;
  supportConfirm: boolean;
  send(event: Record<string, unknown>): void;
  /** the opener's cleanup (its subscription removed); unset once torn down */
  onTeardown?: () => void;
  pending: Map<string, Pending>;
}

/** The outcome of one relay POST. */
/** How a push went: through the push relay or the app's WebSocket channel. */
type PushVia = 'relay' | 'websocket';

/** The records of `mobile_app/push/<webhook_id>`, one a push notification sent, confirmed or failed. */
export type PushRecord =
  | { type: 'push_sent'; data: { webhook_id: string; via: PushVia; confirm_id?: string } & PushMessage }
  | { type: 'push_confirmed'; data: { webhook_id: string; via: PushVia; confirm_id: string } }
  | { type: 'push_failed'; data: { webhook_id: string; via: PushVia; code: string; message?: string; status?: number; confirm_id?: string } };
const pushRecords = typedRecords<PushRecord>('mobile_app/push/', { push_sent: true, push_confirmed: true, push_failed: true });

type RelayOutcome = { ok: true } | { ok: false; code: string; message: string; status?: number };

/** True when a registration can receive pushes (core-wire §6.1). */
export function supportsPush(reg: Registration): boolean {
  const app = reg.app_data ?? {};
  return ('push_token' in app && 'push_url' in app) || 'push_websocket_channel' in app;
}

/** The notify service that reaches every push registration, or those its `target` names. */
export const BASE_SERVICE = 'mobile_app';

/** The legacy notify service of a registration: `mobile_app_<slug(device_name)>`. */
export function notifyServiceName(reg: Registration): string {
  return slugify(`mobile_app_${reg.device_name}`);
}

const NotifySchema = Type.Object(
  {
    message: Type.String(),
    title: Type.Optional(Type.String()),
    target: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    data: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  },
  { additionalProperties: false },
);

export class MobilePush {
  private readonly channels = new Map<string, Channel>();
  /** service name → the webhook it notifies */
  private readonly servicesByName = new Map<string, string>();
  private readonly relayTimeoutMs: number;
  private readonly confirmTimeoutMs: number;
  private readonly http: typeof fetch;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: PushDeps) {
    this.relayTimeoutMs = deps.relayTimeoutMs ?? PUSH_TIMEOUT_MS;
    this.confirmTimeoutMs = deps.confirmTimeoutMs ?? CONFIRM_TIMEOUT_MS;
    this.http = deps.fetch ?? fetch;
  }

  /** Plugs `clear_notification` into the webhook's action table. */
  registerActions(actions: WebhookActions): void {
    actions.register('clear_notification', (call) => this.clearNotification(call));
  }

  /**
   * Brings the notify services in line with the registrations: one per registration that
   * supports push (registered when it appears, removed when it goes or stops supporting push).
   * Channels of deleted registrations are closed. Call after any registration change.
   */
  async sync(context: Context): Promise<void> {
    if (!this.deps.services.has('notify', BASE_SERVICE)) await this.deps.services.register(this.serviceSpec(BASE_SERVICE, undefined), context);
    const wanted = new Map<string, Registration>();
    for (const reg of this.deps.registrations.list()) if (supportsPush(reg)) wanted.set(notifyServiceName(reg), reg);
    for (const [name, webhookId] of [...this.servicesByName]) {
      if (wanted.get(name)?.webhook_id === webhookId) continue;
      this.servicesByName.delete(name);
      await this.deps.services.remove('notify', name, context);
    }
    for (const [name, reg] of wanted) {
      if (this.servicesByName.has(name)) continue;
      this.servicesByName.set(name, reg.webhook_id);
      await this.deps.services.register(this.serviceSpec(name, reg.webhook_id), context);
    }
    for (const [webhookId, channel] of [...this.channels]) {
      if (!this.deps.registrations.get(webhookId)) this.teardown(channel, false);
    }
  }

  /**
   * Schedules a sync after the ones already scheduled (registrations changed); `settled()`
   * resolves once all have run. Failures are logged.
   */
  resync(context: Context): void {
    this.syncing = this.syncing
      .then(() => this.sync(context))
      .catch((err) => this.deps.logger.error(`Updating the mobile_app notify services failed: ${(err as Error).message}`));
  }

  /** Resolves once every scheduled sync has run. */
  settled(): Promise<void> {
    return this.syncing;
  }

  /** The notify services now registered, by name → webhook id. */
  notifyServices(): ReadonlyMap<string, string> {
    return this.servicesByName;
  }

  /** A notify service: of one registration (`webhookId`), or the base one (its `target`, else every push registration). */
  private serviceSpec(name: string, webhookId: string | undefined): ServiceSpec {
    return {
      domain: 'notify',
      service: name,
      description: {
        name: `Send a notification via ${name}`,
        description: `Sends a notification message using the ${name} integration.`,
        fields: {
          message: { required: true, example: 'The garage door has been open for 10 minutes.', selector: { text: null } },
          title: { example: 'Your Garage Door Friend', selector: { text: null } },
          target: { example: 'platform specific', selector: { object: null } },
          data: { example: 'platform specific', selector: { object: null } },
        },
      },
      schema: NotifySchema,
      supportsResponse: 'none',
      handler: async (call) => {
        const d = call.data;
        const message = this.rendered(d.message);
        const title = d.title === undefined ? undefined : this.rendered(d.title);
        // a device's service always sends to its own device, whatever `target` says (as the original)
        const given = d.target === undefined ? [] : ([] as string[]).concat(d.target);
        const targets = webhookId ? [webhookId] : given.length ? given : this.pushWebhookIds();
        await this.notify(targets, { message, title, data: d.data ?? undefined }, call.context);
      },
    };
  }

  /** The webhook ids of the registrations that support push, one per device name (as the original's targets). */
  private pushWebhookIds(): string[] {
    const byName = new Map<string, string>();
    for (const reg of this.deps.registrations.list()) if (supportsPush(reg)) byName.set(reg.device_name, reg.webhook_id);
    return [...byName.values()];
  }

  private rendered(template: string): string {
    if (!this.deps.render) return template;
    const out = this.deps.render(template);
    if (!out.ok) throw new ServiceError('home_assistant_error', out.error);
    return out.text;
  }

  /**
   * Sends a notification to registrations (as the legacy service): through each one's local
   * channel when open, else its relay. Relay failures are logged and recorded, not thrown (the
   * original's legacy service); targets with neither relay nor channel fail the call.
   */
  async notify(webhookIds: string[], input: { message: string; title?: string | null; data?: Record<string, unknown> | null }, context: Context): Promise<void> {
    const message: PushMessage = { message: input.message };
    if (input.title != null && input.title !== DEFAULT_TITLE) message.title = input.title;
    if (input.data != null) message.data = input.data;
    const failed: string[] = [];
    for (const webhookId of webhookIds) {
      const reg = this.deps.registrations.get(webhookId);
      const channel = this.channels.get(webhookId);
      if (reg && channel) {
        await this.sendLocal(channel, message, context);
        continue;
      }
      if (!reg || typeof reg.app_data?.push_url !== 'string') {
        failed.push(webhookId);
        continue;
      }
      await this.sendRelay(reg, message, context);
    }
    if (failed.length) {
      throw new ServiceError('home_assistant_error', `Device(s) with webhook id(s) ${failed.join(', ')} not connected to local push notifications`);
    }
  }

  /** Why `userId` may not use the push channel of `webhookId`, or undefined. */
  access(webhookId: string, userId: string | null): ChannelRefusal | undefined {
    const reg = this.deps.registrations.get(webhookId);
    if (!reg) return NOT_FOUND;
    if (reg.user_id !== userId) return UNAUTHORIZED;
    return undefined;
  }

  /**
   * Opens the local channel of a webhook for `userId`, tearing down an older one of the same
   * webhook (whose unconfirmed messages go to the relay). `send` delivers one event to the app;
   * `onTeardown` is called once when the channel ends other than by `close()`'s caller.
   */
  openChannel(
    webhookId: string,
    userId: string | null,
    supportConfirm: boolean,
    send: (event: Record<string, unknown>) => void,
    onTeardown: () => void,
  ): ChannelHandle | ChannelRefusal {
    const refused = this.access(webhookId, userId);
    if (refused) return refused;
    const older = this.channels.get(webhookId);
    if (older) this.teardown(older, true);
    const channel: Channel = { webhookId, supportConfirm, send, onTeardown, pending: new Map() };
    this.channels.set(webhookId, channel);
    return { close: () => this.teardown(channel, true) };
  }

  /** True while a local channel is open for the webhook. */
  hasChannel(webhookId: string): boolean {
    return this.channels.has(webhookId);
  }

  /** Confirms a delivered message; a refusal when the channel or the confirm id is unknown. */
  async confirm(webhookId: string, userId: string | null, confirmId: string, context: Context): Promise<ChannelRefusal | undefined> {
    const refused = this.access(webhookId, userId);
    if (refused) return refused;
    const channel = this.channels.get(webhookId);
    const pending = channel?.pending.get(confirmId);
    if (!channel || !pending) return NO_CHANNEL;
    clearTimeout(pending.timer);
    channel.pending.delete(confirmId);
    await this.record({ type: 'push_confirmed', data: { webhook_id: webhookId, via: 'websocket', confirm_id: confirmId } }, context);
    return undefined;
  }

  /** The webhook action `clear_notification`: the `clear_notification` message with `data.tag`. */
  async clearNotification(call: WebhookCall): Promise<WebhookReply> {
    const data = call.data as { tag?: unknown } | null;
    if (!data || typeof data !== 'object' || Array.isArray(data) || typeof data.tag !== 'string') return EMPTY_OK;
    try {
      await this.notify([call.registration.webhook_id], { message: 'clear_notification', data: { tag: data.tag } }, call.context);
    } catch (err) {
      this.deps.logger.warning(`Cannot clear notification ${data.tag} on ${call.registration.device_name}: ${(err as Error).message}`);
    }
    return EMPTY_OK;
  }

  /** Closes every channel without re-sending (the instance stops). */
  stop(): void {
    for (const channel of [...this.channels.values()]) this.teardown(channel, false);
  }

  private async sendLocal(channel: Channel, message: PushMessage, context: Context): Promise<void> {
    const event: Record<string, unknown> = { ...message };
    let confirmId: string | undefined;
    if (channel.supportConfirm) {
      confirmId = this.deps.ids.uuidHex();
      event.hass_confirm_id = confirmId;
      const id = confirmId;
      const timer = setTimeout(() => void this.unconfirmed(channel, id), this.confirmTimeoutMs);
      // the original re-sends the very message it sent, confirm id included
      channel.pending.set(confirmId, { message: event as unknown as PushMessage, timer });
    }
    channel.send(event);
    await this.record({ type: 'push_sent', data: { webhook_id: channel.webhookId, via: 'websocket', ...message, ...(confirmId ? { confirm_id: confirmId } : {}) } }, context);
  }

  /** A message went unconfirmed: the channel is dropped and its pending messages go to the relay. */
  private async unconfirmed(channel: Channel, confirmId: string): Promise<void> {
    if (!channel.pending.has(confirmId)) return;
    this.deps.logger.warning(`Push notification ${confirmId} to ${channel.webhookId} was not confirmed; closing the local push channel`);
    this.teardown(channel, true);
  }

  /**
   * Ends a channel: the opener's subscription removed, and — when `fallback` — every message
   * still unconfirmed recorded as failed and re-sent through the relay, if there is one.
   */
  private teardown(channel: Channel, fallback: boolean): void {
    if (!channel.onTeardown) return;
    const onTeardown = channel.onTeardown;
    channel.onTeardown = undefined;
    if (this.channels.get(channel.webhookId) === channel) this.channels.delete(channel.webhookId);
    onTeardown();
    const pending = [...channel.pending];
    channel.pending.clear();
    for (const [, p] of pending) clearTimeout(p.timer);
    if (!fallback || pending.length === 0) return;
    const context: Context = { id: this.deps.ids.ulid(this.deps.clock.now()), parent_id: null, user_id: null };
    void (async () => {
      for (const [confirmId, p] of pending) {
        await this.record({ type: 'push_failed', data: { webhook_id: channel.webhookId, via: 'websocket', code: 'not_confirmed', confirm_id: confirmId } }, context);
        const reg = this.deps.registrations.get(channel.webhookId);
        if (reg && typeof reg.app_data?.push_url === 'string') await this.sendRelay(reg, p.message, context);
        else this.deps.logger.warning(`Push notification ${confirmId} to ${channel.webhookId} lost: the device has no push relay`);
      }
    })().catch((err) => this.deps.logger.error(`Re-sending unconfirmed push notifications failed: ${(err as Error).message}`));
  }

  /** POSTs one message to the registration's relay; logs and records the outcome. */
  private async sendRelay(reg: Registration, message: PushMessage, context: Context): Promise<void> {
    const outcome = await this.postRelay(reg, message);
    if (outcome.ok) {
      await this.record({ type: 'push_sent', data: { webhook_id: reg.webhook_id, via: 'relay', ...message } }, context);
      return;
    }
    if (outcome.code === 'rate_limit_exceeded_sending_notification') this.deps.logger.warning(outcome.message);
    else this.deps.logger.error(outcome.message);
    await this.record(
      { type: 'push_failed', data: { webhook_id: reg.webhook_id, via: 'relay', code: outcome.code, message: outcome.message, ...(outcome.status !== undefined ? { status: outcome.status } : {}) } },
      context,
    );
  }

  private async postRelay(reg: Registration, message: PushMessage): Promise<RelayOutcome> {
    const app = reg.app_data;
    const url = String(app.push_url);
    const info: Record<string, unknown> = { app_id: reg.app_id, app_version: reg.app_version, webhook_id: reg.webhook_id };
    if (reg.os_version != null) info.os_version = reg.os_version;
    const body = { ...message, push_token: app.push_token, registration_info: info };
    const device = reg.device_name;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.relayTimeoutMs);
    let status: number;
    let result: Record<string, unknown>;
    try {
      const res = await this.http(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      status = res.status;
      const parsed: unknown = await res.json();
      result = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
    } catch (err) {
      if (controller.signal.aborted) {
        return { ok: false, code: 'timeout_sending_notification', message: `Timeout sending notification to ${device}` };
      }
      return { ok: false, code: 'error_sending_notification', message: `Error sending notification to ${device}: ${(err as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
    this.logRateLimits(device, result, status === 429);
    if (status === 200 || status === 201 || status === 202) return { ok: true };
    let text: string;
    if (typeof result.message === 'string' && result.message !== '') {
      text = result.message;
      if (!['.', '?', '!'].includes(text.at(-1)!)) text += '.';
      text += ' This message is generated externally to Home Assistant.';
    } else {
      const detail = typeof result.errorMessage === 'string' ? result.errorMessage : 'Unknown error';
      text = `Internal server error, please try again later: ${detail}`;
    }
    const code = status === 429 ? 'rate_limit_exceeded_sending_notification' : 'error_sending_notification';
    return { ok: false, code, message: text, status };
  }

  /** The relay's counters, as the original logs them. */
  private logRateLimits(device: string, result: Record<string, unknown>, warn: boolean): void {
    const limits = result.rateLimits as Record<string, unknown> | undefined;
    if (!limits || typeof limits !== 'object') return;
    const resetsAt = Date.parse(String(limits.resetsAt));
    const left = Number.isNaN(resetsAt) ? 'unknown' : duration(resetsAt - this.deps.clock.now());
    const line =
      `mobile_app push notification rate limits for ${device}: ` +
      `${Number(limits.successful)} sent, ${Number(limits.maximum)} allowed, ${Number(limits.errors)} errors, resets in ${left}`;
    if (warn) this.deps.logger.warning(line);
    else this.deps.logger.info(line);
  }

  private async record(kind: PushRecord, context: Context): Promise<void> {
    await this.deps.log.append([pushRecords.make(pushRecords.prefix + kind.data.webhook_id, kind, context, this.deps.clock.now())]);
  }
}

/** `H:MM:SS` (with a leading `-` when past), as Python prints a timedelta without its fraction. */
function duration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const s = Math.floor(Math.abs(ms) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${sign}${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
}
