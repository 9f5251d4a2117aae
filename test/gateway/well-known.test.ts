import t from 'tap';
import { request } from 'node:http';
import { startTestHearth } from '../helpers/hearth.ts';

const DOCS = 'https://developers.home-assistant.io/docs/auth_api';

/** A GET as a client sends it, with the Host header it chose; the raw answer. */
function get(base: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((ok, fail) => {
    const req = request(`${base}${path}`, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

/** The authorization server document, byte for byte, in the original's key order. */
function serverDoc(prefix: string): string {
  const doc: Record<string, unknown> = {
    authorization_endpoint: `${prefix}/auth/authorize`,
    token_endpoint: `${prefix}/auth/token`,
    revocation_endpoint: `${prefix}/auth/revoke`,
    client_id_metadata_document_supported: true,
    response_types_supported: ['code'],
    service_documentation: DOCS,
  };
  if (prefix) doc.issuer = prefix;
  return JSON.stringify(doc);
}

function resourceDoc(prefix: string): string {
  return JSON.stringify({ resource: prefix, authorization_servers: [prefix], resource_documentation: DOCS });
}

const AS = '/.well-known/oauth-authorization-server';
const PR = '/.well-known/oauth-protected-resource';

t.test('without a configured URL', async (t) => {
  const { base, hearth } = await startTestHearth(t);

  t.test('a host that is not this instance: relative endpoints, no issuer, no resource document', async (t) => {
    const res = await get(base, AS, { Host: 'hearth.example.net' });
    t.equal(res.status, 200);
    t.match(res.headers['content-type'], /^application\/json/);
    t.equal(res.body, serverDoc(''));
    t.notOk('issuer' in JSON.parse(res.body), 'issuer is left out, not null');

    const pr = await get(base, PR, { Host: 'hearth.example.net' });
    t.equal(pr.status, 404);
    t.match(pr.headers['content-type'], /^application\/json/);
    t.equal(pr.body, '{"message":"No URL available"}');
  });

  t.test('loopback and localhost are this instance, on its own port', async (t) => {
    const loop = await get(base, AS);
    t.equal(loop.status, 200);
    t.equal(loop.body, serverDoc(`http://127.0.0.1:${hearth.port}`));
    const local = await get(base, AS, { Host: `localhost:${hearth.port}` });
    t.equal(local.body, serverDoc(`http://localhost:${hearth.port}`));
    const pr = await get(base, PR);
    t.equal(pr.status, 200);
    t.equal(pr.body, resourceDoc(`http://127.0.0.1:${hearth.port}`));
  });

  t.test('open to anyone: no token, a bad token, no CORS grant', async (t) => {
    const bad = await get(base, AS, { Authorization: 'Bearer not-a-token', Host: 'x.invalid' });
    t.equal(bad.status, 200);
    t.equal(bad.body, serverDoc(''));
    const cross = await get(base, AS, { Origin: 'https://elsewhere.example', Host: 'x.invalid' });
    t.equal(cross.status, 200);
    t.equal(cross.headers['access-control-allow-origin'], undefined, 'the original does not open these views to other origins');
  });
});

t.test('with internal_url and external_url configured', async (t) => {
  const { base, hearth } = await startTestHearth(t, {
    config: 'core:\n  internal_url: "http://Hearth.Local:8123/"\n  external_url: "https://home.example.org:443"\n',
  });

  t.test('a request to the internal host: the configured internal URL, normalized', async (t) => {
    const res = await get(base, AS, { Host: 'hearth.local:9999' });
    t.equal(res.status, 200);
    t.equal(res.body, serverDoc('http://hearth.local:8123'), 'host matched alone; no trailing slash');
    const pr = await get(base, PR, { Host: 'hearth.local' });
    t.equal(pr.body, resourceDoc('http://hearth.local:8123'));
  });

  t.test('a request to the external host: the external URL without its default port', async (t) => {
    const res = await get(base, AS, { Host: 'home.example.org' });
    t.equal(res.body, serverDoc('https://home.example.org'));
    t.equal(JSON.parse(res.body).issuer, 'https://home.example.org');
    const pr = await get(base, PR, { Host: 'home.example.org' });
    t.equal(pr.body, resourceDoc('https://home.example.org'));
  });

  t.test('any other host: no issuer; loopback still answers with its own URL', async (t) => {
    const other = await get(base, AS, { Host: 'proxy.example.com' });
    t.equal(other.body, serverDoc(''));
    t.equal((await get(base, PR, { Host: 'proxy.example.com' })).status, 404);
    const loop = await get(base, AS);
    t.equal(loop.body, serverDoc(`http://127.0.0.1:${hearth.port}`));
  });
});
