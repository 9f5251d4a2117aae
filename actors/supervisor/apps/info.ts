import type { Caller, Tree } from '../access.ts';
import { rating, readText, type AppStore } from './store.ts';
import type { RepositoryApp } from './repository.ts';
import type { InstalledApp } from './types.ts';
import type { AppManager } from './manager.ts';
import { uiSchema } from './options-schema.ts';
import { effectiveBoot, effectiveNetwork, hostnameOf, roleOf } from './user-settings.ts';
import { bothSpellings } from '../spellings.ts';

/**
 * What the app routes answer of installed apps: the listing entry (supervisor-wire §4.15) and
 * the detail (§8.8), keys in the original's order; v1 adds the deprecated `advanced`.
 */

export function latestOf(app: InstalledApp, storeApp: RepositoryApp | null): string {
  return storeApp?.config.version ?? app.user.version;
}

/** The original's `need_update` of an app: the store has another version, newer or not (a store may go back). */
export function updateAvailable(app: InstalledApp, storeApp: RepositoryApp | null): boolean {
  return storeApp !== null && storeApp.config.version !== app.user.version;
}

/** One entry of GET /addons (v1) or /apps (v2). */
export function listEntry(app: InstalledApp, storeApp: RepositoryApp | null, store: AppStore | undefined, tree: Tree): Record<string, unknown> {
  const c = app.config;
  return {
    name: c.name,
    slug: app.slug,
    description: c.description,
    ...(tree === 'v1' ? { advanced: c.advanced } : {}),
    stage: c.stage,
    version: app.user.version,
    version_latest: latestOf(app, storeApp),
    update_available: updateAvailable(app, storeApp),
    available: storeApp && store ? store.available(storeApp) : false,
    detached: storeApp === null,
    ...bothSpellings('homeassistant', c.homeassistant),
    state: app.state,
    repository: app.repository,
    build: c.image === null,
    url: c.url,
    icon: storeApp?.icon != null,
    logo: storeApp?.logo != null,
    system_managed: app.user.system_managed,
  };
}

/** `webui` with the host port the user published for `[PORT:n]`; null when it is not published. */
function webuiOf(app: InstalledApp): string | null {
  const webui = app.config.webui;
  if (!webui) return null;
  const m = /\[PORT:(\d+)\]/.exec(webui);
  if (!m) return webui;
  const network = effectiveNetwork(app.config, app.user) ?? {};
  const host = network[`${m[1]}/tcp`] ?? network[m[1]!];
  if (host === undefined || host === null) return null;
  let out = webui.replace(m[0], String(host));
  // `[PROTO:option]`: https when the named boolean option is on
  const proto = /\[PROTO:(\w+)\]/.exec(out);
  if (proto) out = out.replace(proto[0], app.user.options[proto[1]!] === true ? 'https' : 'http');
  return out;
}

/** Whether `caller` sees another app's options (apps below manager do not). */
function seesOptions(caller: Caller | undefined, slug: string): boolean {
  if (caller?.kind !== 'app') return true;
  if (caller.slug === slug) return true;
  return caller.role === 'manager' || caller.role === 'admin';
}

/** GET /addons/{app}/info of an installed app. */
export async function installedInfo(manager: AppManager, store: AppStore | undefined, app: InstalledApp, options: { tree: Tree; caller?: Caller }): Promise<Record<string, unknown>> {
  const c = app.config;
  const storeApp = manager.storeApp(app.slug);
  const forRating: RepositoryApp = storeApp ?? ({ config: c, apparmorProfile: null } as unknown as RepositoryApp);
  const inspect = await manager.inspectOf(app.slug).catch(() => null);
  const ip = Object.values(inspect?.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress || '0.0.0.0';
  const token = app.user.ingress_token;
  return {
    name: c.name,
    slug: app.slug,
    hostname: hostnameOf(app.slug),
    dns: [`${hostnameOf(app.slug)}.local.hass.io`],
    description: c.description,
    long_description: storeApp?.readme ? await readText(storeApp.readme) : null,
    ...(options.tree === 'v1' ? { advanced: c.advanced } : {}),
    stage: c.stage,
    repository: app.repository,
    version_latest: latestOf(app, storeApp),
    protected: app.user.protected,
    rating: rating(forRating),
    boot_config: c.boot,
    boot: effectiveBoot(c, app.user),
    options: seesOptions(options.caller, app.slug) ? manager.options(app) : {},
    schema: uiSchema(manager.schemaOf(c)),
    arch: c.arch,
    machine: c.machine,
    ...bothSpellings('homeassistant', c.homeassistant),
    url: c.url,
    detached: storeApp === null,
    available: storeApp && store ? store.available(storeApp) : false,
    build: c.image === null,
    network: effectiveNetwork(c, app.user),
    network_description: c.ports_description,
    host_network: c.host_network,
    host_pid: c.host_pid,
    host_ipc: c.host_ipc,
    host_uts: c.host_uts,
    host_dbus: c.host_dbus,
    privileged: c.privileged,
    full_access: c.full_access,
    apparmor: !c.apparmor ? 'disable' : storeApp?.apparmorProfile ? 'profile' : 'default',
    icon: storeApp?.icon != null,
    logo: storeApp?.logo != null,
    changelog: storeApp?.changelog != null,
    documentation: storeApp?.documentation != null,
    stdin: c.stdin,
    ...bothSpellings('hassio_api', c.hassio_api),
    ...bothSpellings('hassio_role', c.hassio_role, roleOf(c)),
    auth_api: c.auth_api,
    ...bothSpellings('homeassistant_api', c.homeassistant_api),
    gpio: c.gpio,
    usb: c.usb,
    uart: c.uart,
    kernel_modules: c.kernel_modules,
    devicetree: c.devicetree,
    udev: c.udev,
    docker_api: c.docker_api,
    video: c.video,
    audio: false,
    startup: c.startup,
    services: c.services,
    discovery: c.discovery,
    translations: {},
    ingress: c.ingress,
    signed: false,
    state: app.state,
    webui: webuiOf(app),
    ingress_entry: c.ingress ? `/api/hassio_ingress/${token}` : null,
    ingress_url: c.ingress ? `/api/hassio_ingress/${token}/${c.ingress_entry ?? ''}` : null,
    ingress_port: c.ingress_port,
    ingress_panel: app.user.ingress_panel,
    audio_input: app.user.audio_input,
    audio_output: app.user.audio_output,
    auto_update: app.user.auto_update,
    ip_address: ip,
    version: app.user.version,
    update_available: updateAvailable(app, storeApp),
    watchdog: app.user.watchdog,
    devices: c.devices,
    system_managed: app.user.system_managed,
    system_managed_config_entry: app.user.system_managed_config_entry,
  };
}

/** v1's info of an app only the store has (§8.9): the store's extended record, state `unknown`, its default options. */
export async function storeOnlyInfo(store: AppStore, app: RepositoryApp): Promise<Record<string, unknown>> {
  return { ...(await store.summary(app, true)), state: 'unknown', options: app.config.options };
}

/** The installed apps as GET /supervisor/info lists them (v1 `addons`). */
export function supervisorInfoApps(manager: AppManager): Record<string, unknown>[] {
  return manager.list().map((app) => {
    const storeApp = manager.storeApp(app.slug);
    return {
      name: app.config.name,
      slug: app.slug,
      version: app.user.version,
      version_latest: latestOf(app, storeApp),
      update_available: updateAvailable(app, storeApp),
      state: app.state,
      repository: app.repository,
      icon: storeApp?.icon != null,
    };
  });
}

/** The apps' entries of GET /available_updates (after core, supervisor and os). */
export function appUpdates(manager: AppManager): Record<string, unknown>[] {
  return manager
    .list()
    .map((app) => ({ app, storeApp: manager.storeApp(app.slug) }))
    .filter(({ app, storeApp }) => updateAvailable(app, storeApp))
    .map(({ app, storeApp }) => ({
      update_type: 'addon',
      name: app.config.name,
      icon: storeApp?.icon ? `/addons/${app.slug}/icon` : null,
      panel_path: `/update-available/${app.slug}`,
      version_latest: latestOf(app, storeApp),
    }));
}
