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

interface Flow extends FlowProgress {
  uuid: string;
  /** what the integration's hassio step reads (the original's HassioServiceInfo) */
  discovery: { config: Record<string, unknown>; name: string; slug: string; uuid: string };
}

export class DiscoveryFlows {
  private readonly byUuid = new Map<string, Flow>();

  constructor(private readonly deps: { log: EventLog; clock: Clock; ids: Ids }) {}

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
  async open(message: SupervisorDiscoveryMessage, appName: string, context: Context): Promise<FlowProgress> {
    const slug = message.addon ?? message.app ?? '';
    const discovery = { config: message.config, name: appName, slug, uuid: message.uuid };
    const open = this.byUuid.get(message.uuid);
    if (open) {
      open.discovery = discovery;
      return open;
    }
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
