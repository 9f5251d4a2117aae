import type { Clock, Ids } from '../actors/clock.ts';
import type { CoreBackup } from '../actors/backup/core-backup.ts';
import type { EntityActors } from '../actors/entities/registry.ts';
import type { ServiceRegistry } from '../actors/services/registry.ts';
import type { CoreConfig } from '../actors/core/core-config.ts';
import type { AccessAuth, UserDirectory } from '../actors/auth/types.ts';
import type { UserTokens } from '../actors/auth/token-service.ts';
import type { MfaSetup } from '../actors/auth/mfa-setup.ts';
import type { UserAdmin } from '../actors/auth/admin.ts';
import type { History } from '../actors/history/history.ts';
import type { Explorer } from '../actors/explorer/explorer.ts';
import type { SupervisorClient } from '../actors/supervisor-client/client.ts';
import type { DiscoveryFlows } from '../actors/supervisor-client/discovery-flows.ts';
import type { FrontendUserData } from '../actors/frontend/user-data.ts';
import type { Panels } from '../actors/frontend/panels.ts';
import type { Translations } from '../actors/frontend/translations.ts';
import type { Registries } from '../actors/registries/index.ts';
import type { DeviceAutomations } from '../actors/device-automation/index.ts';
import type { Tags } from '../actors/tags/tags.ts';
import type { Bus } from '../streams/bus.ts';
import type { Logs } from '../actors/logging/logs.ts';
import type { EntityFanout } from '../streams/entity-fanout.ts';
import type { Context, EventRecord, Origin } from '../store/types.ts';
import { withToken } from '../store/context-token.ts';
import type { Templates } from '../actors/templates/index.ts';
import type { IntentRegistry } from '../actors/intents/registry.ts';
import type { IntentPlatforms } from '../actors/intents/platforms.ts';
import type { Conversation } from '../actors/conversation/index.ts';
import type { Mobile } from '../actors/mobile/index.ts';
import type { MobilePush } from '../actors/mobile/push.ts';
import type { Mqtt } from '../actors/mqtt/index.ts';

/** What the gateway's handlers may reach: the actors and the streams, never the store. */
export interface CoreDeps {
  entities: EntityActors;
  services: ServiceRegistry;
  coreConfig: CoreConfig;
  /** what the WebSocket commands use of auth: token checks, the users, a user's own tokens and second factors, user administration */
  auth: AccessAuth & UserDirectory & UserTokens & MfaSetup & UserAdmin;
  /** areas, floors, labels, devices and entities (config/*_registry commands) */
  registries: Registries;
  bus: Bus;
  /** subscribe_entities delivery, shared by every subscriber */
  entityFanout: EntityFanout;
  /** state history from the log (the entity-and-time index) */
  history: History;
  /** POST /api/template and render_template */
  templates: Templates;
  /** intent handlers by intent type (POST /api/intent/handle, the conversation agent) */
  intents: IntentRegistry;
  /** integrations' intent platforms: `registerIntentPlatform(domain, (registry, home) => ...)` */
  intentPlatforms: IntentPlatforms;
  /** the conversation agents, their chat logs (set right after the deps are made) */
  conversation?: Conversation;
  /** companion apps: `registrations` (RegistrationsView + delete), `actions` (WebhookActions), `entitiesOf` */
  mobile?: Mobile;
  /** companion apps' push notifications and local push channels (set once registrations are up) */
  mobilePush?: MobilePush;
  /** the log explorer: the home at a moment, records with filters, a context's chain (hearth/* commands) */
  explorer?: Explorer;
  /** the supervisor that runs this core (supervisor/api), when env SUPERVISOR and SUPERVISOR_TOKEN name one */
  supervisor?: SupervisorClient;
  /** discovery flows opened for the supervisor's apps (config_entries/flow/progress) */
  discoveryFlows?: DiscoveryFlows;
  /** the frontend's per-user data (frontend/*_user_data commands) */
  frontendUserData?: FrontendUserData;
  /** the frontend's panels (get_panels) */
  panels?: Panels;
  /** what devices offer as automation actions, triggers and conditions (device_automation/*) */
  deviceAutomations?: DeviceAutomations;
  /** NFC and QR tags (tag/*), moved on by tag_scanned events */
  tags?: Tags;
  /** MQTT: its client subscriptions (mqtt/subscribe), debug info, config entry */
  mqtt?: Mqtt;
  /** the backend's texts by domain and category (frontend/get_translations) */
  translations?: Translations;
  /** backup/start and backup/end: the log export a backup of the core's data carries */
  coreBackup?: CoreBackup;
  clock: Clock;
  ids: Ids;
  /** `RUNNING`, `STOPPING`... as GET /api/core/state reports */
  runState(): string;
  /** fires a bus event; resolves with the committed record */
  fireEvent(eventType: string, data: Record<string, unknown>, origin: Origin, context: Context): Promise<EventRecord>;
  log(line: string): void;
  /** named loggers (`hearth.websocket`), their levels and the system log's capture */
  logs: Logs;
}

/**
 * What the read side of the API reaches (states, events, history): all a read replica has, the
 * primary's auth replaced by the replica's mirror of its public token keys.
 */
export type ReadDeps = Pick<CoreDeps, 'entities' | 'coreConfig' | 'bus' | 'entityFanout' | 'history' | 'clock' | 'ids' | 'runState' | 'log' | 'logs'> & { auth: AccessAuth };

/**
 * A fresh context for a request made by `userId`; `tokenId`, the refresh token the request was
 * authenticated with, is kept in the log beside it (never on the wire) for the log explorer.
 */
export function newContext(deps: Pick<CoreDeps, 'clock' | 'ids'>, userId: string | null, tokenId?: string): Context {
  return withToken({ id: deps.ids.ulid(deps.clock.now()), parent_id: null, user_id: userId }, tokenId);
}

/** The original's limit on event type length. */
export const MAX_EVENT_TYPE_LENGTH = 64;

/**
 * Why a client may not fire an event of this type (REST and WebSocket alike), with the
 * WebSocket error code for it, or undefined.
 */
export function eventTypeProblem(eventType: string): { code: 'invalid_format' | 'home_assistant_error'; message: string } | undefined {
  if (eventType === '') return { code: 'invalid_format', message: 'Event type must not be empty.' };
  if (eventType.length > MAX_EVENT_TYPE_LENGTH) {
    return { code: 'home_assistant_error', message: `Event type ${eventType} exceeds the maximum length of ${MAX_EVENT_TYPE_LENGTH} characters.` };
  }
  return undefined;
}
