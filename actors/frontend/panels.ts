import type { Context } from '../../store/types.ts';
import type { Logger } from '../logging/logs.ts';

/**
 * The frontend's panels (the original's `frontend` panel registry): what `get_panels` lists, keyed
 * by the panel's url path. The built-in ones are there from the start; others come and go while
 * the core runs (an app's ingress panel), each change announced as `panels_updated` on the bus.
 * Panels are not records: whoever adds one adds it again at every start, as in the original.
 */

export interface Panel {
  component_name: string;
  icon: string | null;
  title: string | null;
  config: Record<string, unknown> | null;
  url_path: string;
  require_admin: boolean;
  config_panel_domain: string | null;
}

export interface PanelsDeps {
  fireEvent(eventType: string, data: Record<string, unknown>, origin: 'LOCAL', context: Context): Promise<unknown>;
  logger: Logger;
}

/** A panel as the original's `async_register_built_in_panel` fills it: unset fields are null. */
export function panel(component_name: string, options: Partial<Omit<Panel, 'component_name'>> = {}): Panel {
  return {
    component_name,
    icon: options.icon ?? null,
    title: options.title ?? null,
    config: options.config ?? null,
    url_path: options.url_path ?? component_name,
    require_admin: options.require_admin ?? false,
    config_panel_domain: options.config_panel_domain ?? null,
  };
}

/**
 * Hearth's own pages as the original names its panels: the dashboard's home is the default
 * dashboard (lovelace, storage mode, no title or icon of its own), its history page the history panel.
 */
export const BUILT_IN_PANELS: readonly Panel[] = [panel('lovelace', { config: { mode: 'storage' } }), panel('history', { title: 'history', icon: 'mdi:chart-box' })];

/** An app's ingress panel as the original's hassio integration registers it through panel_custom. */
export function appPanel(slug: string, data: { title: string; icon: string; admin: boolean }): Panel {
  return panel('custom', {
    url_path: slug,
    title: data.title,
    icon: data.icon,
    require_admin: data.admin,
    config: {
      ingress: slug,
      _panel_custom: { name: 'hassio-main', embed_iframe: true, trust_external: false, js_url: '/api/hassio/app/entrypoint.js' },
    },
  });
}

export class PanelInUseError extends Error {}

export class Panels {
  private readonly panels = new Map<string, Panel>();
  private readonly builtIn = new Set<string>();

  constructor(private readonly deps: PanelsDeps, builtIns: readonly Panel[] = BUILT_IN_PANELS) {
    for (const p of builtIns) {
      this.panels.set(p.url_path, p);
      this.builtIn.add(p.url_path);
    }
  }

  /**
   * Adds a panel, or replaces one added earlier (the supervisor pushes an enabled panel again
   * whenever its option is set); a built-in panel's path is refused (PanelInUseError).
   */
  async register(p: Panel, context: Context): Promise<void> {
    if (this.builtIn.has(p.url_path)) throw new PanelInUseError(`Overwriting panel ${p.url_path}`);
    this.panels.set(p.url_path, p);
    await this.deps.fireEvent('panels_updated', {}, 'LOCAL', context);
  }

  /** Removes a panel; an unknown one is a warning, and nothing changes, as in the original. */
  async remove(urlPath: string, context: Context): Promise<void> {
    if (this.builtIn.has(urlPath) || !this.panels.delete(urlPath)) {
      this.deps.logger.warning(`Removing unknown panel ${urlPath}`);
      return;
    }
    await this.deps.fireEvent('panels_updated', {}, 'LOCAL', context);
  }

  get(urlPath: string): Panel | undefined {
    return this.panels.get(urlPath);
  }

  /** What `get_panels` answers: every panel for an admin, the others only those not for admins. */
  visibleTo(isAdmin: boolean): Record<string, Panel> {
    const out: Record<string, Panel> = {};
    for (const [path, p] of this.panels) if (isAdmin || !p.require_admin) out[path] = p;
    return out;
  }
}
