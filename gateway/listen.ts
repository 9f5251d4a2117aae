import uWS, { type TemplatedApp, type us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import { createServer } from 'node:net';

// the build's own listen(host, port, options, cb), which its type definitions leave out
type ListenWithOptions = (host: string, port: number, options: number, cb: (socket: us_listen_socket | false) => void) => TemplatedApp;
const LIBUS_LISTEN_EXCLUSIVE_PORT = (uWS as unknown as { LIBUS_LISTEN_EXCLUSIVE_PORT: number }).LIBUS_LISTEN_EXCLUSIVE_PORT;

/** A port that cannot be listened on: the message names it and why. */
export class ListenError extends Error {
  readonly code = 'HEARTH_LISTEN';
  constructor(
    readonly host: string,
    readonly port: number,
    why: string,
  ) {
    super(`cannot listen on port ${port} (${host}): ${why}`);
    this.name = 'ListenError';
  }
}

/** Why the system refuses host:port, asked by binding it once more the plain way. */
function whyNot(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') resolve('the port is already in use (is another Hearth running on it?)');
      else if (err.code === 'EACCES') resolve('permission denied (a port below 1024 needs privileges)');
      else if (err.code === 'EADDRNOTAVAIL') resolve(`${host} is not an address of this host`);
      else resolve(err.message);
    });
    probe.listen(port, host, () => probe.close(() => resolve('the port was refused')));
  });
}

/**
 * Listens on host:port alone. Unless told otherwise uWS shares a port with whoever also asks for
 * it, so a second Hearth started on the port of a running one would take half of its requests;
 * this one refuses instead, with a ListenError naming the port.
 */
export async function listenExclusive(app: TemplatedApp, host: string, port: number): Promise<us_listen_socket> {
  const socket = await new Promise<us_listen_socket | false>((resolve) => (app.listen as unknown as ListenWithOptions).call(app, host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, resolve));
  if (socket) return socket;
  throw new ListenError(host, port, await whyNot(host, port));
}
