// auth/sign_path and signed GET requests as a client sees them, against a real Hearth.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';

/** Sends a command and waits for its answer. */
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  c.send(msg);
  return c.until((m) => m.id === msg.id && m.type === 'result');
}

function claimsOf(signedPath: string): any {
  const sig = new URL(signedPath, 'http://x').searchParams.get('authSig')!;
  return { header: JSON.parse(Buffer.from(sig.split('.')[0], 'base64url').toString()), claims: JSON.parse(Buffer.from(sig.split('.')[1], 'base64url').toString()) };
}

const sigOf = (signedPath: string) => new URL(signedPath, 'http://x').searchParams.get('authSig')!;

/** A GET (or another method) without an Authorization header. */
async function plain(base: string, path: string, method = 'GET') {
  const res = await fetch(`${base}${path}`, { method });
  const text = await res.text();
  return { status: res.status, text };
}

t.test('auth/sign_path and signed requests', async (t) => {
  const { base } = await startTestHearth(t);
  const own = await onboard(base);
  const c = await authedClient(base, own.access_token);
  const refreshTokenId = JSON.parse(Buffer.from(own.access_token.split('.')[1], 'base64url').toString()).iss;
  let id = 1;

  const signed = await ask(c, { id: id++, type: 'auth/sign_path', path: '/api/states' });
  t.equal(signed.success, true);
  t.same(Object.keys(signed.result), ['path']);
  const path: string = signed.result.path;
  t.match(path, /^\/api\/states\?authSig=[\w-]+\.[\w-]+\.[\w-]+$/, '<path>?authSig=<jwt>');
  const { header, claims } = claimsOf(path);
  t.equal(header.alg, 'HS256');
  t.same(Object.keys(claims), ['iss', 'path', 'params', 'iat', 'exp'], 'the original claims in its order');
  t.equal(claims.iss, refreshTokenId, 'signed by the connection refresh token');
  t.equal(claims.path, '/api/states');
  t.same(claims.params, []);
  t.equal(claims.exp - claims.iat, 30, 'expires defaults to 30 seconds');

  const states = await api(base, own.access_token)('GET', '/api/states');
  const ok = await plain(base, path);
  t.equal(ok.status, 200, 'a signed GET needs no Authorization header');
  t.same(JSON.parse(ok.text), states.json, 'and answers the states');

  const bad = await fetch(`${base}${path}`, { headers: { Authorization: 'Bearer nonsense' } });
  t.equal(bad.status, 200, 'an invalid bearer token falls back to the signature, as in the original');
  await bad.text();

  t.equal((await plain(base, '/api/states')).status, 401, 'no signature, no header');
  const postPath = (await ask(c, { id: id++, type: 'auth/sign_path', path: '/api/events/signed_test' })).result.path;
  t.equal((await plain(base, postPath, 'POST')).status, 401, 'GET only');
  t.equal((await plain(base, path, 'HEAD')).status, 401, 'not even HEAD (the original checks the method GET)');

  const sig = sigOf(path);
  const [h, p, s] = sig.split('.');
  const flipped = s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
  t.equal((await plain(base, `/api/states?authSig=${h}.${p}.${flipped}`)).status, 401, 'a tampered signature');
  const forgedClaims = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url');
  t.equal((await plain(base, `/api/states?authSig=${h}.${forgedClaims}.${s}`)).status, 401, 'tampered claims');
  t.equal((await plain(base, `/api/states?authSig=${h}.${p}.`)).status, 401, 'no signature part');
  t.equal((await plain(base, `/api/config?authSig=${sig}`)).status, 401, 'another path');
  t.equal((await plain(base, `/api/states/sun.sun?authSig=${sig}`)).status, 401, 'a longer path');
  t.equal((await plain(base, `/api/states?authSig=${sig}&extra=1`)).status, 401, 'an extra parameter');
  t.equal((await plain(base, `/api/states?extra=1&authSig=${sig}`)).status, 401, 'an extra parameter before it');
  t.equal((await plain(base, `/api/states?authSig=${sig}&width=100&height=20`)).status, 200, 'width and height are safe to add');

  // a path with a query: its parameters are signed in their order
  const withQuery = (await ask(c, { id: id++, type: 'auth/sign_path', path: '/api/states?b=2&a=1&width=5', expires: 60 })).result.path;
  t.match(withQuery, /^\/api\/states\?b=2&a=1&authSig=/, 'the safe parameters are dropped from the signed path');
  t.same(claimsOf(withQuery).claims.params, [['b', '2'], ['a', '1']]);
  t.equal(claimsOf(withQuery).claims.exp - claimsOf(withQuery).claims.iat, 60);
  const qsig = sigOf(withQuery);
  t.equal((await plain(base, withQuery)).status, 200);
  t.equal((await plain(base, `/api/states?a=1&b=2&authSig=${qsig}`)).status, 401, 'the order changed');
  t.equal((await plain(base, `/api/states?b=2&a=3&authSig=${qsig}`)).status, 401, 'a value changed');
  t.equal((await plain(base, `/api/states?b=2&authSig=${qsig}`)).status, 401, 'a parameter removed');
  t.equal((await plain(base, `/api/states?b=2&a=1&a=1&authSig=${qsig}`)).status, 401, 'a parameter repeated');
  t.equal((await plain(base, `/api/states?authSig=${qsig}`)).status, 401, 'without its parameters');
  t.equal((await plain(base, `/api/states?authSig=${qsig}&b=2&a=1&width=9`)).status, 200, 'authSig may stand anywhere');

  // expiry: a past expiry never works; a short one stops working once passed
  const expired = (await ask(c, { id: id++, type: 'auth/sign_path', path: '/api/states', expires: -5 })).result.path;
  t.equal((await plain(base, expired)).status, 401, 'expired in the past');
  const short = (await ask(c, { id: id++, type: 'auth/sign_path', path: '/api/states', expires: 1 })).result.path;
  t.equal((await plain(base, short)).status, 200, 'valid before exp');
  const exp = claimsOf(short).claims.exp * 1000;
  await new Promise((r) => setTimeout(r, Math.max(0, exp - Date.now()) + 50));
  t.equal((await plain(base, short)).status, 401, 'invalid from exp on');

  // the command's schema
  t.equal((await ask(c, { id: id++, type: 'auth/sign_path' })).error.code, 'invalid_format', 'path is required');
  t.equal((await ask(c, { id: id++, type: 'auth/sign_path', path: '/x', expires: 'soon' })).error.code, 'invalid_format', 'expires is an integer');
  t.equal((await ask(c, { id: id++, type: 'auth/sign_path', path: '/x', expires: 1e300 })).error.code, 'unknown_error', 'an overflowing expires');

  // revoking the signing refresh token ends its signed paths at once
  t.equal((await plain(base, path)).status, 200);
  const revoked = await fetch(`${base}/auth/revoke`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: own.refresh_token }).toString(),
  });
  t.equal(revoked.status, 200);
  t.equal((await plain(base, path)).status, 401, 'the refresh token is gone');
  t.equal((await plain(base, withQuery)).status, 401);
  c.ws.close();
});

t.test('auth/delete_refresh_token ends the signed paths of that token', async (t) => {
  const { base } = await startTestHearth(t);
  const own = await onboard(base);
  const c = await authedClient(base, own.access_token);
  const llat = (await ask(c, { id: 1, type: 'auth/long_lived_access_token', client_name: 'Signer', lifespan: 1 })).result;
  const llId = JSON.parse(Buffer.from(llat.split('.')[1], 'base64url').toString()).iss;
  const other = await authedClient(base, llat);
  const path = (await ask(other, { id: 1, type: 'auth/sign_path', path: '/api/states', expires: 300 })).result.path;
  t.equal(claimsOf(path).claims.iss, llId, 'signed by the long-lived token of that connection');
  t.equal((await plain(base, path)).status, 200);
  const deleted = await ask(c, { id: 2, type: 'auth/delete_refresh_token', refresh_token_id: llId });
  t.equal(deleted.success, true);
  t.equal((await plain(base, path)).status, 401, 'at once');
  other.ws.close();
  c.ws.close();
});
