import type { TSchema } from '@sinclair/typebox';
import type { Context } from '../../store/types.ts';

/** A field of a service as /api/services describes it (the original's services.yaml shape). */
export interface ServiceField {
  name?: string;
  description?: string;
  required?: boolean;
  example?: unknown;
  default?: unknown;
  selector?: Record<string, unknown>;
}

/** The description /api/services and get_services serve for one service. */
export interface ServiceDescription {
  name: string;
  description: string;
  fields: Record<string, ServiceField>;
  target?: { entity?: Array<{ domain?: string[] }> };
  response?: { optional: boolean };
}

/** Whether a service returns data: never, when asked, or always (then the caller must ask). */
export type SupportsResponse = 'none' | 'optional' | 'only';

/** A call as the registry hands it to a handler. */
export interface ServiceCall {
  domain: string;
  service: string;
  /** validated service data, target keys removed */
  data: Record<string, any>;
  /** entity ids the call targets (from entity_id in data or target), lower-cased */
  entityIds: string[];
  /** true when the call named no target at all */
  untargeted: boolean;
  context: Context;
  returnResponse: boolean;
}

/**
 * Who may call a service, as the original registers it: `admin` for an admin service
 * (async_register_admin_service), `entity` for one that acts on its target entities (an entity
 * service: a non-admin must be allowed to control each one); absent: anyone, the services it
 * calls in turn checking for themselves.
 */
export type ServiceAccess = 'admin' | 'entity';

/** A registered service: description, schema and handler. */
export interface ServiceSpec {
  domain: string;
  service: string;
  description: ServiceDescription;
  schema: TSchema;
  supportsResponse: SupportsResponse;
  access?: ServiceAccess;
  /**
   * True for a service acting on entities of any domain (the core's turn_on, toggle...). Other
   * services act on their own domain's entities: what devices, areas, floors and labels reach
   * of other domains is left out of their calls.
   */
  anyDomain?: boolean;
  /**
   * For an entity service several platforms provide (switch.turn_on of virtual and of MQTT
   * switches): the entities this provider owns. Registering a service that is already there
   * then shares it: each call goes to every provider with the targets it owns (a provider
   * without `owns` gets the rest), as the original's entity component calls each entity's
   * platform.
   */
  owns?(entityId: string): boolean;
  handler(call: ServiceCall): Promise<Record<string, unknown> | void>;
}

/** An error of a service call, with the original's WebSocket code. */
export class ServiceError extends Error {
  constructor(
    readonly code: 'not_found' | 'invalid_format' | 'service_validation_error' | 'home_assistant_error' | 'unknown_error',
    message: string,
    readonly translation?: { domain: string; key: string; placeholders: Record<string, string> },
  ) {
    super(message);
  }
}

/**
 * The original's Unauthorized: REST answers it with 401; the WebSocket call_service, which
 * catches it as the HomeAssistantError it is, with `home_assistant_error` "Unauthorized".
 */
export class Unauthorized extends ServiceError {
  constructor(readonly entityId?: string) {
    super('home_assistant_error', 'Unauthorized');
  }
}
