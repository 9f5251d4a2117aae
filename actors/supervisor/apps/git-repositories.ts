/**
 * The store's added repositories (supervisor-wire §4.16): git repositories cloned under
 * `<data>/apps/git/<slug>`, their URLs (with an optional `#branch`) kept in the supervisor's
 * settings section `store`, so the set survives a restart and is in the log. The slug is the
 * original's: the first 8 hex of the SHA-1 of the lower-cased URL.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Context } from '../../../store/types.ts';
import type { SettingsSection } from '../settings.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import { repositorySlug } from './repository.ts';

const run = promisify(execFile);

/** A repository as the original accepts it: a URL, and after `#` a branch. */
const RE_REPOSITORY = /^(?<url>[^#]+)(?:#(?<branch>[\w\-./]+))?$/;

/** how long one git command may take (a clone over a slow link included) */
const GIT_TIMEOUT_MS = 5 * 60_000;

export const STORE_SETTINGS_DEFAULTS: { repositories: string[] } = { repositories: [] };

export interface GitRepository {
  /** as added: URL and optional `#branch` */
  source: string;
  slug: string;
  dir: string;
}

export interface GitRepositoriesOptions {
  /** where clones live (`<data>/apps/git`) */
  dir: string;
  section: SettingsSection<typeof STORE_SETTINGS_DEFAULTS>;
  logger: { info(line: string): void; warning(line: string): void };
  /** the slugs of the repositories installed apps come from: those are not removed */
  inUse(): ReadonlySet<string>;
  /** the set or a clone changed: the store reads its repositories again */
  changed(): Promise<void>;
}

export class GitRepositories {
  constructor(private readonly options: GitRepositoriesOptions) {}

  list(): GitRepository[] {
    return this.options.section.get().repositories.map((source) => this.of(source));
  }

  find(slug: string): GitRepository | undefined {
    return this.list().find((r) => r.slug === slug);
  }

  /** Clones `source` and keeps it; the clone must hold a repository the store can read. */
  async add(source: string, context: Context): Promise<void> {
    await this.#add(source, context);
    await this.options.changed();
  }

  /** Removes an added repository and its clone; refused while an installed app comes from it. */
  async remove(repo: GitRepository, context: Context): Promise<void> {
    this.#removable(repo);
    await this.#remove(repo, context);
    await this.options.changed();
  }

  async #add(source: string, context: Context): Promise<void> {
    const wanted = source.trim();
    if (!RE_REPOSITORY.test(wanted)) throw new SupervisorError(`Invalid repository ${JSON.stringify(source)}: a git URL, optionally followed by #branch`);
    if (this.list().some((r) => repositorySlug(r.source) === repositorySlug(wanted))) {
      throw keyedError(409, 'store_repository_already_added_error', "Can't add {url}, already in the store", { url: wanted });
    }
    const repo = this.of(wanted);
    await rm(repo.dir, { recursive: true, force: true });
    await mkdir(this.options.dir, { recursive: true });
    try {
      await clone(wanted, repo.dir);
      const problem = await repositoryProblem(repo.dir);
      if (problem) throw new Error(problem);
    } catch (err) {
      await rm(repo.dir, { recursive: true, force: true });
      throw new SupervisorError(`Can't add ${wanted}: ${gitMessage(err)}`);
    }
    await this.options.section.set({ repositories: [...this.options.section.get().repositories, wanted] }, context);
    this.options.logger.info(`store: repository ${wanted} added (${repo.slug})`);
  }

  #removable(repo: GitRepository): void {
    if (this.options.inUse().has(repo.slug)) throw new SupervisorError(`Can't remove '${repo.source}'. It's used by installed apps`);
  }

  async #remove(repo: GitRepository, context: Context): Promise<void> {
    await this.options.section.set({ repositories: this.options.section.get().repositories.filter((s) => s !== repo.source) }, context);
    await rm(repo.dir, { recursive: true, force: true });
    this.options.logger.info(`store: repository ${repo.source} removed`);
  }

  /**
   * The repositories of a backup being restored (its `repositories`): the git ones missing are
   * added; with `replace` (a full restore) added ones the backup does not name are removed, unless
   * an installed app comes from them. What fails is told and skipped, as the original goes on.
   */
  async restoreFrom(sources: readonly string[], replace: boolean, context: Context): Promise<void> {
    for (const err of await this.#sync(sources, replace, context)) this.options.logger.warning(`restore: ${(err as Error).message}`);
  }

  /**
   * The v1 option `addons_repositories`: the added repositories become `sources`. As the
   * original, what can be done is done and the first failure is thrown after.
   */
  async replaceWith(sources: readonly string[], context: Context): Promise<void> {
    const errors = await this.#sync(sources, true, context);
    if (errors.length) throw errors[0];
  }

  /**
   * Adds the git repositories of `sources` missing and, with `replace`, removes the others not in
   * use; the store reads them again once, whatever failed. Answers what failed.
   */
  async #sync(sources: readonly string[], replace: boolean, context: Context): Promise<unknown[]> {
    const wanted = [...new Set(sources.filter(isGitSource))];
    const have = new Set(this.list().map((r) => r.slug));
    const errors: unknown[] = [];
    try {
      for (const source of wanted) {
        if (!have.has(repositorySlug(source))) await this.#add(source, context).catch((err) => errors.push(err));
      }
      if (!replace) return errors;
      const keep = new Set(wanted.map(repositorySlug));
      for (const repo of this.list()) {
        if (keep.has(repo.slug)) continue;
        try {
          this.#removable(repo);
          await this.#remove(repo, context);
        } catch (err) {
          errors.push(err);
        }
      }
      return errors;
    } finally {
      await this.options.changed();
    }
  }

  /** Fetches and resets the clone to its remote; a clone gone missing is made again. */
  async repair(repo: GitRepository): Promise<void> {
    try {
      if (!(await isDirectory(join(repo.dir, '.git')))) {
        await rm(repo.dir, { recursive: true, force: true });
        await clone(repo.source, repo.dir);
      } else {
        await this.update(repo);
        await git(['-C', repo.dir, 'clean', '-xdf']);
      }
      await this.options.changed();
    } catch (err) {
      this.options.logger.warning(`store: repairing ${repo.source} failed: ${gitMessage(err)}`);
      throw keyedError(500, 'store_repository_unknown_error', 'An unknown error occurred with app repository {repo}. Check supervisor logs for details', { repo: repo.slug });
    }
  }

  /** Pulls every clone (the store's reload); one that fails is told and kept as it was. */
  async pullAll(): Promise<void> {
    for (const repo of this.list()) {
      try {
        await this.update(repo);
      } catch (err) {
        this.options.logger.warning(`store: pulling ${repo.source} failed (kept as it was): ${gitMessage(err)}`);
      }
    }
  }

  /** The clone at its remote's newest commit (of its branch, or of the remote's default one). */
  private async update(repo: GitRepository): Promise<void> {
    const branch = RE_REPOSITORY.exec(repo.source)?.groups?.branch;
    await git(['-C', repo.dir, 'fetch', '--depth', '1', '--no-tags', 'origin', branch ?? 'HEAD']);
    await git(['-C', repo.dir, 'reset', '--hard', 'FETCH_HEAD']);
  }

  private of(source: string): GitRepository {
    const slug = repositorySlug(source);
    return { source, slug, dir: join(this.options.dir, slug) };
  }
}

/** A shallow clone of `source` (URL and optional `#branch`) into `dir`. */
async function clone(source: string, dir: string): Promise<void> {
  const { url, branch } = RE_REPOSITORY.exec(source)!.groups!;
  await git(['clone', '--depth', '1', ...(branch ? ['--branch', branch] : []), '--', url!, dir]);
}

async function git(args: string[]): Promise<void> {
  // no terminal prompt for credentials: a private repository fails instead of waiting
  await run('git', args, { timeout: GIT_TIMEOUT_MS, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 4 << 20 });
}

/** git's own complaint (its first `fatal:` or `error:` line), not the whole command line */
function gitMessage(err: unknown): string {
  const lines = String((err as { stderr?: unknown }).stderr ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const complaint = lines.find((l) => /^(fatal|error):/.test(l));
  return complaint?.replace(/^(fatal|error):\s*/, '') ?? lines.at(-1) ?? (err as Error).message;
}

const isDirectory = (path: string) => stat(path).then((s) => s.isDirectory(), () => false);

/** A source naming a git repository: not a built-in name, not a folder of the operator's. */
const isGitSource = (source: string) => source !== 'core' && source !== 'local' && !source.startsWith('/') && RE_REPOSITORY.test(source);

/** What makes a clone no app repository: the original needs a repository.yaml (or .yml, .json) at its top. */
export async function repositoryProblem(dir: string): Promise<string | null> {
  for (const name of ['repository.yaml', 'repository.yml', 'repository.json']) {
    if (await stat(join(dir, name)).then((s) => s.isFile(), () => false)) return null;
  }
  return 'it is no app repository (no repository.yaml, .yml or .json at its top)';
}
