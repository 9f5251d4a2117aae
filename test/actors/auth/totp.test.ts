import t from 'tap';
import { randomBytes } from 'node:crypto';
import {
  base32Decode,
  base32Encode,
  hotpCode,
  provisioningUri,
  randomBase32Secret,
  totpCode,
  verifyTotp,
} from '../../../actors/auth/totp.ts';

// RFC 4226 / RFC 6238 (SHA-1) shared secret: the ASCII bytes "12345678901234567890".
const RFC_KEY = Buffer.from('12345678901234567890', 'ascii');
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

t.test('RFC 6238 Appendix B SHA-1 vectors', async (t) => {
  t.equal(base32Encode(RFC_KEY), RFC_SECRET);
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, code] of vectors) {
    t.equal(totpCode(RFC_SECRET, seconds * 1000, { digits: 8 }), code, `T=${seconds}`);
    // the last 6 digits are the 6-digit code: truncation is a plain modulus
    t.equal(totpCode(RFC_SECRET, seconds * 1000), code.slice(2), `T=${seconds}, 6 digits`);
    t.equal(totpCode(RFC_SECRET, seconds * 1000 + 999, { digits: 8 }), code, `T=${seconds} plus a fraction of a second`);
  }
});

t.test('RFC 4226 Appendix D HOTP values', async (t) => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, counter) => t.equal(hotpCode(RFC_KEY, counter), code, `counter ${counter}`));
  t.throws(() => hotpCode(RFC_KEY, -1), RangeError);
  t.throws(() => hotpCode(RFC_KEY, 0, 11), RangeError);
});

t.test('step size and zero padding', async (t) => {
  // 30-second steps: the code changes exactly at a multiple of 30 s
  t.equal(totpCode(RFC_SECRET, 30_000), totpCode(RFC_SECRET, 59_999));
  t.not(totpCode(RFC_SECRET, 59_999), totpCode(RFC_SECRET, 60_000));
  t.equal(totpCode(RFC_SECRET, 60_000, { stepSeconds: 60 }), hotpCode(RFC_KEY, 1));
  t.equal(totpCode(RFC_SECRET, 1111111109_000, { digits: 8 }).length, 8, 'leading zero kept');
  t.throws(() => totpCode(RFC_SECRET, Number.NaN), RangeError);
});

t.test('base32', async (t) => {
  for (let n = 0; n <= 41; n++) {
    const data = randomBytes(n);
    const text = base32Encode(data);
    t.notOk(text.includes('='), 'no padding');
    t.same(base32Decode(text), data, `${n} bytes round-trip`);
    t.same(base32Decode(text.toLowerCase()), data, `${n} bytes in lower case`);
  }
  // RFC 4648 section 10 vectors, with and without padding
  const rfc: [string, string][] = [
    ['', ''],
    ['f', 'MY======'],
    ['fo', 'MZXQ===='],
    ['foo', 'MZXW6==='],
    ['foob', 'MZXW6YQ='],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI======'],
  ];
  for (const [plain, encoded] of rfc) {
    t.equal(base32Encode(Buffer.from(plain)), encoded.replace(/=/g, ''), `encode "${plain}"`);
    t.equal(base32Decode(encoded).toString(), plain, `decode ${encoded}`);
    t.equal(base32Decode(encoded.replace(/=/g, '')).toString(), plain, `decode ${encoded} unpadded`);
  }
  t.same(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq'), RFC_KEY, 'spaces and lower case');
  t.same(base32Decode(' GEZDGNBV\tGY3TQOJQ\nGEZDGNBVGY3TQOJQ '), RFC_KEY, 'other whitespace');

  for (const bad of ['GEZDGNB1', 'GEZDGNB8', 'GEZDGNB0', 'GEZD-GNB', 'GEZDGNB!', 'GEZDGNBé']) {
    t.throws(() => base32Decode(bad), /invalid character/, `refuses ${bad}`);
  }
  t.throws(() => base32Decode('GEZDGNB1'), { message: /"1" at position 7/ });
  for (const impossible of ['G', 'GEZ', 'GEZDGN']) t.throws(() => base32Decode(impossible), /impossible length/, `refuses length ${impossible.length}`);
});

t.test('random secrets', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const secret = randomBase32Secret();
    t.equal(secret.length, 32, 'same length as pyotp.random_base32()');
    t.match(secret, /^[A-Z2-7]{32}$/);
    t.equal(base32Decode(secret).length, 20, '160 bits');
    seen.add(secret);
  }
  t.equal(seen.size, 50, 'no repeats');
  t.match(randomBase32Secret(10), /^[A-Z2-7]{16}$/, 'pyotp 2.3 length for 10 bytes');
  t.match(randomBase32Secret(1), /^[A-Z2-7]{2}$/);
  t.throws(() => randomBase32Secret(0), RangeError);
});

t.test('verification window', async (t) => {
  const secret = randomBase32Secret();
  const now = 1_700_000_015_000; // mid-step
  const at = (steps: number) => totpCode(secret, now + steps * 30_000);
  t.ok(verifyTotp(secret, at(0), now), 'current step');
  t.ok(verifyTotp(secret, at(-1), now), 'previous step');
  t.ok(verifyTotp(secret, at(1), now), 'next step');
  // a code for t±2 could coincide with one in the window by chance (1 in 10^6 per step); skip that case
  for (const steps of [-2, 2]) {
    const code = at(steps);
    const collides = [-1, 0, 1].some((s) => at(s) === code);
    if (!collides) t.notOk(verifyTotp(secret, code, now), `${steps} steps away`);
  }
  t.ok(verifyTotp(secret, at(2), now, 2), 'wider window');
  if (at(1) !== at(0)) t.notOk(verifyTotp(secret, at(1), now, 0), 'window 0 takes only the current step');
  t.ok(verifyTotp(RFC_SECRET, '287082', 59_000), 'RFC vector, 6 digits');
  t.ok(verifyTotp(RFC_SECRET, '287082', 89_999), 'accepted one step later');
  t.notOk(verifyTotp(RFC_SECRET, '287082', 90_000), 'refused two steps later');
  t.ok(verifyTotp(RFC_SECRET, hotpCode(RFC_KEY, 0), 0), 'near the epoch, no negative step is needed');
  t.ok(verifyTotp(secret.toLowerCase(), at(0), now), 'secret case does not matter');
});

t.test('malformed codes are refused without throwing', async (t) => {
  const secret = randomBase32Secret();
  const now = Date.now();
  const good = totpCode(secret, now);
  const malformed = ['', '12345', '1234567', '12a456', ' 123456', '123456 ', '１２３４５６', '12345\n', '-12345', '+12345', '1e5000', `${good}0`, good.slice(1)];
  for (const code of malformed) {
    t.doesNotThrow(() => verifyTotp(secret, code, now), JSON.stringify(code));
    t.equal(verifyTotp(secret, code, now), false, JSON.stringify(code));
  }
  t.equal(verifyTotp(secret, ` ${good}`, now), false, 'good code with a leading space');
  t.equal(verifyTotp(secret, undefined as unknown as string, now), false, 'not a string');
  t.equal(verifyTotp(secret, 123456 as unknown as string, now), false, 'a number');
});

t.test('provisioning URI as pyotp builds it', async (t) => {
  t.equal(
    provisioningUri('JBSWY3DPEHPK3PXP', 'Paulus Schoutsen@example.com'),
    'otpauth://totp/Home%20Assistant:Paulus%20Schoutsen%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Home%20Assistant',
  );
  // the label keeps "/" (quote's default safe), the query encodes it; "+" is %2B, never a space
  t.equal(
    provisioningUri('JBSWY3DPEHPK3PXP', 'x', 'My/Issuer+1 & co'),
    'otpauth://totp/My/Issuer%2B1%20%26%20co:x?secret=JBSWY3DPEHPK3PXP&issuer=My%2FIssuer%2B1%20%26%20co',
  );
  t.equal(
    provisioningUri('JBSWY3DPEHPK3PXP', "a/b+c~d!e*(f)'g:h?&=Ünï 😀"),
    'otpauth://totp/Home%20Assistant:a/b%2Bc~d%21e%2A%28f%29%27g%3Ah%3F%26%3D%C3%9Cn%C3%AF%20%F0%9F%98%80?secret=JBSWY3DPEHPK3PXP&issuer=Home%20Assistant',
  );
  const secret = randomBase32Secret();
  const uri = new URL(provisioningUri(secret, 'Anne'));
  t.equal(uri.protocol, 'otpauth:');
  t.equal(uri.searchParams.get('secret'), secret);
  t.equal(uri.searchParams.get('issuer'), 'Home Assistant');
});
