// Installed apps with ingress for the ingress tests: an AppsView over real upstream servers the
// test starts (node:http, and a WebSocket upstream from the `ws` package), standing in for app
// containers until the integrator's end-to-end test runs the real echo app.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import type { AppsView, AppTarget, InstalledApp } from '../../actors/supervisor/apps/types.ts';

export interface FakeApp {
  slug: string;
  ingressToken: string;
  /** null: installed but not running */
  target: AppTarget | null;
  stream?: boolean;
  name?: string;
  panel?: { title?: string | null; icon?: string; admin?: boolean; enable?: boolean };
  ingress?: boolean;
}

/** An AppsView over the given apps (the list may change while the test runs). */
export function fakeApps(apps: FakeApp[]): AppsView {
  const installed = (a: FakeApp): InstalledApp =>
    ({
      slug: a.slug,
      repository: 'local',
      state: a.target ? 'started' : 'stopped',
      config: { name: a.name ?? a.slug, slug: a.slug, ingress: a.ingress ?? true, ingress_port: a.target?.port ?? 8099, ingress_stream: a.stream ?? false, panel_title: a.panel?.title ?? null, panel_icon: a.panel?.icon ?? 'mdi:puzzle', panel_admin: a.panel?.admin ?? true },
      user: { ingress_token: a.ingressToken, ingress_panel: a.panel?.enable ?? false },
    }) as unknown as InstalledApp;
  return {
    list: () => apps.map(installed),
    get: (slug) => {
      const a = apps.find((x) => x.slug === slug);
      return a && installed(a);
    },
    byIngressToken: (token) => {
      const a = apps.find((x) => x.ingressToken === token && (x.ingress ?? true));
      return a && installed(a);
    },
    ingressTarget: async (slug) => apps.find((x) => x.slug === slug)?.target ?? null,
  };
}

/** What the upstream saw of one HTTP request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Upstream {
  port: number;
  server: Server;
  /** every HTTP request, in order */
  seen: Seen[];
  /** the headers of each WebSocket handshake */
  wsSeen: IncomingMessage['headers'][];
  /** close codes the upstream's sockets got */
  wsClosed: number[];
  close(): Promise<void>;
}

export const BIG_SIZE = 5 * 1024 * 1024;
/** byte i of the big answer */
export const bigByte = (i: number) => (i * 7 + 3) & 0xff;

/**
 * An app's web server. `/echo...` answers what it saw as JSON; `/big` streams 5 MiB without a
 * length; `/status/<n>` answers n; `/typed` a type with parameters; `/untyped` none; `/cookies`
 * two Set-Cookie lines; `/page` an HTML page whose script echoes a message over `ws`;
 * WebSockets on any path echo text and binary, choose `echo` among offered subprotocols, and
 * close with the code a `close:<code>` message asks for, drop the connection on `drop`, and
 * refuse handshakes on `/refuse...`.
 */
export async function startUpstream(t: { teardown(fn: () => unknown): void }): Promise<Upstream> {
  const seen: Seen[] = [];
  const wsSeen: IncomingMessage['headers'][] = [];
  const wsClosed: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(s);
      const path = req.url!.split('?')[0];
      if (path === '/big') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        let sent = 0;
        const step = 64 * 1024;
        const more = () => {
          while (sent < BIG_SIZE) {
            const n = Math.min(step, BIG_SIZE - sent);
            const chunk = Buffer.alloc(n);
            for (let i = 0; i < n; i++) chunk[i] = bigByte(sent + i);
            sent += n;
            if (!res.write(chunk)) return void res.once('drain', more);
          }
          res.end();
        };
        return more();
      }
      const status = /^\/status\/(\d+)$/.exec(path);
      if (status) {
        res.writeHead(Number(status[1]), { 'X-App': 'yes' });
        return res.end(Number(status[1]) === 204 || Number(status[1]) === 304 ? undefined : `status ${status[1]}`);
      }
      if (path === '/typed') return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': '12' }).end('<p>typed</p>');
      if (path === '/untyped') {
        res.removeHeader('Content-Type');
        return res.end('raw');
      }
      if (path === '/cookies') return res.writeHead(200, [['Set-Cookie', 'a=1; Path=/'], ['Set-Cookie', 'b=2; Path=/'], ['Content-Type', 'text/plain']]).end('two');
      if (path.endsWith('/page') || path === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(page(req.headers));
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(s));
    });
  });
  const wss = new WebSocketServer({ server, handleProtocols: (protocols) => (protocols.has('echo') ? 'echo' : false), verifyClient: (info: { req: IncomingMessage }) => !info.req.url!.startsWith('/refuse') });
  wss.on('connection', (socket, req) => {
    wsSeen.push(req.headers);
    socket.on('message', (data, binary) => {
      const text = binary ? '' : data.toString();
      if (text.startsWith('close:')) return socket.close(Number(text.slice(6)), 'asked');
      if (text === 'drop') return socket.terminate();
      socket.send(data, { binary });
    });
    socket.on('close', (code) => wsClosed.push(code));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const close = () =>
    new Promise<void>((ok) => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      server.close(() => ok());
    });
  t.teardown(close);
  return { port: (server.address() as AddressInfo).port, server, seen, wsSeen, wsClosed, close };
}

/** The app's page: shows the user headers it got, and echoes a message over a WebSocket next to itself. */
function page(headers: IncomingMessage['headers']): string {
  const shown = ['x-remote-user-id', 'x-remote-user-name', 'x-remote-user-display-name', 'x-ingress-path'].map((h) => `<li id="${h}">${String(headers[h] ?? '')}</li>`).join('');
  return `<!doctype html><html><body><ul>${shown}</ul><p id="echo">waiting</p><script>
const ws = new WebSocket(location.href.replace(/^http/, 'ws').replace(/[^/]*$/, '') + 'socket', ['echo']);
ws.onopen = () => ws.send('hello through ingress');
ws.onmessage = (e) => { document.getElementById('echo').textContent = 'echo: ' + e.data + ' (' + ws.protocol + ')'; };
ws.onerror = () => { document.getElementById('echo').textContent = 'error'; };
</script></body></html>`;
}
