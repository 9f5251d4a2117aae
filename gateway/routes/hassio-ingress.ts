import type { TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import { HOP_HEADERS, serveProxy, type ProxyIncoming, type ProxyPlan } from '../proxy/relay.ts';

/**
 * The core's hop of ingress (supervisor-wire §10.1): `/api/hassio_ingress/<token>/<path>`, HTTP
 * and WebSocket, passed to the supervisor's `/ingress/<token>/<path>` with `X-Ingress-Path`
 * (where the app's pages live as the browser sees them), `X-Hass-Source: core.ingress` and the
 * forwarded headers. No core auth: the browser's `ingress_session` cookie goes along and the
 * supervisor checks it. Installed only when a supervisor runs this core.
 */

const PATH = /^\/api\/hassio_ingress\/([-_A-Za-z0-9]+)\/(.*)$/;

/** Client headers never passed on: the two this hop sets itself. */
const STRIPPED = new Set(['x-hass-source', 'x-ingress-path']);

export function registerHassioIngress(app: TemplatedApp, options: { supervisorUrl: string; log(line: string): void }): void {
  const url = new URL(options.supervisorUrl);
  const supervisor = { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 80) };
  serveProxy(app, {
    pattern: '/api/hassio_ingress/*',
    matches: (path) => PATH.test(path),
    plan: (incoming) => planCoreIngress(supervisor, incoming),
    log: options.log,
  });
}

export function planCoreIngress(supervisor: { host: string; port: number }, incoming: ProxyIncoming): ProxyPlan {
  const [, token, rest] = PATH.exec(incoming.url)!;
  const headers: Record<string, string> = {};
  for (const name in incoming.headers) if (!HOP_HEADERS.has(name) && !STRIPPED.has(name)) headers[name] = incoming.headers[name];
  headers['X-Ingress-Path'] = `/api/hassio_ingress/${token}`;
  headers['X-Hass-Source'] = 'core.ingress';
  const forwardedFor = incoming.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${incoming.remoteIp}` : incoming.remoteIp;
  headers['x-forwarded-host'] = incoming.headers['x-forwarded-host'] || incoming.headers.host || '';
  headers['x-forwarded-proto'] = incoming.headers['x-forwarded-proto'] || 'http';
  return {
    target: {
      host: supervisor.host,
      port: supervisor.port,
      path: `/ingress/${token}/${rest}${incoming.query ? `?${incoming.query}` : ''}`,
      headers,
      // the supervisor decides whether the app gets it buffered
      streamBody: true,
    },
  };
}
