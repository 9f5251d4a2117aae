import type { Context } from '../../store/types.ts';
import { appPanel, type Panels } from '../frontend/panels.ts';
import type { Logger } from '../logging/logs.ts';
import { SupervisorApiError, type SupervisorClient } from './client.ts';

/**
 * Apps' ingress panels in the core's sidebar (the original's hassio `addon_panel`): at start every
 * enabled panel the supervisor lists at `/ingress/panels`; later the supervisor pushes a slug
 * whose `ingress_panel` option changed, and the panel's data is read back from the supervisor,
 * never taken from the push.
 */

export interface IngressPanelData {
  title: string;
  icon: string;
  admin: boolean;
  enable: boolean;
}

export interface AppPanelsDeps {
  client: SupervisorClient;
  panels: Panels;
  logger: Logger;
  context(): Context;
}

export class AppPanels {
  constructor(private readonly deps: AppPanelsDeps) {}

  /** Registers every enabled panel; a supervisor that does not answer leaves the sidebar as it is. */
  async load(): Promise<void> {
    for (const [slug, data] of Object.entries(await this.list())) {
      if (data.enable) await this.register(slug, data);
    }
  }

  /** POST /api/hassio_push/panel/<slug>: false when the supervisor has no enabled panel by that slug. */
  async pushed(slug: string): Promise<boolean> {
    const data = (await this.list())[slug];
    if (!data?.enable) {
      this.deps.logger.error(`Panel is not enable for ${slug}`);
      return false;
    }
    await this.register(slug, data);
    return true;
  }

  /** DELETE /api/hassio_push/panel/<slug>. */
  async removed(slug: string): Promise<void> {
    await this.deps.panels.remove(slug, this.deps.context());
  }

  private async register(slug: string, data: IngressPanelData): Promise<void> {
    await this.deps.panels.register(appPanel(slug, data), this.deps.context());
  }

  private async list(): Promise<Record<string, IngressPanelData>> {
    try {
      const data = (await this.deps.client.send('/ingress/panels', { method: 'get', source: 'core.hassio' })) as { panels?: unknown };
      return validPanels(data.panels);
    } catch (err) {
      if (!(err instanceof SupervisorApiError)) throw err;
      this.deps.logger.error(`Can't read panel info: ${err.message}`);
      return {};
    }
  }
}

/** The supervisor's panels, each entry kept only when its fields have the types the sidebar needs. */
function validPanels(panels: unknown): Record<string, IngressPanelData> {
  const out: Record<string, IngressPanelData> = {};
  if (!panels || typeof panels !== 'object') return out;
  for (const [slug, p] of Object.entries(panels as Record<string, any>)) {
    if (p && typeof p.title === 'string' && typeof p.icon === 'string' && typeof p.admin === 'boolean' && typeof p.enable === 'boolean') {
      out[slug] = { title: p.title, icon: p.icon, admin: p.admin, enable: p.enable };
    }
  }
  return out;
}
