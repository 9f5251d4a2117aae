import { IntentHandleError, IntentUnexpectedError, InvalidSlotInfo, MatchFailedError, UnknownIntent } from './errors.ts';
import { IntentResponse } from './response.ts';

/**
 * The English error sentences of the original's intents repository (`responses/en/_common.yaml`,
 * `errors`), keyed as the conversation agent's ErrorKey. `{{ x }}` is filled from the arguments.
 */
export const ERROR_TEXTS: Record<string, string> = {
  no_intent: "Sorry, I couldn't understand that",
  handle_error: 'An unexpected error occurred',
  no_area: 'Sorry, I am not aware of any area called {{ area }}',
  no_floor: 'Sorry, I am not aware of any floor called {{ floor }}',
  no_domain: 'Sorry, I am not aware of any {{ domain }}',
  no_domain_in_area: 'Sorry, I am not aware of any {{ domain }} in the {{ area }} area',
  no_domain_in_floor: 'Sorry, I am not aware of any {{ domain }} on the {{ floor }} floor',
  no_device_class: 'Sorry, I am not aware of any {{ device_class }}',
  no_device_class_in_area: 'Sorry, I am not aware of any {{ device_class }} in the {{ area }} area',
  no_device_class_in_floor: 'Sorry, I am not aware of any {{ device_class }} in the {{ floor }} floor',
  no_entity: 'Sorry, I am not aware of any device called {{ entity }}',
  no_entity_in_area: 'Sorry, I am not aware of any device called {{ entity }} in the {{ area }} area',
  no_entity_in_floor: 'Sorry, I am not aware of any device called {{ entity }} in the {{ floor }} floor',
  entity_wrong_state: 'Sorry, no device is {{ state | lower }}',
  feature_not_supported: 'Sorry, no device supports the required features',
  no_entity_exposed: 'Sorry, {{ entity }} is not exposed',
  no_entity_in_area_exposed: 'Sorry, {{ entity }} in the {{ area }} area is not exposed',
  no_entity_in_floor_exposed: 'Sorry, {{ entity }} in the {{ floor }} floor is not exposed',
  no_domain_exposed: 'Sorry, no {{ domain }} is exposed',
  no_domain_in_area_exposed: 'Sorry, no {{ domain }} in the {{ area }} area is exposed',
  no_domain_in_floor_exposed: 'Sorry, no {{ domain }} in the {{ floor }} floor is exposed',
  no_device_class_exposed: 'Sorry, no {{ device_class }} is exposed',
  no_device_class_in_area_exposed: 'Sorry, no {{ device_class }} in the {{ area }} area is exposed',
  no_device_class_in_floor_exposed: 'Sorry, no {{ device_class }} in the {{ floor }} floor is exposed',
  duplicate_entities: 'Sorry, there are multiple devices called {{ entity }}',
  duplicate_entities_in_area: 'Sorry, there are multiple devices called {{ entity }} in the {{ area }} area',
  duplicate_entities_in_floor: 'Sorry, there are multiple devices called {{ entity }} in the {{ floor }} floor',
  duplicate_targets: 'Sorry, more than one device matched your request',
  timer_not_found: "Sorry, I couldn't find that timer",
  multiple_timers_matched: 'Sorry, I am unable to target multiple timers',
  no_timer_support: 'Sorry, timers are not supported on this device',
};

/** An error sentence with its `{{ name }}` (and `{{ name | lower }}`) places filled. */
export function errorText(key: string, args: Record<string, string> = {}, texts: Record<string, string> = ERROR_TEXTS): string {
  const template = texts[key] ?? texts.handle_error ?? ERROR_TEXTS.handle_error;
  return template.replace(/\{\{\s*(\w+)\s*(\|\s*lower\s*)?\}\}/g, (_, name: string, lower?: string) => {
    const v = args[name] ?? '';
    return lower ? v.toLowerCase() : v;
  });
}

/**
 * The error key and its arguments for a failed target match, as the original's default agent
 * chooses them (`_get_match_error_response`). Where it has no sentence (NAME, AREA, FLOOR,
 * MULTIPLE_TARGETS reach it only through its recogniser), the sentence of its unmatched-name
 * path is used: "not aware of any device called <name>" (in the area / floor), else by domain or
 * device class, else `duplicate_targets` for several targets.
 */
export function matchErrorKey(err: MatchFailedError): { key: string; args: Record<string, string> } {
  const c = err.constraints;
  const area = c.areaName ?? undefined;
  const floor = c.floorName ?? undefined;
  const deviceClass = c.deviceClasses?.[0];
  const domain = c.domains?.[0];
  const reason = err.reason;
  if ((reason === 'DEVICE_CLASS' || reason === 'DOMAIN') && deviceClass) {
    return area ? { key: 'no_device_class_in_area', args: { device_class: deviceClass, area } } : { key: 'no_device_class', args: { device_class: deviceClass } };
  }
  if (reason === 'DOMAIN' && domain) {
    if (area) return { key: 'no_domain_in_area', args: { domain, area } };
    if (floor) return { key: 'no_domain_in_floor', args: { domain, floor } };
    return { key: 'no_domain', args: { domain } };
  }
  if (reason === 'DUPLICATE_NAME') {
    const entity = err.detail ?? c.name ?? '';
    if (floor) return { key: 'duplicate_entities_in_floor', args: { entity, floor } };
    if (area) return { key: 'duplicate_entities_in_area', args: { entity, area } };
    return { key: 'duplicate_entities', args: { entity } };
  }
  if (reason === 'INVALID_AREA') return { key: 'no_area', args: { area: err.detail ?? area ?? '' } };
  if (reason === 'INVALID_FLOOR') return { key: 'no_floor', args: { floor: err.detail ?? floor ?? '' } };
  if (reason === 'FEATURE') return { key: 'feature_not_supported', args: {} };
  if (reason === 'STATE' && c.states?.length) return { key: 'entity_wrong_state', args: { state: c.states[0] } };
  if (reason === 'ASSISTANT') {
    if (c.name) {
      if (area) return { key: 'no_entity_in_area_exposed', args: { entity: c.name, area } };
      if (floor) return { key: 'no_entity_in_floor_exposed', args: { entity: c.name, floor } };
      return { key: 'no_entity_exposed', args: { entity: c.name } };
    }
    if (deviceClass) {
      if (area) return { key: 'no_device_class_in_area_exposed', args: { device_class: deviceClass, area } };
      if (floor) return { key: 'no_device_class_in_floor_exposed', args: { device_class: deviceClass, floor } };
      return { key: 'no_device_class_exposed', args: { device_class: deviceClass } };
    }
    if (domain) {
      if (area) return { key: 'no_domain_in_area_exposed', args: { domain, area } };
      if (floor) return { key: 'no_domain_in_floor_exposed', args: { domain, floor } };
      return { key: 'no_domain_exposed', args: { domain } };
    }
  }
  if (reason === 'MULTIPLE_TARGETS') return { key: 'duplicate_targets', args: {} };
  if (reason === 'NAME' || reason === 'AREA' || reason === 'FLOOR') {
    if (c.name) {
      if (area) return { key: 'no_entity_in_area', args: { entity: c.name, area } };
      if (floor) return { key: 'no_entity_in_floor', args: { entity: c.name, floor } };
      return { key: 'no_entity', args: { entity: c.name } };
    }
    if (deviceClass) {
      if (area) return { key: 'no_device_class_in_area', args: { device_class: deviceClass, area } };
      if (floor) return { key: 'no_device_class_in_floor', args: { device_class: deviceClass, floor } };
    }
    if (domain) {
      if (area) return { key: 'no_domain_in_area', args: { domain, area } };
      if (floor) return { key: 'no_domain_in_floor', args: { domain, floor } };
    }
  }
  return { key: 'no_intent', args: {} };
}

/** How an error answer is worded: the REST endpoint speaks a handler's own message, the agent its sentences. */
export interface ErrorResponseOptions {
  /** `api` (POST /api/intent/handle, default) or `conversation` (the default agent) */
  mode?: 'api' | 'conversation';
  /** error sentences by key (a language's, or custom `responses: errors:`); English by default */
  texts?: Record<string, string>;
}

/**
 * The error-type IntentResponse for what handling an intent threw: a failed match is
 * `no_valid_targets` with the sentence that names what was not found; a handler's error
 * `failed_to_handle` (the REST endpoint speaks its message, as the original's; the agent its
 * response key's sentence or "An unexpected error occurred"); an unknown intent or invalid slots
 * `failed_to_handle` with the error's message; anything else `unknown`.
 */
export function errorResponse(err: unknown, language: string, options: ErrorResponseOptions = {}): IntentResponse {
  const texts = options.texts ?? ERROR_TEXTS;
  const response = new IntentResponse(language);
  if (err instanceof MatchFailedError) {
    const { key, args } = matchErrorKey(err);
    return response.setError('no_valid_targets', errorText(key, args, texts));
  }
  if (err instanceof IntentHandleError) {
    if (options.mode === 'conversation') return response.setError('failed_to_handle', errorText(err.responseKey ?? 'handle_error', {}, texts));
    return response.setError('failed_to_handle', err.message);
  }
  if (err instanceof UnknownIntent || err instanceof InvalidSlotInfo) return response.setError('failed_to_handle', err.message);
  if (err instanceof IntentUnexpectedError) {
    return response.setError('unknown', options.mode === 'conversation' ? errorText('handle_error', {}, texts) : err.message);
  }
  return response.setError('unknown', errorText('handle_error', {}, texts));
}
