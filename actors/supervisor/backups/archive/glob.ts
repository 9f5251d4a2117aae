/**
 * Exclusion globs as the original matches them (Python's `PurePath.full_match`): the whole path
 * must match; `*`, `?` and `[...]` stay inside one path segment; a `**` segment matches any number
 * of segments, none included. Dot files get no special treatment.
 */

function segmentRegex(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i];
    if (char === '*') source += '.*';
    else if (char === '?') source += '.';
    else if (char === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        let body = segment.slice(i + 1, close);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        source += `[${body.replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 's');
}

/** A compiled glob: true when `path` (a `/`-separated relative path) matches as a whole. */
export function compileGlob(pattern: string): (path: string) => boolean {
  const parts = pattern.split('/').filter((part) => part !== '' && part !== '.');
  const matchers = parts.map((part) => (part === '**' ? undefined : segmentRegex(part)));
  const match = (segments: string[], at: number, from: number): boolean => {
    if (at === matchers.length) return from === segments.length;
    const matcher = matchers[at];
    if (!matcher) {
      for (let skip = from; skip <= segments.length; skip++) if (match(segments, at + 1, skip)) return true;
      return false;
    }
    return from < segments.length && matcher.test(segments[from]) && match(segments, at + 1, from + 1);
  };
  return (path) => match(path.split('/').filter((part) => part !== '' && part !== '.'), 0, 0);
}

/**
 * The predicate for an inner archive's exclusions: each glob is taken relative to `base` (the
 * arcname its folder is stored under, e.g. `data`), as the original prefixes them.
 */
export function excludedBy(globs: readonly string[], base = ''): (arcPath: string) => boolean {
  const compiled = globs.map((glob) => compileGlob(base ? `${base}/${glob}` : glob));
  return (arcPath) => compiled.some((matches) => matches(arcPath));
}

/** Core config exclusions (supervisor-wire §5.4), relative to the `data` folder of Core's archive. */
export const CORE_BACKUP_EXCLUDE = [
  '**/__pycache__/*',
  '**/.DS_Store',
  '*.db-shm',
  '*.corrupt.*',
  '*.log.*',
  '*.log',
  '.storage/*.corrupt.*',
  'OZW_Log.txt',
  'backups/*.tar',
  'tmp_backups/*.tar',
  'tts/*',
  '.cache/*',
] as const;

/** Added to CORE_BACKUP_EXCLUDE when a backup leaves Core's database out. */
export const CORE_BACKUP_EXCLUDE_DATABASE = ['home-assistant_v?.db', 'home-assistant_v?.db-wal'] as const;

/**
 * An app's `backup_exclude` glob as the original tests it (Python's `PurePath.match` on the full
 * path the Supervisor sees): a relative pattern matches the path's last segments, an absolute one
 * the whole path; `**` is a plain `*` here.
 */
export function appExcludeMatches(pattern: string, fullPath: string): boolean {
  const absolute = pattern.startsWith('/');
  const parts = pattern.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0) return false;
  const segments = fullPath.split('/').filter((part) => part !== '' && part !== '.');
  if (absolute ? segments.length !== parts.length : segments.length < parts.length) return false;
  const tail = segments.slice(segments.length - parts.length);
  return parts.every((part, index) => segmentRegex(part === '**' ? '*' : part).test(tail[index]));
}
