// Where the fuzz sends its input: every REST route and WebSocket command with what a valid
// request holds, the service calls it may make, and the helpers the fuzzed instance is
// configured with. A new route or command is one more entry in REST_ROUTES or WS_COMMANDS.
import type { Rng } from './rng.ts';
import { entityIdSegment, eventTypeSegment, hostileSegment, segment, type FuzzContext, type Segment } from './generators.ts';

/** Sentences the conversation route and commands hear: understood, unknown, odd. */
const SENTENCES = ['turn on the lights in the kitchen', 'what time is it', 'set a timer for 5 minutes', 'cancel all timers', 'turn off the toaster', '', '   ', '{name}', '<turn> on', 'é'.repeat(300), 'lights '.repeat(200)];

/** Templates the template route and command render: plain, reading states, failing, runaway. */
const TEMPLATES = [
  "{{ states('input_boolean.x') }}", '{{ states | count }}', '{% for s in states.sensor %}{{ s.entity_id }}{% endfor %}',
  '{{ x + 1 }}', '{{ now() }}', '{{ 1 | nope }}', '{{ {% }}', "{{ float('x') }}", '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}',
];

/** The helpers configured in the fuzzed instance, so their services have entities to act on. */
export const FUZZ_CONFIG = `input_boolean:
  x:
input_number:
  n:
    min: 0
    max: 100
input_text:
  t:
input_select:
  s:
    options: [a, b, c]
counter:
  c:
input_button:
  b:
`;

/** The entities of FUZZ_CONFIG. */
export const HELPER_ENTITIES = ['input_boolean.x', 'input_number.n', 'input_text.t', 'input_select.s', 'counter.c', 'input_button.b'];

/** Valid service calls (core.stop and core.restart are left out: they end the instance by design). */
export const SERVICE_CALLS: ReadonlyArray<{ domain: string; service: string; data: Record<string, unknown>; watch: string[] }> = [
  { domain: 'core', service: 'turn_on', data: { entity_id: 'input_boolean.x' }, watch: ['input_boolean.x'] },
  { domain: 'core', service: 'turn_off', data: { entity_id: ['input_boolean.x'] }, watch: ['input_boolean.x'] },
  { domain: 'core', service: 'toggle', data: { entity_id: 'input_boolean.x' }, watch: ['input_boolean.x'] },
  { domain: 'core', service: 'set_location', data: { latitude: 12.5, longitude: 7.25, elevation: 10 }, watch: [] },
  { domain: 'core', service: 'update_entity', data: { entity_id: 'input_number.n' }, watch: ['input_number.n'] },
  { domain: 'core', service: 'reload_core_config', data: {}, watch: [] },
  { domain: 'input_boolean', service: 'turn_on', data: { entity_id: 'input_boolean.x' }, watch: ['input_boolean.x'] },
  { domain: 'input_boolean', service: 'toggle', data: { entity_id: 'input_boolean.x' }, watch: ['input_boolean.x'] },
  { domain: 'input_boolean', service: 'reload', data: {}, watch: [] },
  { domain: 'input_number', service: 'set_value', data: { entity_id: 'input_number.n', value: 5 }, watch: ['input_number.n'] },
  { domain: 'input_number', service: 'increment', data: { entity_id: 'input_number.n' }, watch: ['input_number.n'] },
  { domain: 'input_text', service: 'set_value', data: { entity_id: 'input_text.t', value: 'hello' }, watch: ['input_text.t'] },
  { domain: 'input_select', service: 'select_option', data: { entity_id: 'input_select.s', option: 'b' }, watch: ['input_select.s'] },
  { domain: 'input_select', service: 'set_options', data: { entity_id: 'input_select.s', options: ['a', 'b', 'c'] }, watch: ['input_select.s'] },
  { domain: 'counter', service: 'increment', data: { entity_id: 'counter.c' }, watch: ['counter.c'] },
  { domain: 'counter', service: 'set_value', data: { entity_id: 'counter.c', value: 3 }, watch: ['counter.c'] },
  { domain: 'input_button', service: 'press', data: { entity_id: 'input_button.b' }, watch: ['input_button.b'] },
];

/** A route's path parameters by name. */
export type Params = Record<string, Segment>;

/** One REST route: how to call it validly, and what a refused call must leave alone. */
export interface RestRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** pattern as the router knows it, `:name` for parameters */
  path: string;
  access: 'none' | 'user' | 'admin';
  body?: 'json' | 'form';
  /** valid parameters */
  params?: (rng: Rng, ctx: FuzzContext) => Params;
  /** hostile parameters (default: hostileSegment for each) */
  badParams?: (rng: Rng, ctx: FuzzContext) => Params;
  /** a valid body for these parameters */
  valid?: (rng: Rng, ctx: FuzzContext, params: Params) => unknown;
  /** a valid query string, with its `?` */
  query?: (rng: Rng) => string;
  /** entities a refused request must leave as they were */
  watch?: (params: Params, body?: unknown) => string[];
  /** GET paths a refused request must leave as they were */
  watchPaths?: (params: Params) => string[];
  /** the event a successful request fires (checked against the listeners) */
  fires?: (params: Params) => string | undefined;
  /** a long-lived answer: read its start, then hang up */
  stream?: boolean;
}

const pickCall = (rng: Rng) => rng.pick(SERVICE_CALLS);

/** Every REST route the fuzz sends to. */
export const REST_ROUTES: RestRoute[] = [
  { method: 'GET', path: '/api/', access: 'user' },
  { method: 'GET', path: '/api/config', access: 'user' },
  { method: 'GET', path: '/api/core/state', access: 'user' },
  { method: 'GET', path: '/api/components', access: 'user' },
  { method: 'GET', path: '/api/states', access: 'user' },
  {
    method: 'GET',
    path: '/api/states/:entity_id',
    access: 'user',
    params: (rng, ctx) => ({ entity_id: segment(rng.pick(ctx.entityIds), 'existing entity') }),
    badParams: (rng, ctx) => ({ entity_id: entityIdSegment(rng, ctx) }),
  },
  {
    method: 'POST',
    path: '/api/states/:entity_id',
    access: 'admin',
    body: 'json',
    params: (rng) => ({ entity_id: segment(`sensor.fuzz_${rng.int(30)}`, 'fuzz entity') }),
    badParams: (rng, ctx) => ({ entity_id: entityIdSegment(rng, ctx) }),
    valid: (rng) => ({
      state: rng.pick(['on', 'off', '21.5', 'x']),
      attributes: { friendly_name: 'Fuzz', unit_of_measurement: '°C', list: [1, 'two', null], nested: { a: { b: true } } },
      force_update: rng.chance(0.2),
    }),
    watch: (p) => (p.entity_id.decoded !== undefined ? [p.entity_id.decoded.toLowerCase()] : []),
  },
  {
    method: 'DELETE',
    path: '/api/states/:entity_id',
    access: 'admin',
    params: (rng) => ({ entity_id: segment(`sensor.fuzz_${rng.int(30)}`, 'fuzz entity') }),
    badParams: (rng, ctx) => ({ entity_id: entityIdSegment(rng, ctx) }),
    watch: (p) => (p.entity_id.decoded !== undefined ? [p.entity_id.decoded.toLowerCase()] : []),
  },
  { method: 'GET', path: '/api/events', access: 'user' },
  {
    method: 'POST',
    path: '/api/events/:event_type',
    access: 'admin',
    body: 'json',
    params: (rng) => ({ event_type: segment(rng.pick(['fuzz_event', 'other_event', 'state_changed']), 'event type') }),
    badParams: (rng) => ({ event_type: eventTypeSegment(rng) }),
    valid: (rng, _ctx, p) =>
      p.event_type.decoded === 'state_changed'
        ? {
            entity_id: 'sensor.posted',
            old_state: null,
            new_state: {
              entity_id: 'sensor.posted',
              state: String(rng.int(100)),
              attributes: { a: 1 },
              last_changed: '2024-01-01T00:00:00.000000+00:00',
              last_updated: '2024-01-01T00:00:00.000000+00:00',
              context: { id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', parent_id: null, user_id: null },
            },
          }
        : { answer: 42, nested: { list: [1, 2, 3] } },
    fires: (p) => p.event_type.decoded,
  },
  { method: 'GET', path: '/api/services', access: 'user' },
  {
    method: 'POST',
    path: '/api/services/:domain/:service',
    access: 'user',
    body: 'json',
    params: (rng) => {
      const c = pickCall(rng);
      return { domain: segment(c.domain, 'domain'), service: segment(c.service, 'service') };
    },
    badParams: (rng) => {
      const c = pickCall(rng);
      return rng.weighted<() => Params>([
        [2, () => ({ domain: hostileSegment(rng), service: segment(c.service, 'service') })],
        [2, () => ({ domain: segment(c.domain, 'domain'), service: hostileSegment(rng) })],
        [1, () => ({ domain: hostileSegment(rng), service: hostileSegment(rng) })],
      ])();
    },
    valid: (_rng, _ctx, p) => SERVICE_CALLS.find((c) => c.domain === p.domain.decoded && c.service === p.service.decoded)?.data ?? {},
    query: (rng) => (rng.chance(0.1) ? '?return_response' : ''),
    watch: (p) => SERVICE_CALLS.find((c) => c.domain === p.domain.decoded && c.service === p.service.decoded)?.watch ?? ['input_boolean.x'],
    watchPaths: (p) => (p.domain.decoded === 'core' && p.service.decoded === 'set_location' ? ['/api/config'] : []),
  },
  {
    method: 'GET',
    path: '/api/stream',
    access: 'admin',
    stream: true,
    query: (rng) => rng.pick(['', '?restrict=fuzz_event', '?restrict=state_changed,fuzz_event', '?restrict=']),
  },
  {
    method: 'GET',
    path: '/api/history/period',
    access: 'user',
    query: (rng) => rng.pick(['?filter_entity_id=input_boolean.x', '?filter_entity_id=sensor.fuzz_1,input_boolean.x&minimal_response&no_attributes', '?filter_entity_id=sensor.posted&significant_changes_only=0&skip_initial_state']),
  },
  {
    method: 'GET',
    path: '/api/history/period/:timestamp',
    access: 'user',
    params: (rng) => ({ timestamp: segment(rng.pick(['2020-01-01T00:00:00+00:00', '2024-01-01', '2030-01-01T00:00:00Z']), 'timestamp') }),
    query: (rng) => rng.pick(['?filter_entity_id=input_boolean.x', '?filter_entity_id=sensor.fuzz_1&end_time=2040-01-01T00:00:00Z']),
  },
  { method: 'GET', path: '/auth/providers', access: 'none' },
  {
    method: 'POST',
    path: '/auth/login_flow',
    access: 'none',
    body: 'json',
    valid: (_rng, ctx) => ({ client_id: ctx.clientId, handler: ['homeassistant', null], redirect_uri: ctx.clientId }),
  },
  {
    method: 'GET',
    path: '/auth/login_flow/:flow_id',
    access: 'none',
    params: (_rng, ctx) => ({ flow_id: segment(ctx.flowId, 'flow id') }),
  },
  {
    method: 'POST',
    path: '/auth/login_flow/:flow_id',
    access: 'none',
    body: 'json',
    params: (_rng, ctx) => ({ flow_id: segment(ctx.flowId, 'flow id') }),
    valid: (rng, ctx) => ({ client_id: ctx.clientId, username: 'owner', password: rng.chance(0.5) ? 'correct horse battery' : 'wrong' }),
  },
  {
    method: 'DELETE',
    path: '/auth/login_flow/:flow_id',
    access: 'none',
    params: (_rng, ctx) => ({ flow_id: segment(ctx.flowId, 'flow id') }),
  },
  {
    method: 'POST',
    path: '/auth/token',
    access: 'none',
    body: 'form',
    valid: (rng, ctx) =>
      rng.pick([
        { grant_type: 'refresh_token', refresh_token: ctx.refreshToken, client_id: ctx.clientId },
        { grant_type: 'authorization_code', code: 'not-a-code', client_id: ctx.clientId },
        { action: 'revoke', token: 'not-a-token' },
      ]),
  },
  { method: 'POST', path: '/auth/revoke', access: 'none', body: 'form', valid: () => ({ token: 'not-a-token' }) },
  { method: 'GET', path: '/api/onboarding', access: 'none' },
  { method: 'GET', path: '/api/onboarding/installation_type', access: 'none' },
  {
    method: 'POST',
    path: '/api/onboarding/users',
    access: 'none',
    body: 'json',
    valid: (_rng, ctx) => ({ name: 'Second', username: 'second', password: 'pw pw pw pw', client_id: ctx.clientId, language: 'en' }),
  },
  {
    method: 'POST',
    path: '/api/template',
    access: 'admin',
    body: 'json',
    valid: (rng) => ({ template: rng.pick(TEMPLATES), variables: { x: rng.int(10) } }),
  },
  {
    method: 'POST',
    path: '/api/conversation/process',
    access: 'user',
    body: 'json',
    valid: (rng) => ({ text: rng.pick(SENTENCES), ...(rng.chance(0.3) ? { language: 'en' } : {}), ...(rng.chance(0.3) ? { agent_id: 'conversation.core' } : {}) }),
  },
  { method: 'POST', path: '/api/onboarding/core_config', access: 'user', body: 'json', valid: () => ({}) },
  { method: 'POST', path: '/api/onboarding/analytics', access: 'user', body: 'json', valid: () => ({}) },
  {
    method: 'POST',
    path: '/api/onboarding/integration',
    access: 'user',
    body: 'json',
    valid: (_rng, ctx) => ({ client_id: ctx.clientId, redirect_uri: `${ctx.clientId}?auth_callback=1` }),
  },
];

/** `/api/states/:entity_id` with the segments filled in. */
export function fillPath(pattern: string, params: Params): string {
  return pattern.replace(/:(\w+)/g, (_, name) => params[name]?.raw ?? name);
}

/** One WebSocket command: a valid message's fields and what a refused one must leave alone. */
export interface WsCommand {
  type: string;
  /** a valid message without id and type */
  valid: (rng: Rng, ctx: FuzzContext) => Record<string, unknown>;
  /** entities a refused command must leave as they were */
  watch?: (msg: Record<string, unknown>) => string[];
  /** the event a successful command fires */
  fires?: (msg: Record<string, unknown>) => string | undefined;
}

/** Every WebSocket command the fuzz sends. */
export const WS_COMMANDS: WsCommand[] = [
  { type: 'ping', valid: () => ({}) },
  { type: 'supported_features', valid: (rng) => ({ features: { coalesce_messages: rng.pick([0, 1]) } }) },
  { type: 'get_states', valid: () => ({}) },
  { type: 'get_config', valid: () => ({}) },
  { type: 'get_panels', valid: () => ({}) },
  { type: 'get_services', valid: () => ({}) },
  { type: 'auth/current_user', valid: () => ({}) },
  { type: 'subscribe_events', valid: (rng) => (rng.chance(0.3) ? {} : { event_type: rng.pick(['fuzz_event', 'state_changed']) }) },
  { type: 'unsubscribe_events', valid: (rng) => ({ subscription: rng.range(1, 50) }) },
  {
    type: 'subscribe_entities',
    valid: (rng, ctx) =>
      rng.pick([
        { entity_ids: [rng.pick(ctx.entityIds), 'sensor.fuzz_1'] },
        { include: { domains: ['sensor'], entity_globs: ['sensor.fuzz_*'], entities: ['input_boolean.x'] }, exclude: { entities: ['sensor.fuzz_2'] } },
      ]),
  },
  {
    type: 'call_service',
    valid: (rng) => {
      const c = pickCall(rng);
      const { entity_id, ...rest } = c.data;
      return entity_id !== undefined && rng.chance(0.5)
        ? { domain: c.domain, service: c.service, service_data: rest, target: { entity_id } }
        : { domain: c.domain, service: c.service, service_data: c.data };
    },
    watch: (msg) => SERVICE_CALLS.find((c) => c.domain === msg.domain && c.service === msg.service)?.watch ?? ['input_boolean.x'],
  },
  {
    type: 'fire_event',
    valid: (rng) =>
      rng.chance(0.3)
        ? { event_type: 'state_changed', event_data: { entity_id: 'sensor.ws_fired', new_state: { entity_id: 'sensor.ws_fired', state: '1' } } }
        : { event_type: 'fuzz_event', event_data: { answer: 42 } },
    fires: (msg) => (typeof msg.event_type === 'string' ? msg.event_type : undefined),
  },
  {
    type: 'history/history_during_period',
    valid: (rng, ctx) => ({
      start_time: rng.pick(['2020-01-01T00:00:00+00:00', '2024-01-01', '2040-01-01T00:00:00Z']),
      entity_ids: [rng.pick(ctx.entityIds), 'sensor.fuzz_1'],
      minimal_response: rng.chance(0.5),
      no_attributes: rng.chance(0.5),
      significant_changes_only: rng.chance(0.5),
    }),
  },
  {
    type: 'history/stream',
    valid: (rng, ctx) => ({
      start_time: '2020-01-01T00:00:00+00:00',
      ...(rng.chance(0.5) ? { end_time: rng.pick(['2021-01-01T00:00:00+00:00', '2040-01-01T00:00:00Z']) } : {}),
      entity_ids: [rng.pick(ctx.entityIds)],
      include_start_time_state: rng.chance(0.5),
    }),
  },
  ...registryCommands(),
  { type: 'conversation/process', valid: (rng) => ({ text: rng.pick(SENTENCES), ...(rng.chance(0.3) ? { conversation_id: null } : {}) }) },
  { type: 'conversation/prepare', valid: () => ({}) },
  { type: 'conversation/agent/list', valid: (rng) => (rng.chance(0.5) ? { language: 'en', country: 'US' } : {}) },
  { type: 'conversation/sentences/list', valid: () => ({}) },
  { type: 'conversation/agent/core/debug', valid: (rng) => ({ sentences: [rng.pick(SENTENCES), rng.pick(SENTENCES)] }) },
  { type: 'conversation/agent/core/language_scores', valid: () => ({ language: 'en' }) },
  { type: 'conversation/chat_log/subscribe_index', valid: () => ({}) },
  {
    type: 'render_template',
    valid: (rng) => ({ template: rng.pick(TEMPLATES), variables: { x: rng.int(10) }, report_errors: rng.chance(0.5), strict: rng.chance(0.2) }),
  },
];

/** The config/*_registry commands, valid for an empty registry or one the fuzz filled. */
function registryCommands(): WsCommand[] {
  const n = (rng: Rng) => rng.range(1, 20);
  const list = (kind: string): WsCommand => ({ type: `config/${kind}_registry/list`, valid: () => ({}) });
  return [
    list('area'),
    { type: 'config/area_registry/create', valid: (rng) => ({ name: `Fuzz area ${n(rng)}`, aliases: ['nook'], labels: ['fuzz_label_1'], floor_id: 'fuzz_floor_1' }) },
    { type: 'config/area_registry/update', valid: (rng) => ({ area_id: `fuzz_area_${n(rng)}`, name: `Fuzz area ${n(rng)}`, icon: null }) },
    { type: 'config/area_registry/delete', valid: (rng) => ({ area_id: `fuzz_area_${n(rng)}` }) },
    list('floor'),
    { type: 'config/floor_registry/create', valid: (rng) => ({ name: `Fuzz floor ${n(rng)}`, level: n(rng) }) },
    { type: 'config/floor_registry/update', valid: (rng) => ({ floor_id: `fuzz_floor_${n(rng)}`, level: null }) },
    { type: 'config/floor_registry/delete', valid: (rng) => ({ floor_id: `fuzz_floor_${n(rng)}` }) },
    list('label'),
    { type: 'config/label_registry/create', valid: (rng) => ({ name: `Fuzz label ${n(rng)}`, color: '#00ff00', icon: 'mdi:tag' }) },
    { type: 'config/label_registry/update', valid: (rng) => ({ label_id: `fuzz_label_${n(rng)}`, description: 'fuzzed' }) },
    { type: 'config/label_registry/delete', valid: (rng) => ({ label_id: `fuzz_label_${n(rng)}` }) },
    list('device'),
    { type: 'config/device_registry/update', valid: () => ({ device_id: 'fuzz_device', name_by_user: 'x' }) },
    { type: 'config/device_registry/remove_config_entry', valid: () => ({ device_id: 'fuzz_device', config_entry_id: 'fuzz_entry' }) },
    list('entity'),
    { type: 'config/entity_registry/list_for_display', valid: () => ({}) },
    { type: 'config/entity_registry/get', valid: () => ({ entity_id: 'input_boolean.x' }) },
    { type: 'config/entity_registry/get_entries', valid: () => ({ entity_ids: ['input_boolean.x', 'sensor.fuzz_1'] }) },
    { type: 'config/entity_registry/update', valid: (rng) => ({ entity_id: 'input_boolean.x', area_id: `fuzz_area_${n(rng)}`, labels: ['fuzz_label_1'], aliases: ['ex'] }) },
    { type: 'config/entity_registry/remove', valid: () => ({ entity_id: 'sensor.fuzz_1' }) },
  ];
}
