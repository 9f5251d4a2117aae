import type { Context } from '../../store/types.ts';
import type { SystemUsers } from '../auth/system-user.ts';
import { GROUP_ADMIN } from '../auth/users.ts';
import type { Logger } from '../logging/logs.ts';
import { SupervisorApiError, type SupervisorClient } from './client.ts';
import type { DiscoveryFlows, SupervisorDiscoveryMessage } from './discovery-flows.ts';

/**
 * The core's side of a supervisor beyond `supervisor/api` (the original's hassio integration):
 * at start the core makes sure of its system user "Supervisor" (an admin) with a refresh token
 * and hands the token over (`POST /core/options {refresh_token}`), which is how the supervisor
 * gets access to the core's API; it opens a discovery flow for each discovery message the
 * supervisor holds and for each one it pushes later; and it checks apps' logins for the
 * supervisor's auth helper.
 */

export const SUPERVISOR_USER_NAME = 'Supervisor';

export interface HassioDeps {
  client: SupervisorClient;
  /** the system user "Supervisor" and its refresh token */
  auth: SystemUsers;
  flows: DiscoveryFlows;
  logger: Logger;
  context(): Context;
}

export class Hassio {
  /** the system user the supervisor calls the core as, known once `start` has made sure of it */
  private userId?: string;

  constructor(private readonly deps: HassioDeps) {}

  /** Whether a request authenticated as `userId` is the supervisor's. */
  isSupervisor(userId: string | undefined): boolean {
    return userId !== undefined && userId === this.userId;
  }

  /** The system user and its token, the handover, the discovery messages already there. */
  async start(): Promise<void> {
    const { userId, refreshToken } = await this.deps.auth.ensureSystemUser(SUPERVISOR_USER_NAME, [GROUP_ADMIN]);
    this.userId = userId;
    try {
      await this.deps.client.send('/core/options', { method: 'post', data: { refresh_token: refreshToken }, source: 'core.hassio' });
    } catch (err) {
      this.deps.logger.error(`cannot hand the supervisor its access to the core: ${(err as Error).message}`);
      return;
    }
    await this.loadDiscovery().catch((err) => this.deps.logger.warning(`cannot read the supervisor's discovery messages: ${(err as Error).message}`));
  }

  private async loadDiscovery(): Promise<void> {
    const data = (await this.deps.client.send('/discovery', { method: 'get', source: 'core.hassio' })) as { discovery?: SupervisorDiscoveryMessage[] };
    for (const message of data.discovery ?? []) await this.open(message);
  }

  /** POST /api/hassio_push/discovery/<uuid>: the message is read back from the supervisor, never taken from the push. */
  async discoveryPushed(uuid: string): Promise<void> {
    const message = (await this.deps.client.send(`/discovery/${encodeURIComponent(uuid)}`, { method: 'get', source: 'core.hassio' })) as SupervisorDiscoveryMessage;
    await this.open(message);
  }

  /** DELETE /api/hassio_push/discovery/<uuid>: the flow ends unless the supervisor still holds the message. */
  async discoveryRemoved(uuid: string): Promise<void> {
    try {
      await this.deps.client.send(`/discovery/${encodeURIComponent(uuid)}`, { method: 'get', source: 'core.hassio' });
      return; // still there: a stale delete
    } catch (err) {
      if (!(err instanceof SupervisorApiError)) throw err;
    }
    await this.deps.flows.remove(uuid, this.deps.context());
  }

  private async open(message: SupervisorDiscoveryMessage): Promise<void> {
    const slug = message.addon ?? message.app ?? '';
    let name = slug;
    try {
      const info = (await this.deps.client.send(`/addons/${encodeURIComponent(slug)}/info`, { method: 'get', source: 'core.hassio' })) as { name?: string };
      if (typeof info.name === 'string') name = info.name;
    } catch {
      // the app's name is for the flow's title; its slug does
    }
    await this.deps.flows.open(message, name, this.deps.context());
  }
}
