/**
 * Who may call which path of the supervisor's API: the original's security middleware rules
 * (token-bypass paths, role patterns, core-only paths, the blacklist), on the v1 tree and the
 * `/v2` tree. The method is never considered, as in the original.
 */

export const ROLES = ['default', 'core', 'backup', 'manager', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/**
 * Who made a request. `core` is the core container's own token (full access, the only caller of
 * core-only paths); `operator` is the admin token written to `<data>/admin.token` (full access);
 * `app` is any other token, held by an app or issued by the operator with a role, and checked
 * against its role's paths.
 */
export type Caller =
  | { kind: 'core'; id: string; name: string }
  | { kind: 'operator'; id: string; name: string }
  | { kind: 'app'; id: string; name: string; role: Role; slug?: string };

export type Tree = 'v1' | 'v2';

const SLUG = '[-_.A-Za-z0-9]+';

interface PatternSet {
  noSecurityCheck: RegExp;
  apiBypass: RegExp;
  coreOnly: RegExp;
  roles: Record<Role, RegExp>;
}

const BLACKLIST = /^(?:\/v2)?(?:|\/homeassistant\/api\/hassio(?:\/|_).*|\/core\/api\/hassio(?:\/|_).*)$/;

function patterns(prefix: string, v2: boolean): PatternSet {
  const any = (alternatives: string[]) => new RegExp(`^${prefix}(?:${alternatives.join('|')})$`);
  const apps = v2 ? '/apps' : '/addons';
  const manager = [
    '',
    '/.+/info',
    v2 ? `/apps(?:/${SLUG}/(?!security).+)?` : `/addons(?:/${SLUG}/(?!security).+|/reload)?`,
    '/audio/.+',
    '/auth/cache',
    ...(v2 ? ['/reload_updates'] : ['/available_updates', '/refresh_updates', '/snapshots.*']),
    '/backups.*',
    '/cli/.+',
    '/core/.+',
    '/dns/.+',
    '/docker/.+',
    '/jobs/.+',
    '/hardware/.+',
    // the contract's role column (supervisor-api.md §4.9) says manager; the original's pattern
    // leaves it to admin
    '/ingress/panels',
    ...(v2 ? [] : ['/homeassistant/.+']),
    '/host/.+',
    '/mounts.*',
    '/multicast/.+',
    '/network/.+',
    '/observer/.+',
    '/os/(?!datadisk/wipe).+',
    '/resolution/.+',
    '/security/.+',
    '/store.*',
    '/supervisor/.+',
  ];
  return {
    noSecurityCheck: v2
      ? any([`/ingress/[-_A-Za-z0-9]+/.*`, `/store/apps/${SLUG}/(?:logo|icon)`])
      : any([
          '',
          '/homeassistant/api/.*',
          '/homeassistant/websocket',
          '/core/api/.*',
          '/core/websocket',
          '/supervisor/ping',
          '/ingress/[-_A-Za-z0-9]+/.*',
          '/app/.*\\.(?:js|gz|json|map|woff2)',
          `/(?:store/)?addons/${SLUG}/(?:logo|icon)`,
        ]),
    apiBypass: any(['', `${apps}/self/(?!security|update)[^/]+`, `${apps}/self/options/config`, '/info', '/services.*', '/discovery.*', '/auth']),
    coreOnly: any([`${apps}/${SLUG}/sys_options`]),
    roles: {
      default: any(['', '/.+/info']),
      core: any(['', '/.+/info', '/core/.+', ...(v2 ? [] : ['/homeassistant/.+'])]),
      backup: any(['', '/.+/info', '/backups.*']),
      manager: any(manager),
      admin: /.*/,
    },
  };
}

const V1 = patterns('', false);
const V2 = patterns('/v2', true);

export function treeOf(path: string): Tree {
  return path.startsWith('/v2/') ? 'v2' : 'v1';
}

/** What the middleware decides for a path: go on (with or without a caller), or refuse. */
export type Decision = { allow: true; caller?: Caller } | { allow: false; status: 401 | 403 };

/**
 * The original's token_validation in order: blacklist, no-security paths, a token at all, the
 * core token, core-only paths, bypass paths, role patterns. `lookup` finds a token's caller.
 */
export function decide(path: string, token: string | undefined, lookup: (token: string) => Caller | undefined): Decision {
  if (BLACKLIST.test(path)) return { allow: false, status: 403 };
  const set = treeOf(path) === 'v2' ? V2 : V1;
  if (set.noSecurityCheck.test(path)) return { allow: true };
  if (!token) return { allow: false, status: 401 };
  const caller = lookup(token);
  // an unknown token is refused as the original refuses it: 403, not 401
  if (!caller) return { allow: false, status: 403 };
  if (caller.kind === 'core') return { allow: true, caller };
  if (set.coreOnly.test(path)) return { allow: false, status: 403 };
  if (caller.kind === 'operator') return { allow: true, caller };
  if (set.apiBypass.test(path)) return { allow: true, caller };
  if (set.roles[caller.role].test(path)) return { allow: true, caller };
  return { allow: false, status: 403 };
}

/**
 * The token a request presents, in the original's order: `X-Supervisor-Token`, the legacy
 * `X-Hassio-Key`, then the last word of `Authorization` (`Bearer <token>`).
 */
export function tokenOf(headers: Record<string, string>): string | undefined {
  const direct = headers['x-supervisor-token'] || headers['x-hassio-key'];
  if (direct) return direct;
  const auth = headers.authorization;
  if (!auth) return undefined;
  const parts = auth.trim().split(' ');
  return parts[parts.length - 1] || undefined;
}

/** Whether the caller's role reaches at least `role` (manager and admin satisfy core and backup). */
export function hasRole(caller: Caller | undefined, role: Role): boolean {
  if (!caller) return false;
  if (caller.kind !== 'app') return true;
  if (caller.role === 'admin') return true;
  if (caller.role === 'manager') return role !== 'admin';
  return caller.role === role || role === 'default';
}

const EXPLOITS = [
  /proc\/self\/environ/i,
  /(?:<|%3C).*script.*(?:>|%3E)/i,
  /\.\.\//,
  /=\/\.\/\/?/, // x=/.//... injections
  /union.*select.*\(/i,
  /union.*all.*select/i,
  /concat.*\(/i,
];

/** The original's filter of common exploits in the path and query, decoded until stable. */
export function looksLikeExploit(pathAndQuery: string): boolean {
  let text = pathAndQuery;
  for (let i = 0; i < 8; i++) {
    let next: string;
    try {
      next = decodeURIComponent(text);
    } catch {
      break;
    }
    if (next === text) break;
    text = next;
  }
  return EXPLOITS.some((re) => re.test(text));
}
