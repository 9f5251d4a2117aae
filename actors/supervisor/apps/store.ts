import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { readRepository, type RepositoryApp, type RepositoryInfo } from './repository.ts';
import { archOf, machineOf } from '../machine.ts';
import { keyedError, notFound, SupervisorError } from '../errors.ts';
import { versionOrder } from '../../version-order.ts';
import { bothSpellings } from '../spellings.ts';
import { roleOf } from './user-settings.ts';

/** Hearth's own repository, shipped with it: slug `core` (the original's official repository). */
export const BUILTIN_REPOSITORY_DIR = fileURLToPath(new URL('./builtin/', import.meta.url));

const RISKY = new Set(['BPF', 'CHECKPOINT_RESTORE', 'DAC_READ_SEARCH', 'NET_ADMIN', 'NET_RAW', 'PERFMON', 'SYS_ADMIN', 'SYS_MODULE', 'SYS_PTRACE', 'SYS_RAWIO']);

/** The original's security rating of an app (1..8). */
export function rating(app: RepositoryApp): number {
  const c = app.config;
  if (c.docker_api || c.full_access) return 1;
  let r = 5;
  if (!c.apparmor) r -= 1;
  else if (app.apparmorProfile) r += 1;
  if (c.ingress) r += 2;
  else if (c.auth_api) r += 1;
  if (c.privileged.some((p) => RISKY.has(p)) || c.kernel_modules) r -= 1;
  if (c.hassio_role === 'manager') r -= 1;
  else if (c.hassio_role === 'admin') r -= 2;
  if (c.host_network) r -= 1;
  if (c.host_pid) r -= 2;
  if (c.host_uts && c.privileged.includes('SYS_ADMIN')) r -= 1;
  return Math.max(1, Math.min(8, r));
}

/** What the gateway reads of the store (the read side; installing is elsewhere). */
export interface AppStoreView {
  repositories(): RepositoryInfo[];
  /** every app of every repository, repository by repository */
  apps(): RepositoryApp[];
  /** 404 `store_app_not_found_error` when unknown */
  app(key: string): RepositoryApp;
  /** 404 `Repository <slug> does not exist in the store` when unknown */
  repository(slug: string): RepositoryInfo;
  /** whether the app can run here (its arch list holds this machine's, its machine list allows it) */
  available(app: RepositoryApp): boolean;
  /** the same, as the original's 400 `app_not_supported_*` errors (arch, machine, minimum core version) */
  checkAvailable(app: RepositoryApp): void;
  /** the summary of the store's listing; `extended` adds the single-app keys (supervisor-wire §4.16) */
  summary(app: RepositoryApp, extended?: boolean): Promise<Record<string, unknown>>;
  /** reads every repository again */
  reload(): Promise<void>;
}

export interface AppStoreOptions {
  /** the built-in repository (default: the one shipped in actors/supervisor/apps/builtin/) */
  builtinDir?: string;
  /** the local repository's directory (`<data>/apps/local`); slug `local` */
  localDir: string;
  /** more repository directories (the operator's `--repositories`), slug = SHA-1 of the path */
  directories?: () => string[];
  /** the added repositories' clones, each with its source URL (the slug follows from it) */
  clones?: () => Array<{ dir: string; source: string }>;
  logger: { info(line: string): void; warning(line: string): void };
  /** this system's architecture (`amd64`, `aarch64`) and machine; default from the host */
  arch?: string;
  machine?: string;
  /** the core's installed version, for an app's minimum (`homeassistant`); unchecked while null */
  coreVersion?: () => string | null;
}

export class AppStore implements AppStoreView {
  private repos: RepositoryInfo[] = [];
  private byKey = new Map<string, RepositoryApp>();
  private reading?: Promise<void>;

  constructor(private readonly options: AppStoreOptions) {}

  repositories(): RepositoryInfo[] {
    return [...this.repos];
  }

  apps(): RepositoryApp[] {
    return [...this.byKey.values()];
  }

  app(key: string): RepositoryApp {
    const app = this.byKey.get(key);
    if (!app) throw keyedError(404, 'store_app_not_found_error', 'App {app} does not exist in the store', { app: key });
    return app;
  }

  /** The app or undefined (for callers that answer their own error). */
  find(key: string): RepositoryApp | undefined {
    return this.byKey.get(key);
  }

  repository(slug: string): RepositoryInfo {
    const repo = this.repos.find((r) => r.slug === slug);
    if (!repo) throw notFound(`Repository ${slug} does not exist in the store`);
    return repo;
  }

  available(app: RepositoryApp): boolean {
    try {
      this.checkAvailable(app);
      return true;
    } catch (err) {
      if (err instanceof SupervisorError) return false;
      throw err;
    }
  }

  checkAvailable(app: RepositoryApp): void {
    const c = app.config;
    const fields = { app: c.name, slug: app.key };
    const arch = this.options.arch ?? archOf();
    if (!c.arch.includes(arch)) {
      throw keyedError(400, 'app_not_supported_architecture_error', 'App {app} not supported on this platform, supported architectures: {architectures}', { ...fields, architectures: c.arch.join(', ') });
    }
    // as the original: a machine list that does not name this machine excludes it, `!` or not
    const machine = this.options.machine ?? machineOf(arch);
    if (c.machine.length && (c.machine.includes(`!${machine}`) || !c.machine.includes(machine))) {
      throw keyedError(400, 'app_not_supported_machine_type_error', 'App {app} not supported on this machine, supported machine types: {machine_types}', { ...fields, machine_types: c.machine.join(', ') });
    }
    const core = this.options.coreVersion?.() ?? null;
    // a core that cannot be ordered against it (on its landing page) is not held back, as in the original
    if (c.homeassistant && core && (versionOrder(core, c.homeassistant) ?? 0) < 0) {
      throw keyedError(400, 'app_not_supported_home_assistant_version_error', 'App {app} not supported on this system, requires Home Assistant version {version} or greater', { ...fields, version: c.homeassistant });
    }
  }

  async summary(app: RepositoryApp, extended = false): Promise<Record<string, unknown>> {
    const c = app.config;
    const out: Record<string, unknown> = {
      advanced: c.advanced,
      arch: c.arch,
      available: this.available(app),
      build: c.image === null,
      description: c.description,
      documentation: app.documentation !== null,
      ...bothSpellings('homeassistant', c.homeassistant),
      icon: app.icon !== null,
      installed: false,
      logo: app.logo !== null,
      name: c.name,
      repository: app.repository,
      slug: app.key,
      stage: c.stage,
      update_available: false,
      url: c.url,
      version_latest: c.version,
      version: null,
    };
    if (!extended) return out;
    return {
      ...out,
      apparmor: !c.apparmor ? 'disable' : app.apparmorProfile ? 'profile' : 'default',
      auth_api: c.auth_api,
      detached: false,
      docker_api: c.docker_api,
      full_access: c.full_access,
      ...bothSpellings('hassio_api', c.hassio_api),
      ...bothSpellings('hassio_role', c.hassio_role, roleOf(c)),
      ...bothSpellings('homeassistant_api', c.homeassistant_api),
      host_network: c.host_network,
      host_pid: c.host_pid,
      ingress: c.ingress,
      long_description: app.readme ? await readText(app.readme) : null,
      rating: rating(app),
      signed: false,
    };
  }

  reload(): Promise<void> {
    // one reading at a time; a reload asked meanwhile waits for it and reads again
    const next = (this.reading ?? Promise.resolve()).then(() => this.readAll());
    this.reading = next.catch(() => {});
    return next;
  }

  private async readAll(): Promise<void> {
    const warn = (line: string) => this.options.logger.warning(line);
    const sources: Array<[dir: string, source: string]> = [
      [this.options.builtinDir ?? BUILTIN_REPOSITORY_DIR, 'core'],
      [this.options.localDir, 'local'],
      ...(this.options.directories?.() ?? []).map((d): [string, string] => [resolve(d), resolve(d)]),
      ...(this.options.clones?.() ?? []).map((c): [string, string] => [c.dir, c.source]),
    ];
    const repos: RepositoryInfo[] = [];
    const byKey = new Map<string, RepositoryApp>();
    for (const [dir, source] of sources) {
      const read = await readRepository(dir, source, warn);
      if (repos.some((r) => r.slug === read.repository.slug)) continue;
      repos.push(read.repository);
      for (const app of read.apps) byKey.set(app.key, app);
    }
    this.repos = repos;
    this.byKey = byKey;
    this.options.logger.info(`Loaded ${byKey.size} apps from ${repos.length} repositories`);
  }
}

/** A text file as the original serves it: invalid UTF-8 replaced by U+FFFD. */
export async function readText(path: string): Promise<string> {
  return new TextDecoder('utf-8', { fatal: false }).decode(await readFile(path));
}
