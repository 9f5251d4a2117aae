import type { TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import type { CoreDeps, ReadDeps } from '../core.ts';
import { Connection, CommandError, FlushScheduler, WS_LIMITS, type SocketData, type WsLimits } from './connection.ts';
import { checkCommand, type CommandTable } from './command.ts';
import { coreCommands } from './commands.ts';
import { componentsOfCommands } from './command-components.ts';
import { isObject, readJson } from '../body.ts';
import { refusedMessageId } from './refused-message-id.ts';
import type { OutputBudget } from '../output-budget.ts';
import { forwardedClient, type Forwarding } from '../forwarded.ts';
import type { LoginAttempts } from '../../actors/auth/ip-bans.ts';
import { RefusalLog } from '../refusal-log.ts';

/** What the handshake shares with the HTTP side: the ban keeper and the reverse-proxy rules; where refusals are told. */
export interface WsGate {
  bans?: LoginAttempts;
  forwarded?: Forwarding;
  /** lines naming unknown and unauthorized commands (the `hearth.websocket` logger's, at info, when absent) */
  refusals?: RefusalLog;
}

const FORWARD_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'] as const;

/** The WebSocket API at /api/websocket: the auth handshake, then commands. */
export function registerWebSocket<D extends ReadDeps = CoreDeps>(
  app: TemplatedApp,
  deps: D,
  limits: Partial<WsLimits> = {},
  budget?: OutputBudget,
  gate: WsGate = {},
  // a read replica serves its own table: the read commands and its answer to writes
  commands: CommandTable<D> = coreCommands as unknown as CommandTable<D>,
): { connections: Set<Connection> } {
  // what the table serves is loaded: its command families are listed components
  deps.coreConfig.components.follow(() => componentsOfCommands(commands.types()));
  const connLimits: WsLimits = { ...WS_LIMITS, ...limits };
  const scheduler = new FlushScheduler();
  const connections = new Set<Connection>();
  const byToken = new Map<string, Set<Connection>>();
  const log = deps.logs.get('hearth.websocket');
  const refusals = gate.refusals ?? new RefusalLog(log.info);

  deps.auth.onRefreshTokenRevoked((tokenId) => {
    for (const conn of byToken.get(tokenId) ?? []) conn.close();
  });

  app.ws<SocketData>('/api/websocket', {
    maxPayloadLength: 16 * 1024 * 1024,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    maxBackpressure: 64 * 1024 * 1024,
    upgrade: (res, req, context) => {
      let ip = Buffer.from(res.getRemoteAddressAsText()).toString();
      // the upgrade passes the same middleware as any request: forwarded address, then bans
      const headers: Record<string, string | undefined> = {};
      for (const name of FORWARD_HEADERS) headers[name] = req.getHeader(name) || undefined;
      if (headers['x-forwarded-for'] !== undefined) {
        const client = forwardedClient(ip, headers, gate.forwarded, log.error);
        if (client === undefined) return void res.writeStatus('400 Bad Request').end('400: Bad Request');
        ip = client;
      }
      if (gate.bans?.checking && gate.bans.isBanned(ip)) return void res.writeStatus('403 Forbidden').end('403: Forbidden');
      res.upgrade<SocketData>(
        { ip },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },
    open: (ws) => {
      const data = ws.getUserData();
      data.conn = new Connection(ws, data.ip, log.error, connLimits, scheduler, budget);
      connections.add(data.conn);
    },
    message: (ws, raw, isBinary) => {
      const conn = ws.getUserData().conn!;
      if (conn.closed) return;
      if (isBinary) {
        // no binary handlers exist in this slice; before auth a binary frame ends the socket
        if (!conn.principal) conn.close();
        return;
      }
      const bytes = new Uint8Array(raw);
      const read = readJson(bytes);
      if (!read.ok || read.value === undefined) {
        // the client waits for an answer under its message's id: one with another id would
        // leave it waiting for ever, so without a readable id the connection ends, as the
        // original ends it on any message that is not JSON
        if (!conn.principal) return conn.close();
        const id = refusedMessageId(bytes);
        if (id === undefined) {
          refusals.unreadable(conn.principal, conn.ip);
          return conn.close();
        }
        const why = read.ok || read.problem === 'syntax' ? '' : `: ${read.message}`;
        return conn.error(id, 'invalid_format', `Message incorrectly formatted${why || '.'}`);
      }
      const msg = read.value;
      if (!conn.principal) return authenticate(conn, msg);
      const list = Array.isArray(msg) ? msg : [msg];
      for (const m of list) {
        // a client dropped halfway through a batch gets nothing more run for it
        if (conn.closed) break;
        dispatch(conn, m);
      }
    },
    drain: (ws) => ws.getUserData().conn?.drained(),
    close: (ws) => {
      const conn = ws.getUserData().conn!;
      conn.dispose();
      connections.delete(conn);
      if (conn.principal) byToken.get(conn.principal.refreshTokenId)?.delete(conn);
    },
  });

  /** The handshake; like a command, whatever goes wrong in it ends this connection only. */
  function authenticate(conn: Connection, msg: unknown) {
    try {
      handshake(conn, msg);
    } catch (err) {
      log.error(`Error in the auth handshake of ${conn.ip}`, err);
      conn.authInvalid('Invalid access token or password');
    }
  }

  function handshake(conn: Connection, msg: unknown) {
    const problem = authMessageProblem(msg);
    if (problem) return conn.authInvalid(`Auth message incorrectly formatted: ${problem}`);
    const token = (msg as Record<string, unknown>).access_token;
    // an api_password (the original's retired scheme) is well formed, and never valid
    const principal = typeof token === 'string' ? deps.auth.validateAccessToken(token) : undefined;
    const attempt = { remoteIp: conn.ip, path: '/api/websocket', headers: {} };
    if (!principal) {
      // the ban keeper says it itself, with the host name
      if (gate.bans) gate.bans.failed(attempt);
      else log.warning(`Login attempt or request with invalid authentication from ${conn.ip}`);
      return conn.authInvalid('Invalid access token or password');
    }
    gate.bans?.succeeded(attempt);
    conn.authenticated(principal);
    let set = byToken.get(principal.refreshTokenId);
    if (!set) byToken.set(principal.refreshTokenId, (set = new Set()));
    set.add(conn);
  }

  /**
   * Runs one command. Everything a message can make go wrong — its shape, its schema, its
   * handler, sync or async — ends as an error result for that message, never beyond it.
   */
  function dispatch(conn: Connection, msg: unknown) {
    if (!isObject(msg) || typeof msg.type !== 'string' || msg.type === '' || !Number.isInteger(msg.id) || (msg.id as number) < 1) {
      const id = isObject(msg) && Number.isInteger(msg.id) ? (msg.id as number) : 0;
      return conn.error(id, 'invalid_format', 'Message incorrectly formatted.');
    }
    const id = msg.id as number;
    const type = msg.type;
    const refuse = (code: string, message: string, extra?: Record<string, unknown>) => {
      refusals.websocket(code, type, conn.principal, conn.ip);
      conn.error(id, code, message, extra);
    };
    const fail = (err: unknown) => {
      if (err instanceof CommandError) return refuse(err.code, err.message, err.extra);
      log.error(`Error handling message ${type} (${id}) from ${conn.ip}`, err);
      conn.error(id, 'unknown_error', 'Unknown error');
    };
    try {
      if (id <= conn.lastId) return conn.error(id, 'id_reuse', 'Identifier values have to increase.');
      const command = commands.get(type);
      if (!command) return refuse('unknown_command', 'Unknown command.');
      conn.lastId = id;
      if (command.admin && !conn.principal!.isAdmin) return refuse('unauthorized', 'Unauthorized');
      const invalid = checkCommand(command, msg);
      if (invalid) return conn.error(id, 'invalid_format', invalid);
      const done = command.handle(conn, msg, deps);
      if (done) done.catch(fail);
    } catch (err) {
      fail(err);
    }
  }

  return { connections };
}

/** Why an auth message is not `{type: "auth", access_token: "..."}`, in the original's wording. */
function authMessageProblem(msg: unknown): string | undefined {
  if (!isObject(msg)) return 'expected a dictionary';
  if (msg.type !== 'auth') return `value must be one of ['auth'] for dictionary value @ data['type']. Got ${JSON.stringify(msg.type ?? null)}`;
  for (const key of Object.keys(msg)) {
    if (key !== 'type' && key !== 'access_token' && key !== 'api_password') return `extra keys not allowed @ data['${key}']. Got ${JSON.stringify(msg[key])}`;
  }
  if ('access_token' in msg && 'api_password' in msg) return "two or more values in the same group of exclusion 'auth' @ data[<auth>]";
  if ('api_password' in msg) return undefined;
  if (typeof msg.access_token !== 'string') return "expected str for dictionary value @ data['access_token']";
  return undefined;
}
