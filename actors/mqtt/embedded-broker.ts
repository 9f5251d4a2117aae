import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Aedes, type AuthenticateError } from 'aedes';

/**
 * `mqtt: broker: embedded`: an MQTT broker inside Hearth for a home with neither a broker of its
 * own nor a supervisor (whose Mosquitto app is the broker there). It is aedes — a broker in pure
 * JS maintained by the MQTT.js organisation, so no native build and the same packet library as
 * the client — served over node's `net`, in memory (retained messages last as long as Hearth runs).
 */

/** Where and how the embedded broker listens. */
export interface EmbeddedBrokerOptions {
  /** the TCP port; 0 picks a free one (tests) */
  port: number;
  /** the address to listen on: loopback unless the user names one (`0.0.0.0` for the whole network) */
  host?: string;
  /** with `password`, the one login clients must give; without both, no login is asked */
  username?: string;
  password?: string;
  /** told of a connection the listener could not accept (too many open files...) */
  onError?: (err: Error) => void;
}

/** A running embedded broker. */
export interface EmbeddedBroker {
  /** the port it listens on (the one asked, or the one picked for 0) */
  port: number;
  /** disconnects every client and stops listening */
  close(): Promise<void>;
}

/** A broker that cannot start: the message names the port and why. */
export class EmbeddedBrokerError extends Error {
  readonly code = 'HEARTH_MQTT_BROKER';
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedBrokerError';
  }
}

// compared as digests so the time taken says nothing of the expected value's length
const digest = (value: string | Buffer) => createHash('sha256').update(value).digest();

/** The aedes `authenticate` hook for one login: a wrong or missing one is CONNACK "bad username or password". */
function singleLogin(username: string, password: string) {
  const user = digest(username);
  const pass = digest(password);
  return (_client: unknown, given: string | undefined, secret: Buffer | undefined, done: (err: AuthenticateError | null, ok: boolean | null) => void) => {
    // both compared every time, so a right name with a wrong password takes as long as anything else
    const userOk = timingSafeEqual(digest(given ?? ''), user);
    const passOk = timingSafeEqual(digest(secret ?? Buffer.alloc(0)), pass);
    if (given !== undefined && secret !== undefined && userOk && passOk) return done(null, true);
    const refused = new Error('bad username or password') as AuthenticateError;
    refused.returnCode = 4; // CONNACK: bad username or password
    done(refused, null);
  };
}

/** Listens on host:port alone (no SO_REUSEPORT, node's default); a refusal names the port. */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'EADDRINUSE' ? 'the port is already in use' : err.code === 'EACCES' ? 'permission denied (a port below 1024 needs privileges)' : err.code === 'EADDRNOTAVAIL' ? `${host} is not an address of this host` : err.message;
      reject(new EmbeddedBrokerError(`the embedded MQTT broker cannot listen on port ${port} (${host}): ${why}`));
    };
    server.once('error', refused);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', refused);
      resolve();
    });
  });
}

/** Starts the embedded broker; it refuses a port in use, and a username without a password or the reverse. */
export async function startEmbeddedBroker(options: EmbeddedBrokerOptions): Promise<EmbeddedBroker> {
  const host = options.host ?? '127.0.0.1';
  if ((options.username === undefined) !== (options.password === undefined)) {
    throw new EmbeddedBrokerError('the embedded MQTT broker needs both a username and a password, or neither');
  }
  const broker = await Aedes.createBroker(options.username !== undefined && options.password !== undefined ? { authenticate: singleLogin(options.username, options.password) } : {});
  // a socket that never sent CONNECT is no aedes client yet: kept here so close() ends it too
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    broker.handle(socket);
  });
  try {
    await listen(server, options.port, host);
  } catch (err) {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    throw err;
  }
  server.on('error', (err) => options.onError?.(err));
  const address = server.address();
  let closing: Promise<void> | undefined;
  return {
    port: typeof address === 'object' && address ? address.port : options.port,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await new Promise<void>((resolve) => broker.close(() => resolve()));
        for (const socket of sockets) socket.destroy();
        await stopped;
      })()),
  };
}
