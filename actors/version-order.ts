/**
 * The one order of versions, the original's (AwesomeVersion, which follows PEP 440 for the
 * versions met here): numeric parts as numbers, and for one release
 * `.devN` < `aN` < `bN` < `rcN` < the release < `.postN`, so `2026.11.0.dev20261101` <
 * `2026.11.0b1` < `2026.11.0rc2` < `2026.11.0`. Apps' semver (`1.2.3`, `1.2.3-beta.1`) is read the
 * same way. The container tags `stable` < `beta` < `latest` < `dev` come after every number, as
 * in AwesomeVersion. Anything else (`landingpage`) is no version: it cannot be ordered, and each
 * caller decides what that means, as the original's callers catch its compare exception.
 */

/** Two versions that cannot be ordered: one of them is no version. */
export class VersionCompareError extends Error {
  readonly code = 'HEARTH_VERSION_INCOMPARABLE';
  constructor(a: string, b: string) {
    super(`Can't compare versions ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
    this.name = 'VersionCompareError';
  }
}

const CONTAINER_TAGS = ['stable', 'beta', 'latest', 'dev'];

/** Pre-release phases by rank; PEP 440's spellings of each. */
const PHASES: Record<string, number> = { a: 0, alpha: 0, b: 1, beta: 1, c: 2, rc: 2, pre: 2, preview: 2 };

const SEP = '[-_.]?';
const VERSION = new RegExp(
  `^[vV]?(\\d+(?:\\.\\d+)*)` +
    `(?:${SEP}(alpha|beta|preview|pre|rc|a|b|c)${SEP}(\\d*))?` +
    `(?:${SEP}(post|rev|r)${SEP}(\\d*))?` +
    `(?:${SEP}(dev|d)${SEP}(\\d*))?` +
    `(?:\\+[0-9a-zA-Z]+(?:[-_.][0-9a-zA-Z]+)*)?$`,
  'i',
);

/** What orders a version: its container tag, or its release numbers and PEP 440's sort key of the rest. */
type Parsed = { tag: number } | { release: number[]; key: number[] };

function parse(version: string): Parsed | undefined {
  const tag = CONTAINER_TAGS.indexOf(version);
  if (tag >= 0) return { tag };
  const m = VERSION.exec(version);
  if (!m) return undefined;
  const number = (digits: string | undefined) => (digits ? Number(digits) : 0);
  const pre = m[2] === undefined ? undefined : [PHASES[m[2].toLowerCase()], number(m[3])];
  const post = m[4] === undefined ? undefined : number(m[5]);
  const dev = m[6] === undefined ? undefined : number(m[7]);
  // PEP 440's key: a dev release of the release itself before its pre-releases, a final
  // release after them, no post before any post, no dev after any dev
  const preKey = pre ?? (post === undefined && dev !== undefined ? [-Infinity, 0] : [Infinity, 0]);
  return { release: m[1].split('.').map(Number), key: [...preKey, post ?? -Infinity, dev ?? Infinity] };
}

// compared, not subtracted: the key holds infinities
function compareLists(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function compareParsed(a: Parsed, b: Parsed): number {
  if ('tag' in a || 'tag' in b) return Math.sign(('tag' in a ? a.tag : -1) - ('tag' in b ? b.tag : -1));
  return compareLists(a.release, b.release) || compareLists(a.key, b.key);
}

/**
 * Positive when `a` is newer than `b`, negative when older, 0 when neither is (the same text,
 * or `2026.11` and `2026.11.0`); throws VersionCompareError when one of them is no version.
 */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) throw new VersionCompareError(a, b);
  return compareParsed(x, y);
}

/** compareVersions, or undefined where it throws. */
export function versionOrder(a: string, b: string): number | undefined {
  try {
    return compareVersions(a, b);
  } catch (error) {
    if (error instanceof VersionCompareError) return undefined;
    throw error;
  }
}

/**
 * Whether `latest` is newer than `installed`: the original's `need_update`, false when either
 * is unknown or they cannot be ordered (a core on its landing page is told of no update).
 */
export function isNewer(latest: string | null | undefined, installed: string | null | undefined): boolean {
  return !!latest && !!installed && (versionOrder(latest, installed) ?? 0) > 0;
}
