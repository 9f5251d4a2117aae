// A client of GET /api/stream (Server-Sent Events) for tests.
import { request } from 'node:http';

/** Opens /api/stream and collects its `data:` lines. */
export function openStream(base: string, token: string, query = '') {
  const lines: string[] = [];
  let status = 0;
  let contentType = '';
  let waiters: Array<() => void> = [];
  const req = request(`${base}/api/stream${query}`, { headers: { Authorization: `Bearer ${token}` } });
  const ready = new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      status = res.statusCode!;
      contentType = String(res.headers['content-type']);
      let buf = '';
      res.on('data', (c) => {
        buf += c.toString();
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          lines.push(buf.slice(0, i));
          buf = buf.slice(i + 2);
        }
        waiters.forEach((w) => w());
        waiters = [];
      });
      resolve();
    });
    req.on('error', reject);
  });
  req.end();
  const waitLines = async (n: number) => {
    while (lines.length < n) await new Promise<void>((r) => waiters.push(r));
    return lines;
  };
  return { ready, lines, waitLines, close: () => req.destroy(), get status() { return status; }, get contentType() { return contentType; } };
}
