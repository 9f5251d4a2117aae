import { readFileSync } from 'node:fs';
import type { HttpReply } from '../replies.ts';
import type { Router } from '../router.ts';

// Read once when the module loads: the page is the same for every request, and nothing of the
// request (client_id, redirect_uri, state) is ever put into it here; the page's script reads
// them from location.search and shows them as text.
const page = (name: string) => readFileSync(new URL(`../pages/${name}`, import.meta.url), 'utf8');

/**
 * Only this origin's script, style and API. No form may submit anywhere (the script handles
 * every submit), and no page may frame this one: `frame-ancestors` is what current browsers
 * obey, X-Frame-Options below is for those that predate it.
 */
export const AUTHORIZE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function asset(body: string, contentType: string, headers: Record<string, string> = {}): () => HttpReply {
  // revalidated on every load, so an upgraded Hearth never pairs a new page with an old script
  const reply: HttpReply = { status: 200, headers: { 'Content-Type': contentType, 'Cache-Control': 'no-cache', ...headers }, body };
  return () => reply;
}

/**
 * GET /auth/authorize: the login page clients open (`?response_type=code&client_id=...&
 * redirect_uri=...&state=...`), with its script and style beside it. Referrer-Policy:
 * no-referrer comes with every answer of the router, so the query never leaks to the app the
 * page sends the user back to.
 */
export function registerAuthorizePage(root: Router): void {
  const router = root.of('auth');
  const html = asset(page('authorize.html'), 'text/html; charset=utf-8', {
    'Content-Security-Policy': AUTHORIZE_CSP,
    'X-Frame-Options': 'DENY',
  });
  router.get('/auth/authorize', { access: 'none' }, html);
  router.get('/auth/authorize.js', { access: 'none' }, asset(page('authorize.js'), 'text/javascript; charset=utf-8'));
  router.get('/auth/authorize.css', { access: 'none' }, asset(page('authorize.css'), 'text/css; charset=utf-8'));
}
