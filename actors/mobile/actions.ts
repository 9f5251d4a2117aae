import type { Context, EventRecord, Origin } from '../../store/types.ts';
import type { ServiceRegistry } from '../services/registry.ts';
import type { EntityActors } from '../entities/registry.ts';
import type { CoreConfig } from '../core/core-config.ts';
import { resultJson, type Templates } from '../templates/index.ts';
import { resultDict, type Conversation } from '../conversation/index.ts';
import { appDataProblem, safeRegistration, type RegistrationChanges, type Registrations } from './registrations.ts';
import { EMPTY_OK, errorReply, type Registration, type WebhookActions, type WebhookCall, type WebhookReply } from './types.ts';
import { isObject } from '../json-object.ts';

/**
 * The webhook actions that are not about sensors, location or push (core-wire §6.4):
 * update_registration, get_config, call_service, fire_event, render_template, get_zones,
 * enable_encryption, stream_camera, conversation_process, scan_tag. A payload that does not fit
 * an action's schema gets the deliberate empty OK.
 */

export interface CoreActionDeps {
  registrations: Registrations;
  services: ServiceRegistry;
  entities: EntityActors;
  coreConfig: CoreConfig;
  templates: Templates;
  conversation?: Conversation;
  runState(): string;
  fireEvent(eventType: string, data: Record<string, unknown>, origin: Origin, context: Context): Promise<EventRecord>;
  /** the tag component's scan: fires tag_scanned and records the tag's last scan */
  scanTag(tagId: string, deviceId: string, context: Context): Promise<void>;
  /** get_config's `entities`: the registration's entities by unique id (filled by the sensors part) */
  entitiesOf(registration: Registration): Record<string, { disabled: boolean }>;
}

/** The original's theme colour (its manifest), as get_config reports it. */
export const THEME_COLOR = '#03A9F4';

const ok = (body: unknown, status = 200): WebhookReply => ({ status, body });

/** Keys of `data` outside `allowed`: the original's schemas refuse extra keys. */
const extraKeys = (data: Record<string, unknown>, allowed: string[]) => Object.keys(data).some((k) => !allowed.includes(k));
const optString = (v: unknown) => v === undefined || typeof v === 'string';

export function registerCoreActions(actions: WebhookActions, deps: CoreActionDeps): void {
  actions.register('update_registration', async ({ registration, data, context }: WebhookCall) => {
    if (!isObject(data) || extraKeys(data, ['app_data', 'app_version', 'device_name', 'manufacturer', 'model', 'os_version'])) return EMPTY_OK;
    for (const k of ['app_version', 'device_name', 'manufacturer', 'model']) if (typeof data[k] !== 'string') return EMPTY_OK;
    if (!optString(data.os_version)) return EMPTY_OK;
    if (data.app_data !== undefined && appDataProblem(data.app_data, "data['app_data']")) return EMPTY_OK;
    const updated = await deps.registrations.update(registration.webhook_id, data as unknown as RegistrationChanges, context);
    return ok(safeRegistration(updated));
  });

  actions.register('get_config', async ({ registration }) => {
    const c = deps.coreConfig.asDict(deps.runState());
    const body: Record<string, unknown> = {
      latitude: c.latitude,
      longitude: c.longitude,
      elevation: c.elevation,
      core_device_id: registration.core_device_id,
      unit_system: c.unit_system,
      location_name: c.location_name,
      time_zone: c.time_zone,
      components: c.components,
      version: c.version,
      theme_color: THEME_COLOR,
    };
    if (registration.cloudhook_url !== null) body.cloudhook_url = registration.cloudhook_url;
    body.entities = deps.entitiesOf(registration);
    return ok(body);
  });

  actions.register('call_service', async ({ data, context }) => {
    if (!isObject(data) || extraKeys(data, ['domain', 'service', 'service_data'])) return EMPTY_OK;
    if (typeof data.domain !== 'string' || typeof data.service !== 'string') return EMPTY_OK;
    const serviceData = data.service_data ?? {};
    if (!isObject(serviceData)) return EMPTY_OK;
    // a failing call escapes to the dispatcher: the original's 200 with an empty body
    await deps.services.call({ domain: data.domain, service: data.service, data: serviceData, context, returnResponse: false });
    return EMPTY_OK;
  });

  actions.register('fire_event', async ({ data, context }) => {
    if (!isObject(data) || extraKeys(data, ['event_type', 'event_data'])) return EMPTY_OK;
    if (typeof data.event_type !== 'string') return EMPTY_OK;
    const eventData = data.event_data ?? {};
    if (!isObject(eventData)) return EMPTY_OK;
    await deps.fireEvent(data.event_type, eventData, 'REMOTE', context);
    return EMPTY_OK;
  });

  actions.register('render_template', async ({ data }) => {
    if (!isObject(data)) return EMPTY_OK;
    for (const spec of Object.values(data)) {
      if (!isObject(spec) || extraKeys(spec, ['template', 'variables'])) return EMPTY_OK;
      if (typeof spec.template !== 'string' || (spec.variables !== undefined && !isObject(spec.variables))) return EMPTY_OK;
    }
    // keyed by the app's names: `__proto__` must stay a key, not become the prototype
    const out: Record<string, unknown> = Object.create(null);
    let first = true;
    for (const [key, spec] of Object.entries(data as Record<string, { template: string; variables?: Record<string, unknown> }>)) {
      // each render may take its whole time limit: other requests are served between them
      if (!first) await new Promise((resolve) => setImmediate(resolve));
      first = false;
      const outcome = deps.templates.render(spec.template, spec.variables ?? {});
      out[key] = outcome.ok ? JSON.parse(resultJson(outcome.text)) : { error: String(outcome.error) };
    }
    return ok(out);
  });

  actions.register('get_zones', async () => {
    const zones = JSON.parse(deps.entities.statesJson((s) => s.entity_id.startsWith('zone.'))) as { entity_id: string }[];
    zones.sort((a, b) => (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0));
    return ok(zones);
  });

  actions.register('enable_encryption', async ({ registration, context }) => {
    if (registration.supports_encryption) return errorReply('encryption_already_enabled', 'Encryption already enabled');
    const updated = await deps.registrations.enableEncryption(registration.webhook_id, context);
    return { status: 200, body: { secret: updated.secret }, plain: true };
  });

  actions.register('stream_camera', async ({ data }) => {
    if (!isObject(data) || extraKeys(data, ['camera_entity_id']) || typeof data.camera_entity_id !== 'string') return EMPTY_OK;
    const camera = deps.entities.get(data.camera_entity_id);
    if (!camera) return ok({ success: false }, 400);
    // the original reads the camera's supported_features: another kind of entity fails there (an empty 200)
    if (typeof camera.attributes.supported_features !== 'number') throw new Error(`${camera.entity_id} is not a camera`);
    return ok({ mjpeg_path: `/api/camera_proxy_stream/${camera.entity_id}`, hls_path: null });
  });

  actions.register('conversation_process', async ({ registration, data, context }) => {
    if (!isObject(data) || extraKeys(data, ['text', 'language', 'conversation_id'])) return EMPTY_OK;
    if (typeof data.text !== 'string' || !optString(data.language) || !optString(data.conversation_id)) return EMPTY_OK;
    if (!deps.conversation) throw new Error('conversation is not set up');
    const result = await deps.conversation.process({
      text: data.text,
      language: (data.language as string | undefined) ?? null,
      conversationId: (data.conversation_id as string | undefined) ?? null,
      deviceId: registration.core_device_id,
      context,
    });
    return ok(resultDict(result));
  });

  actions.register('scan_tag', async ({ registration, data, context }) => {
    if (!isObject(data) || extraKeys(data, ['tag_id']) || typeof data.tag_id !== 'string') return EMPTY_OK;
    await deps.scanTag(data.tag_id, registration.core_device_id, context);
    return EMPTY_OK;
  });
}
