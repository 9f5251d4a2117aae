import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog } from '../../store/types.ts';
import { typedRecords } from '../../store/typed-records.ts';

/**
 * Discovery flows the supervisor's apps started (the original's config flows with source
 * `hassio`): one per discovery message, shown by `config_entries/flow/progress` until the user
 * finishes it or the app withdraws the message. Flows live in memory, as the original's; the
 * core lists the supervisor's messages again at each start. Each start and removal is a record
 * on `hassio/discovery/<uuid>` (`discovery_flow_started`, `discovery_flow_removed`) without the
 * message's config, which may hold a password.
 */

export const DISCOVERY_FLOW_PREFIX = 'hassio/discovery/';

/** A discovery message's flow records on `hassio/discovery/<uuid>` (an audit trail; never read back). */
export type DiscoveryFlowRecord =
  | { type: 'discovery_flow_started'; data: { flow_id: string; handler: string; uuid: string; addon: string } }
  | { type: 'discovery_flow_removed'; data: { flow_id: string; handler: string; uuid: string } };
const discoveryFlowRecords = typedRecords<DiscoveryFlowRecord>(DISCOVERY_FLOW_PREFIX, { discovery_flow_started: true, discovery_flow_removed: true });

/** A discovery message as the supervisor's GET /discovery/<uuid> answers it (v1: `addon`). */
export interface SupervisorDiscoveryMessage {
  uuid: string;
  addon?: string;
  app?: string;
  service: string;
  config: Record<string, unknown>;
}

/** One entry of config_entries/flow/progress (the original's fields, in its order). */
export interface FlowProgress {
  flow_id: string;
  handler: string;
  step_id: string;
  context: { source: 'hassio'; unique_id: string; title_placeholders: { addon: string } };
}

export interface Flow extends FlowProgress {
  uuid: string;
  /** what the integration's hassio step reads (the original's HassioServiceInfo) */
  discovery: { config: Record<string, unknown>; name: string; slug: string; uuid: string };
}

/** What a flow's step came to: an entry made, the form again with errors, or the end. */
export type FlowStepResult =
  | { type: 'create_entry'; title: string; result: Record<string, unknown> }
  | { type: 'form'; errors: Record<string, string> }
  | { type: 'abort'; reason: string };

/** An integration's hassio discovery step (mqtt's hassio_confirm), supplied by the integration. */
export interface FlowHandler {
  /** false when the integration would abort at once (already set up: the original's single_instance_allowed) */
  wanted?(discovery: Flow['discovery']): boolean;
  /** the user confirmed (`user_input`): make the entry, or say why not */
  confirm(discovery: Flow['discovery'], userInput: unknown, context: Context): Promise<FlowStepResult>;
}

/** A flow's answer as the original's config flow API writes it. */
export type FlowResultJson = Record<string, unknown>;

export class DiscoveryFlows {
  private readonly byUuid = new Map<string, Flow>();
  private readonly handlers = new Map<string, FlowHandler>();

  constructor(private readonly deps: { log: EventLog; clock: Clock; ids: Ids }) {}

  /** The step of an integration's flows (before the supervisor's messages are read). */
  registerHandler(handler: string, step: FlowHandler): void {
    this.handlers.set(handler, step);
  }

  private byFlowId(flowId: string): Flow | undefined {
    return [...this.byUuid.values()].find((f) => f.flow_id === flowId);
  }

  private formJson(flow: Flow, errors: Record<string, string> | null): FlowResultJson {
    return {
      type: 'form',
      flow_id: flow.flow_id,
      handler: flow.handler,
      step_id: flow.step_id,
      data_schema: [],
      errors,
      description_placeholders: { addon: flow.discovery.name },
      last_step: null,
      preview: null,
    };
  }

  /** The flow's current step (`GET .../flow/<flow_id>`), or undefined for no such flow. */
  show(flowId: string): FlowResultJson | undefined {
    const flow = this.byFlowId(flowId);
    return flow && this.formJson(flow, null);
  }

  /**
   * The user's answer to a flow's step (`POST .../flow/<flow_id>`): the handler's entry ends the
   * flow (recorded `discovery_flow_finished`), its errors show the form again. Undefined for no
   * such flow.
   */
  async configure(flowId: string, userInput: unknown, context: Context): Promise<FlowResultJson | undefined> {
    const flow = this.byFlowId(flowId);
    if (!flow) return undefined;
    const handler = this.handlers.get(flow.handler);
    const outcome: FlowStepResult = handler ? await handler.confirm(flow.discovery, userInput, context) : { type: 'abort', reason: 'not_implemented' };
    if (outcome.type === 'form') return this.formJson(flow, outcome.errors);
    this.byUuid.delete(flow.uuid);
    const base = { flow_id: flow.flow_id, handler: flow.handler, description_placeholders: null, context: flow.context };
    if (outcome.type === 'abort') {
      await this.record(flow, 'discovery_flow_removed', { reason: outcome.reason }, context);
      return { type: 'abort', ...base, reason: outcome.reason };
    }
    await this.record(flow, 'discovery_flow_finished', { entry_id: outcome.result.entry_id }, context);
    return { version: 1, minor_version: 1, type: 'create_entry', ...base, title: outcome.title, description: null, result: outcome.result, options: {}, subentries: [] };
  }

  /** Ends a flow the user dismissed (`DELETE .../flow/<flow_id>`); false for no such flow. */
  async dismiss(flowId: string, context: Context): Promise<boolean> {
    const flow = this.byFlowId(flowId);
    if (!flow) return false;
    this.byUuid.delete(flow.uuid);
    await this.record(flow, 'discovery_flow_removed', { reason: 'user' }, context);
    return true;
  }

  private async record(flow: Flow, type: string, extra: Record<string, unknown>, context: Context): Promise<void> {
    const data = { flow_id: flow.flow_id, handler: flow.handler, uuid: flow.uuid, ...extra };
    await this.deps.log.append([{ time: this.deps.clock.now(), stream: DISCOVERY_FLOW_PREFIX + flow.uuid, type, data, context }]);
  }

  progress(): FlowProgress[] {
    return [...this.byUuid.values()].map(({ flow_id, handler, step_id, context }) => ({ flow_id, handler, step_id, context }));
  }

  /** The flow of a message (with what its hassio step would read), if one is open. */
  ofMessage(uuid: string): (FlowProgress & { discovery: Flow['discovery'] }) | undefined {
    const flow = this.byUuid.get(uuid);
    return flow && { flow_id: flow.flow_id, handler: flow.handler, step_id: flow.step_id, context: flow.context, discovery: flow.discovery };
  }

  /**
   * Opens the flow of a message, `appName` being the sending app's name; a message whose flow is
   * open (the same uuid sent again with a changed config) updates what the flow holds.
   */
  async open(message: SupervisorDiscoveryMessage, appName: string, context: Context): Promise<FlowProgress | undefined> {
    const slug = message.addon ?? message.app ?? '';
    const discovery = { config: message.config, name: appName, slug, uuid: message.uuid };
    const open = this.byUuid.get(message.uuid);
    if (open) {
      open.discovery = discovery;
      return open;
    }
    const handler = this.handlers.get(message.service);
    // the integration is set up already: its flow would abort at once, so none is shown
    if (handler?.wanted && !handler.wanted(discovery)) return undefined;
    const flow: Flow = {
      flow_id: this.deps.ids.uuidHex(),
      handler: message.service,
      step_id: 'hassio_confirm',
      context: { source: 'hassio', unique_id: message.uuid, title_placeholders: { addon: appName } },
      uuid: message.uuid,
      discovery,
    };
    this.byUuid.set(message.uuid, flow);
    await this.deps.log.append([
      discoveryFlowRecords.make(DISCOVERY_FLOW_PREFIX + message.uuid, { type: 'discovery_flow_started', data: { flow_id: flow.flow_id, handler: flow.handler, uuid: message.uuid, addon: slug } }, context, this.deps.clock.now()),
    ]);
    return flow;
  }

  /** Ends the flow of a message the app withdrew; false when none was open. */
  async remove(uuid: string, context: Context): Promise<boolean> {
    const flow = this.byUuid.get(uuid);
    if (!flow) return false;
    this.byUuid.delete(uuid);
    await this.deps.log.append([
      discoveryFlowRecords.make(DISCOVERY_FLOW_PREFIX + uuid, { type: 'discovery_flow_removed', data: { flow_id: flow.flow_id, handler: flow.handler, uuid } }, context, this.deps.clock.now()),
    ]);
    return true;
  }
}
