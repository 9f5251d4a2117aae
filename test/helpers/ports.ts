// A port for a server a test starts later (a child process, a container, nats-server).
// Picked below the kernel's ephemeral range (32768–60999 here): a port the kernel hands out
// for listen(0) or an outgoing connection elsewhere in the parallel suite can be taken again
// between our check and the later bind; a port below that range is only taken by choice.
import { createServer } from 'node:net';

const LOW = 20_000;
const HIGH = 32_000;

function bindable(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const server = createServer();
    server.once('error', () => ok(false));
    // 0.0.0.0: Docker publishes on every address, so the port must be free on all of them
    server.listen(port, '0.0.0.0', () => server.close(() => ok(true)));
  });
}

/** A TCP port nobody listens on right now, outside the range the kernel picks from. */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}
