import { readFile } from 'node:fs/promises';
import { plainError, type HttpReply } from '../replies.ts';
import type { Router } from '../router.ts';

/**
 * The built-in dashboard: static ES modules and CSS under gateway/pages/dashboard/, served as
 * they are (no build step), with the libraries it imports served from node_modules (no CDN).
 * Everything here is open (access 'none'): the files hold no data; the page signs in through
 * the login page and talks to the API with its own token.
 */

const DASHBOARD_DIR = new URL('../pages/dashboard/', import.meta.url);
const MODULES = new URL('../../node_modules/', import.meta.url);

/** The dashboard talks only to its own origin, over HTTP and WebSocket. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self' ws: wss:",
  "img-src 'self' data:",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json; charset=utf-8',
};

/**
 * A file name the routes will read: one segment, a known extension. Nothing with a slash, a
 * dot-dot or an odd character reaches the file system.
 */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*\.(js|mjs|css|html|svg|json)$/;

const reply = (body: string | Buffer, name: string, headers: Record<string, string> = {}): HttpReply => ({
  status: 200,
  // revalidated on every load, so an upgraded Hearth never pairs a new page with an old module
  headers: { 'Content-Type': TYPES[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache', ...headers },
  body,
});

/**
 * Files are read once and kept: they never change while Hearth runs, and the set is small (the
 * allowed names of a handful of directories). A missing file is remembered as missing too.
 */
function directory(dir: URL, allowed?: (name: string) => boolean) {
  const cache = new Map<string, Promise<Buffer | undefined>>();
  return (name: string | undefined): Promise<Buffer | undefined> => {
    if (!name || !SAFE_NAME.test(name) || name.includes('..') || (allowed && !allowed(name))) return Promise.resolve(undefined);
    let file = cache.get(name);
    if (!file) {
      file = readFile(new URL(name, dir)).catch(() => undefined);
      cache.set(name, file);
    }
    return file;
  };
}

/** `lightbulb-outline` → `mdiLightbulbOutline`, as @mdi/js names its exports. */
export function mdiExportName(name: string): string {
  return 'mdi' + name.split('-').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
}

let icons: Promise<Map<string, string>> | undefined;

/**
 * The icon set's path strings by export name. @mdi/js is ~7,000 `export var mdiX = "..."` lines;
 * reading it as text on the first icon asked costs one parse, and nothing when no dashboard is
 * ever opened.
 */
function iconPaths(): Promise<Map<string, string>> {
  icons ??= readFile(new URL('@mdi/js/mdi.js', MODULES), 'utf8').then((text) => {
    const paths = new Map<string, string>();
    for (const m of text.matchAll(/^export var (mdi\w+) = "([^"]*)";$/gm)) paths.set(m[1], m[2]);
    return paths;
  });
  return icons;
}

/** One icon as an SVG document, drawn in the text colour where it is inlined. */
export async function iconSvg(name: string): Promise<string | undefined> {
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return undefined;
  const d = (await iconPaths()).get(mdiExportName(name));
  if (d === undefined) return undefined;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="currentColor" d="${d}"/></svg>`;
}

/**
 * GET / (the page), /dashboard/<file>, /dashboard/pages/<file>, the vendored libraries under
 * /dashboard/vendor/haws/<file> and /dashboard/vendor/uplot/<file>, and the icons as
 * /dashboard/icons/<mdi-name>.svg.
 */
export function registerDashboardRoutes(router: Router): void {
  const top = directory(DASHBOARD_DIR);
  // the page itself only at /, where it comes with its CSP
  const topFiles = directory(DASHBOARD_DIR, (n) => !n.endsWith('.html'));
  const pages = directory(new URL('pages/', DASHBOARD_DIR));
  const haws = directory(new URL('home-assistant-js-websocket/dist/', MODULES), (n) => n.endsWith('.js') && !n.startsWith('haws.'));
  const uplot = directory(new URL('uplot/dist/', MODULES), (n) => n === 'uPlot.esm.js' || n === 'uPlot.min.css');
  const open = { access: 'none' as const };

  const serve = (read: (name: string | undefined) => Promise<Buffer | undefined>) => async (req: { params: Record<string, string> }) => {
    const body = await read(req.params.file);
    return body ? reply(body, req.params.file) : plainError(404);
  };

  router.get('/', open, async () => {
    const html = await top('index.html');
    if (!html) return plainError(404);
    return reply(html, 'index.html', { 'Content-Security-Policy': DASHBOARD_CSP, 'X-Frame-Options': 'DENY' });
  });
  router.get('/dashboard/:file', open, serve(topFiles));
  router.get('/dashboard/pages/:file', open, serve(pages));
  router.get('/dashboard/vendor/haws/:file', open, serve(haws));
  router.get('/dashboard/vendor/uplot/:file', open, serve(uplot));
  router.get('/dashboard/icons/:file', open, async (req) => {
    const file = req.params.file;
    const svg = file.endsWith('.svg') ? await iconSvg(file.slice(0, -4)) : undefined;
    if (svg === undefined) return plainError(404);
    // an icon of a given name never changes within one installed icon set
    return reply(svg, file, { 'Cache-Control': 'public, max-age=86400' });
  });
}
