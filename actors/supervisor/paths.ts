/**
 * Names that become parts of paths on the host. Slugs, backup names and mount names arrive
 * from clients, store repositories and backups someone else made; each is checked against the
 * original's pattern where it enters, and every path built from one is checked again here, after
 * resolution, so a name that slipped past a pattern still cannot leave its folder.
 */
import { resolve, sep } from 'node:path';
import { SupervisorError } from './errors.ts';

/** The original's app slug (`RE_SLUG`), which repository prefixes (`local_`, `core_`, `<hash>_`) keep. */
export const SLUG_PATTERN = /^[-_.A-Za-z0-9]+$/;

/** A slug that is a name: the pattern, and not one of the two names every folder already has. */
export function isSlug(value: unknown): value is string {
  return typeof value === 'string' && SLUG_PATTERN.test(value) && value !== '.' && value !== '..';
}

export class PathEscapeError extends SupervisorError {
  constructor(parent: string, name: string) {
    super(`${JSON.stringify(name)} is not a name inside ${parent}`);
    this.name = 'PathEscapeError';
  }
}

/** `parent/name` resolved, refused unless it lies strictly inside `parent` (never `parent` itself). */
export function childPath(parent: string, name: string): string {
  const base = resolve(parent);
  const path = resolve(base, name);
  if (name.includes('\0') || !path.startsWith(base + sep)) throw new PathEscapeError(parent, name);
  return path;
}
