import { join } from 'node:path';
import type Docker from 'dockerode';
import type { AppConfig } from './repository.ts';
import { hostnameOf } from './user-settings.ts';
import type { AppDeviceAccess } from '../hardware/app-devices.ts';
import { childPath } from '../paths.ts';

/**
 * How an app's container is made (supervisor-wire §8.6), as far as a plain engine allows: the
 * supervisor reached as `supervisor` through the host gateway instead of the `hassio` network,
 * and the app's folders as binds of the supervisor's data directory.
 */

export interface AppContainerInput {
  slug: string;
  config: AppConfig;
  /** `image:tag` */
  image: string;
  name: string;
  token: string;
  timezone: string;
  /** the supervisor's URL as the container reaches it */
  supervisorUrl: string;
  /** the host ports by container port (`8099/tcp`); null entries are not published */
  network: Record<string, number | null> | null;
  /** the host devices, cgroup rules and binds the app's hardware needs give it (none when it needs none) */
  hardware?: AppDeviceAccess;
  /** the app's `/data` on the host */
  dataDir: string;
  /** the supervisor's data directory (share, media, backup, ssl, app_configs live under it) */
  supervisorDataDir: string;
  /** the core's configuration directory (map `config`, `homeassistant_config`) */
  coreDataDir: string;
  /** the dns plugin, once installed: the app joins its network and resolves through it (§8.6) */
  dns?: { network: string; ip: string } | null;
}

/** Where each map type is mounted by default, and where it lives on the host. */
function mapTarget(type: string, i: AppContainerInput): { host: string; target: string } | null {
  const d = i.supervisorDataDir;
  switch (type) {
    case 'config':
      return { host: i.coreDataDir, target: '/config' };
    case 'homeassistant_config':
      return { host: i.coreDataDir, target: '/homeassistant' };
    case 'app_config':
    case 'addon_config':
      return { host: appConfigDir(d, i.slug), target: '/config' };
    case 'all_app_configs':
      return { host: join(d, 'app_configs'), target: '/app_configs' };
    case 'all_addon_configs':
      return { host: join(d, 'app_configs'), target: '/addon_configs' };
    case 'local_apps':
      return { host: join(d, 'apps', 'local'), target: '/local_apps' };
    case 'addons':
      return { host: join(d, 'apps', 'local'), target: '/addons' };
    case 'ssl':
    case 'share':
    case 'media':
    case 'backup':
      return { host: join(d, type), target: `/${type}` };
    default:
      return null; // `data` only moves /data, which is always there
  }
}

/** The app's public config folder on the host (`<data>/app_configs/<slug>`). */
export function appConfigDir(supervisorDataDir: string, slug: string): string {
  return childPath(join(supervisorDataDir, 'app_configs'), slug);
}

/** The app's own data folder on the host (`<data>/apps/data/<slug>`, its `/data`). */
export function appDataDir(supervisorDataDir: string, slug: string): string {
  return childPath(join(supervisorDataDir, 'apps', 'data'), slug);
}

/** The host folders the container's binds need (made before it is created). */
export function hostFolders(i: AppContainerInput): string[] {
  return [i.dataDir, ...i.config.map.map((m) => mapTarget(m.type, i)?.host).filter((h): h is string => !!h)];
}

/** Which `map` entry moves `/data` (its `path`), else `/data`. */
function dataTarget(config: AppConfig): string {
  return config.map.find((m) => m.type === 'data')?.path ?? '/data';
}

export function containerSpec(i: AppContainerInput): Docker.ContainerCreateOptions {
  const c = i.config;
  const env = [
    ...Object.entries(c.environment).map(([k, v]) => `${k}=${v}`),
    `TZ=${i.timezone}`,
    `SUPERVISOR_TOKEN=${i.token}`,
    `HASSIO_TOKEN=${i.token}`,
    `SUPERVISOR=${i.supervisorUrl}`,
  ];
  const binds = [`${i.dataDir}:${dataTarget(c)}:rw`];
  for (const m of c.map) {
    const t = mapTarget(m.type, i);
    if (t) binds.push(`${t.host}:${m.path ?? t.target}:${m.read_only ? 'ro' : 'rw'}`);
  }
  const exposed: Record<string, object> = {};
  const bindings: Record<string, Array<{ HostIp: string; HostPort: string }>> = {};
  for (const [key, host] of Object.entries(i.network ?? {})) {
    const port = key.includes('/') ? key : `${key}/tcp`;
    exposed[port] = {};
    if (host !== null) bindings[port] = [{ HostIp: '', HostPort: String(host) }];
  }
  binds.push(...(i.hardware?.binds ?? []));
  // the ingress port is reached by the supervisor on the container's address, published or not
  if (c.ingress && c.ingress_port) exposed[`${c.ingress_port}/tcp`] ??= {};
  // on the plugin network the dns plugin answers the other apps' hostnames (host-network apps use the host's)
  const dns = c.host_network ? null : (i.dns ?? null);
  return {
    name: i.name,
    Hostname: c.host_uts ? undefined : hostnameOf(i.slug),
    Image: i.image,
    Env: env,
    Labels: { supervisor_managed: '', 'io.hass.type': 'app', 'io.hass.slug': i.slug },
    ExposedPorts: exposed,
    OpenStdin: c.stdin,
    AttachStdin: c.stdin,
    StdinOnce: false,
    StopTimeout: c.timeout,
    HostConfig: {
      Binds: binds,
      PortBindings: bindings,
      ExtraHosts: ['supervisor:host-gateway', 'hassio:host-gateway'],
      Init: c.init,
      CapAdd: c.privileged.length ? c.privileged : undefined,
      NetworkMode: c.host_network ? 'host' : dns?.network,
      ...(dns ? { Dns: [dns.ip], DnsSearch: ['local.hass.io'], DnsOptions: ['timeout:10'] } : {}),
      Tmpfs: c.host_ipc ? undefined : { '/dev/shm': '' },
      Devices: i.hardware?.devices.length ? i.hardware.devices : undefined,
      DeviceCgroupRules: i.hardware?.rules.length ? i.hardware.rules : undefined,
      OomScoreAdj: 200,
      RestartPolicy: { Name: 'no' },
    },
  };
}
