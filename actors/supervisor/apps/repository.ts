import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * App repositories read from directories: `repository.yaml` (or .yml/.json) and one directory per
 * app with `config.yaml` (or .yml/.json) in the original's format (supervisor-wire §8.1, §8.2).
 * An app whose config does not validate is left out with a log line naming the file and why.
 */

/** The architectures an app may declare (the last three are deprecated in the original). */
export const APP_ARCHES = ['aarch64', 'amd64', 'armhf', 'armv7', 'i386'] as const;
export const STARTUPS = ['initialize', 'system', 'services', 'application', 'once'] as const;
export const BOOTS = ['auto', 'manual', 'manual_only'] as const;
export const STAGES = ['stable', 'experimental', 'deprecated'] as const;
export const APP_ROLES = ['default', 'homeassistant', 'backup', 'manager', 'admin'] as const;
const MAP_TYPES = ['data', 'config', 'ssl', 'local_apps', 'addons', 'backup', 'share', 'media', 'homeassistant_config', 'all_app_configs', 'all_addon_configs', 'app_config', 'addon_config'];
const PRIVILEGES = ['BPF', 'CHECKPOINT_RESTORE', 'DAC_READ_SEARCH', 'IPC_LOCK', 'NET_ADMIN', 'NET_RAW', 'PERFMON', 'SYS_ADMIN', 'SYS_MODULE', 'SYS_NICE', 'SYS_PTRACE', 'SYS_RAWIO', 'SYS_RESOURCE', 'SYS_TIME'];

const RE_SLUG = /^[-_.A-Za-z0-9]+$/;
const RE_PORT_KEY = /^\d+(?:\/tcp|\/udp)?$/;
const RE_SERVICE = /^(?:mqtt|mysql):(?:provide|want|need)$/;
const RE_WATCHDOG = /^(?:https?|\[PROTO:\w+\]|tcp):\/\/\[HOST\]:(\[PORT:\d+\]|\d+).*$/;
const RE_WEBUI = /^(?:https?|\[PROTO:\w+\]):\/\/\[HOST\]:\[PORT:\d+\].*$/;
const RE_IMAGE = /^([a-zA-Z\-.:\d{}]+\/)*?([\-\w{}]+)\/([\-\w{}]+)$/;
const RE_MAP = new RegExp(`^(${MAP_TYPES.join('|')})(?::(rw|ro))?$`);

export interface AppMap {
  type: string;
  read_only: boolean;
  path?: string;
}

/** One app's config after validation: defaults filled, unknown keys dropped. */
export interface AppConfig {
  name: string;
  version: string;
  slug: string;
  description: string;
  arch: string[];
  machine: string[];
  url: string | null;
  startup: (typeof STARTUPS)[number];
  boot: (typeof BOOTS)[number];
  init: boolean;
  advanced: boolean;
  stage: (typeof STAGES)[number];
  ports: Record<string, number | null> | null;
  ports_description: Record<string, string> | null;
  webui: string | null;
  watchdog: string | null;
  ingress: boolean;
  /** 0: a dynamic port chosen at install */
  ingress_port: number;
  ingress_entry: string | null;
  ingress_stream: boolean;
  panel_icon: string;
  panel_title: string | null;
  panel_admin: boolean;
  homeassistant: string | null;
  host_network: boolean;
  host_pid: boolean;
  host_ipc: boolean;
  host_uts: boolean;
  host_dbus: boolean;
  privileged: string[];
  apparmor: boolean;
  full_access: boolean;
  kernel_modules: boolean;
  /** host device paths the app is given (`devices`; the legacy `host:container:perm` form keeps its first part) */
  devices: string[];
  /** hardware groups the app is given access to (`auto_uart` is the legacy `uart`) */
  uart: boolean;
  usb: boolean;
  gpio: boolean;
  video: boolean;
  udev: boolean;
  devicetree: boolean;
  docker_api: boolean;
  stdin: boolean;
  hassio_api: boolean;
  hassio_role: (typeof APP_ROLES)[number];
  homeassistant_api: boolean;
  auth_api: boolean;
  services: string[];
  discovery: string[];
  map: AppMap[];
  environment: Record<string, string>;
  options: Record<string, unknown>;
  /** false: the app takes no options */
  schema: Record<string, unknown> | false;
  /** without it the app is built locally */
  image: string | null;
  timeout: number;
  // optional: configs installed before Hearth read them have none (see backupMode())
  /** `cold`: stopped while its backup is written; `hot`: backed up running */
  backup?: 'hot' | 'cold';
  /** commands run inside a hot app's container before and after its backup */
  backup_pre?: string | null;
  backup_post?: string | null;
  /** globs of its /data left out of its backups */
  backup_exclude?: string[];
}

/** An installed app's backup settings, with the defaults for configs recorded without them. */
export function backupMode(config: AppConfig): { mode: 'hot' | 'cold'; pre: string | null; post: string | null; exclude: string[] } {
  return { mode: config.backup ?? 'hot', pre: config.backup_pre ?? null, post: config.backup_post ?? null, exclude: config.backup_exclude ?? [] };
}

/** A repository as the store shows it (GET /store/repositories). */
export interface RepositoryInfo {
  slug: string;
  name: string;
  /** `core`, `local`, or the directory it was read from */
  source: string;
  url: string;
  maintainer: string;
}

/** An app of a repository: its store key, its config and the files next to it. */
export interface RepositoryApp {
  /** `<repository slug>_<config slug>` */
  key: string;
  repository: string;
  /** the app's directory */
  path: string;
  config: AppConfig;
  icon: string | null;
  logo: string | null;
  changelog: string | null;
  /** DOCS.md */
  documentation: string | null;
  /** README.md (the long description) */
  readme: string | null;
  apparmorProfile: string | null;
  /** how a locally built app is built: its Dockerfile, or a `rootfs/` directory; null when neither */
  buildContext: 'dockerfile' | 'rootfs' | null;
}

export interface ReadRepository {
  repository: RepositoryInfo;
  apps: RepositoryApp[];
}

/** The original's repository slug for a source: `core` and `local` as they are, else 8 hex of its SHA-1. */
export function repositorySlug(source: string): string {
  if (source === 'core' || source === 'local') return source;
  return createHash('sha1').update(source.toLowerCase()).digest('hex').slice(0, 8);
}

/** The original's own names for its two special repositories when they carry no repository.yaml. */
export const BUILTIN_REPOSITORY_INFO: Record<string, { name: string; url: string; maintainer: string }> = {
  local: { name: 'Local apps', url: 'https://home-assistant.io/hassio', maintainer: 'you' },
  core: { name: 'Official apps', url: 'https://home-assistant.io/addons', maintainer: 'Home Assistant' },
};

class Invalid extends Error {}

const got = (v: unknown) => (typeof v === 'string' ? `'${v}'` : JSON.stringify(v));
const at = (key: string) => `@ data['${key}']`;

function str(raw: Record<string, unknown>, key: string, fallback: string | null = null, required = false): string | null {
  const v = raw[key];
  if (v === undefined || v === null) {
    if (required) throw new Invalid(`required key not provided ${at(key)}`);
    return fallback;
  }
  if (typeof v === 'number' && (key === 'version' || key === 'homeassistant')) return String(v);
  if (typeof v !== 'string') throw new Invalid(`expected str ${at(key)}. Got ${got(v)}`);
  return v;
}

function bool(raw: Record<string, unknown>, key: string, fallback: boolean): boolean {
  const v = raw[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean') throw new Invalid(`expected boolean ${at(key)}. Got ${got(v)}`);
  return v;
}

function oneOf<T extends string>(raw: Record<string, unknown>, key: string, values: readonly T[], fallback: T): T {
  const v = raw[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || !values.includes(v as T)) throw new Invalid(`value must be one of [${values.map((x) => `'${x}'`).join(', ')}] ${at(key)}. Got ${got(v)}`);
  return v as T;
}

function list(raw: Record<string, unknown>, key: string, each: (v: unknown) => string | undefined): string[] {
  const v = raw[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new Invalid(`expected list ${at(key)}. Got ${got(v)}`);
  return v.map((item, i) => {
    const problem = each(item);
    if (problem) throw new Invalid(`${problem} @ data['${key}'][${i}]. Got ${got(item)}`);
    return item as string;
  });
}

function dict(raw: Record<string, unknown>, key: string): Record<string, unknown> | null {
  const v = raw[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw new Invalid(`expected a dictionary ${at(key)}. Got ${got(v)}`);
  return v as Record<string, unknown>;
}

function matching(re: RegExp, raw: Record<string, unknown>, key: string): string | null {
  const v = str(raw, key);
  if (v !== null && !re.test(v)) throw new Invalid(`does not match regular expression ${re.source} ${at(key)}. Got ${got(v)}`);
  return v;
}

const isPort = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;

/**
 * Checks one app config as the original's schema does: the required keys (name, version, slug,
 * description, arch), the slug's form, the architectures, startup and boot values, the ports map,
 * and the types of the rest. Answers the config with defaults, or the problem in the original's words.
 */
export function validateAppConfig(raw: unknown): { config: AppConfig } | { problem: string } {
  try {
    return { config: checkConfig(raw) };
  } catch (err) {
    if (err instanceof Invalid) return { problem: err.message };
    throw err;
  }
}

function checkConfig(raw: unknown): AppConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Invalid(`expected a dictionary. Got ${got(raw)}`);
  const r = { ...(raw as Record<string, unknown>) };
  // the legacy names of the backup keys win over the new ones, as in the original's migration
  for (const legacy of ['snapshot', 'snapshot_pre', 'snapshot_post', 'snapshot_exclude']) {
    if (legacy in r) {
      r[legacy.replace('snapshot', 'backup')] = r[legacy];
      delete r[legacy];
    }
  }
  const name = str(r, 'name', null, true)!;
  const version = str(r, 'version', null, true)!;
  const slug = str(r, 'slug', null, true)!;
  if (!RE_SLUG.test(slug)) throw new Invalid(`does not match regular expression ${RE_SLUG.source} ${at('slug')}. Got ${got(slug)}`);
  const description = str(r, 'description', null, true)!;
  if (r.arch === undefined || r.arch === null) throw new Invalid(`required key not provided ${at('arch')}`);
  const arch = list(r, 'arch', (v) => (typeof v === 'string' && (APP_ARCHES as readonly string[]).includes(v) ? undefined : `value must be one of [${APP_ARCHES.map((a) => `'${a}'`).join(', ')}]`));
  const machine = list(r, 'machine', (v) => (typeof v === 'string' && /^!?[-a-z0-9]+$/.test(v) ? undefined : 'not a valid machine'));
  if (new Set(machine).size !== machine.length) throw new Invalid(`contains duplicate items ${at('machine')}. Got ${got(machine)}`);
  // the original's legacy startup names
  if (r.startup === 'before') r.startup = 'services';
  if (r.startup === 'after') r.startup = 'application';
  const startup = oneOf(r, 'startup', STARTUPS, 'application');
  const boot = oneOf(r, 'boot', BOOTS, 'auto');
  const stage = oneOf(r, 'stage', STAGES, 'stable');
  const hassioRole = oneOf(r, 'hassio_role', APP_ROLES, 'default');

  const portsRaw = dict(r, 'ports');
  let ports: Record<string, number | null> | null = null;
  if (portsRaw) {
    ports = {};
    for (const [k, v] of Object.entries(portsRaw)) {
      if (!RE_PORT_KEY.test(k)) throw new Invalid(`extra keys not allowed @ data['ports']['${k}']. Got ${got(v)}`);
      if (v !== null && !isPort(v)) throw new Invalid(`expected a port (1..65535) @ data['ports']['${k}']. Got ${got(v)}`);
      ports[k] = v as number | null;
    }
  }
  const descRaw = dict(r, 'ports_description');
  let portsDescription: Record<string, string> | null = null;
  if (descRaw) {
    portsDescription = {};
    for (const [k, v] of Object.entries(descRaw)) {
      if (!RE_PORT_KEY.test(k)) throw new Invalid(`extra keys not allowed @ data['ports_description']['${k}']. Got ${got(v)}`);
      if (typeof v !== 'string') throw new Invalid(`expected str @ data['ports_description']['${k}']. Got ${got(v)}`);
      portsDescription[k] = v;
    }
  }

  let ingressPort = 8099;
  if (r.ingress_port !== undefined && r.ingress_port !== null) {
    if (!(r.ingress_port === 0 || isPort(r.ingress_port))) throw new Invalid(`expected a port or 0 ${at('ingress_port')}. Got ${got(r.ingress_port)}`);
    ingressPort = r.ingress_port as number;
  }

  const services = list(r, 'services', (v) => (typeof v === 'string' && RE_SERVICE.test(v) ? undefined : `does not match regular expression ${RE_SERVICE.source}`));
  const discovery = list(r, 'discovery', (v) => (typeof v === 'string' ? undefined : 'expected str'));
  const privileged = list(r, 'privileged', (v) => (typeof v === 'string' && PRIVILEGES.includes(v) ? undefined : `value must be one of [${PRIVILEGES.map((p) => `'${p}'`).join(', ')}]`));

  const map: AppMap[] = [];
  if (r.map !== undefined && r.map !== null) {
    if (!Array.isArray(r.map)) throw new Invalid(`expected list ${at('map')}. Got ${got(r.map)}`);
    r.map.forEach((item: unknown, i: number) => {
      if (typeof item === 'string') {
        const m = RE_MAP.exec(item);
        if (!m) throw new Invalid(`does not match regular expression ${RE_MAP.source} @ data['map'][${i}]. Got ${got(item)}`);
        map.push({ type: m[1]!, read_only: m[2] !== 'rw' });
      } else if (item && typeof item === 'object' && !Array.isArray(item)) {
        const entry = item as Record<string, unknown>;
        if (typeof entry.type !== 'string' || !MAP_TYPES.includes(entry.type)) throw new Invalid(`not a valid value for dictionary value @ data['map'][${i}]['type']. Got ${got(entry.type)}`);
        if (entry.read_only !== undefined && typeof entry.read_only !== 'boolean') throw new Invalid(`expected boolean @ data['map'][${i}]['read_only']. Got ${got(entry.read_only)}`);
        if (entry.path !== undefined && typeof entry.path !== 'string') throw new Invalid(`expected str @ data['map'][${i}]['path']. Got ${got(entry.path)}`);
        map.push({ type: entry.type, read_only: (entry.read_only as boolean | undefined) ?? true, ...(entry.path !== undefined ? { path: entry.path as string } : {}) });
      } else throw new Invalid(`expected a map entry @ data['map'][${i}]. Got ${got(item)}`);
    });
  }

  const envRaw = dict(r, 'environment') ?? {};
  const environment: Record<string, string> = {};
  for (const [k, v] of Object.entries(envRaw)) {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new Invalid(`expected str @ data['environment']['${k}']. Got ${got(v)}`);
    environment[k] = String(v);
  }
  const options = dict(r, 'options') ?? {};
  let schema: Record<string, unknown> | false = {};
  if (r.schema === false) schema = false;
  else schema = dict(r, 'schema') ?? {};

  let timeout = 10;
  if (r.timeout !== undefined && r.timeout !== null) {
    if (!Number.isInteger(r.timeout) || (r.timeout as number) < 10 || (r.timeout as number) > 300) throw new Invalid(`value must be at least 10 and at most 300 ${at('timeout')}. Got ${got(r.timeout)}`);
    timeout = r.timeout as number;
  }
  const url = str(r, 'url');
  if (url !== null && !/^https?:\/\/[^\s/]+/i.test(url)) throw new Invalid(`expected a URL ${at('url')}. Got ${got(url)}`);

  return {
    name,
    version,
    slug,
    description,
    arch,
    machine,
    url,
    startup,
    boot,
    init: bool(r, 'init', true),
    advanced: bool(r, 'advanced', false),
    stage,
    ports,
    ports_description: portsDescription,
    webui: matching(RE_WEBUI, r, 'webui'),
    watchdog: matching(RE_WATCHDOG, r, 'watchdog'),
    ingress: bool(r, 'ingress', false),
    ingress_port: ingressPort,
    ingress_entry: str(r, 'ingress_entry'),
    ingress_stream: bool(r, 'ingress_stream', false),
    panel_icon: str(r, 'panel_icon', 'mdi:puzzle')!,
    panel_title: str(r, 'panel_title'),
    panel_admin: bool(r, 'panel_admin', true),
    homeassistant: str(r, 'homeassistant'),
    host_network: bool(r, 'host_network', false),
    host_pid: bool(r, 'host_pid', false),
    host_ipc: bool(r, 'host_ipc', false),
    host_uts: bool(r, 'host_uts', false),
    host_dbus: bool(r, 'host_dbus', false),
    privileged,
    apparmor: bool(r, 'apparmor', true),
    full_access: bool(r, 'full_access', false),
    kernel_modules: bool(r, 'kernel_modules', false),
    devices: list(r, 'devices', (v) => (typeof v === 'string' ? undefined : 'expected str')).map((d) => d.split(':')[0]),
    uart: bool(r, 'uart', false) || bool(r, 'auto_uart', false),
    usb: bool(r, 'usb', false),
    gpio: bool(r, 'gpio', false),
    video: bool(r, 'video', false),
    udev: bool(r, 'udev', false),
    devicetree: bool(r, 'devicetree', false),
    docker_api: bool(r, 'docker_api', false),
    stdin: bool(r, 'stdin', false),
    hassio_api: bool(r, 'hassio_api', false),
    hassio_role: hassioRole,
    homeassistant_api: bool(r, 'homeassistant_api', false),
    auth_api: bool(r, 'auth_api', false),
    services,
    discovery,
    map,
    environment,
    options,
    schema,
    image: matching(RE_IMAGE, r, 'image'),
    timeout,
    backup: oneOf(r, 'backup', ['hot', 'cold'] as const, 'hot'),
    backup_pre: str(r, 'backup_pre'),
    backup_post: str(r, 'backup_post'),
    backup_exclude: list(r, 'backup_exclude', (v) => (typeof v === 'string' ? undefined : 'expected str')),
  };
}

/** The first of `names` that is a file in `dir`, or null. */
async function fileIn(dir: string, names: string[]): Promise<string | null> {
  for (const name of names) {
    const path = join(dir, name);
    const s = await stat(path).catch(() => null);
    if (s?.isFile()) return path;
  }
  return null;
}

/** A YAML or JSON file's value (YAML is a superset of JSON, but JSON files are read as JSON). */
async function readDocument(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
}

/**
 * Reads one repository directory. `source` is `core`, `local` or the directory's own path (its
 * slug follows from it). Never throws for what the directory holds: a missing or unreadable
 * repository.yaml and each invalid app are told to `logLine`.
 */
export async function readRepository(dir: string, source: string, logLine: (line: string) => void): Promise<ReadRepository> {
  const slug = repositorySlug(source);
  const fallback = BUILTIN_REPOSITORY_INFO[source] ?? { name: 'unknown', url: source, maintainer: 'unknown' };
  const repository: RepositoryInfo = { slug, name: fallback.name, source, url: fallback.url, maintainer: fallback.maintainer };
  const repoFile = await fileIn(dir, ['repository.yaml', 'repository.yml', 'repository.json']);
  if (!repoFile) {
    if (!BUILTIN_REPOSITORY_INFO[source]) logLine(`No repository information exists at ${dir}`);
  } else {
    try {
      const data = await readDocument(repoFile);
      if (!data || typeof data !== 'object' || Array.isArray(data)) throw new Error('expected a dictionary');
      const d = data as Record<string, unknown>;
      if (typeof d.name !== 'string') throw new Error("required key not provided @ data['name']");
      repository.name = d.name;
      if (typeof d.url === 'string') repository.url = d.url;
      if (typeof d.maintainer === 'string') repository.maintainer = d.maintainer;
    } catch (err) {
      logLine(`Can't read repository information from ${repoFile}: ${(err as Error).message}`);
    }
  }

  const apps: RepositoryApp[] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const appDir = join(dir, entry.name);
    const configFile = await fileIn(appDir, ['config.yaml', 'config.yml', 'config.json']);
    if (!configFile) continue;
    let raw: unknown;
    try {
      raw = await readDocument(configFile);
    } catch (err) {
      logLine(`Can't read ${configFile} from repository ${slug}: ${(err as Error).message.split('\n')[0]}`);
      continue;
    }
    const checked = validateAppConfig(raw);
    if ('problem' in checked) {
      logLine(`Can't read ${configFile}: ${checked.problem}`);
      continue;
    }
    const config = checked.config;
    const key = `${slug}_${config.slug}`;
    if (apps.some((a) => a.key === key)) {
      logLine(`Can't read ${configFile}: slug ${config.slug} is already used in repository ${slug}`);
      continue;
    }
    const rootfs = await stat(join(appDir, 'rootfs')).catch(() => null);
    const dockerfile = await fileIn(appDir, ['Dockerfile']);
    apps.push({
      key,
      repository: slug,
      path: appDir,
      config,
      icon: await fileIn(appDir, ['icon.png']),
      logo: await fileIn(appDir, ['logo.png']),
      changelog: await fileIn(appDir, ['CHANGELOG.md']),
      documentation: await fileIn(appDir, ['DOCS.md']),
      readme: await fileIn(appDir, ['README.md']),
      apparmorProfile: await fileIn(appDir, ['apparmor.txt']),
      buildContext: dockerfile ? 'dockerfile' : rootfs?.isDirectory() ? 'rootfs' : null,
    });
  }
  return { repository, apps };
}
