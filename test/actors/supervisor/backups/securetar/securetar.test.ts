// SecureTar files as the original reads and writes them (supervisor-wire §5.5): header bytes,
// streaming round trips, one Argon2id per backup, files exchanged with libsodium (v3) and
// openssl (v1/v2) both ways, wrong passwords, truncated and tampered files.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import {
  CHUNK_SIZE,
  decrypt,
  decryptToBuffer,
  decryptToFile,
  encrypt,
  encryptedSize,
  encryptToBuffer,
  encryptToFile,
  InvalidPasswordError,
  passwordMatches,
  SecureTarError,
  SecureTarKeys,
  verify,
} from '../../../../../actors/supervisor/backups/securetar/securetar.ts';
import { sodium, sodiumMissing } from '../../../../helpers/sodium.ts';

const PASSWORD = 'hunter2 \u00e9t\u00e9';
// one backup's keys for writing and another's for reading: Argon2id runs once in each
const writer = new SecureTarKeys(PASSWORD);
const reader = new SecureTarKeys(PASSWORD);
const dir = mkdtempSync(join(tmpdir(), 'securetar-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const MiB = CHUNK_SIZE;
const SIZES = [0, 1, MiB, MiB + 1, 5 * MiB];

/** A Node stream of `data` in uneven pieces, as a file or a tar stream would give it. */
function pieces(data: Buffer, size = 300_001): Readable {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += size) parts.push(data.subarray(at, at + size));
  return Readable.from(parts);
}

async function collect(source: AsyncIterable<Buffer>): Promise<{ parts: number; data: Buffer }> {
  const chunks: Buffer[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return { parts: chunks.length, data: Buffer.concat(chunks) };
}

/** Runs `decrypt`, counting what it hands out before it fails. */
async function decryptFailure(file: Buffer, keys: SecureTarKeys | string, options?: { expectArchive?: boolean }) {
  let yielded = 0;
  try {
    for await (const chunk of decrypt(pieces(file, 4096), keys, options)) yielded += chunk.length;
  } catch (error) {
    return { error: error as Error, yielded };
  }
  return { error: undefined, yielded };
}

const sha256Rounds = (input: Buffer) => {
  let d = input;
  for (let i = 0; i < 100; i++) d = createHash('sha256').update(d).digest();
  return d;
};
const aesKey = (password: string) => sha256Rounds(Buffer.from(password, 'utf8')).subarray(0, 16);
const aesIv = (key: Buffer, salt: Buffer) => sha256Rounds(Buffer.concat([key, salt])).subarray(0, 16);

t.test('v2 header: "SecureTar", 2, six zeros, BE plaintext size, eight zeros, 16-byte salt', async (t) => {
  const plain = randomBytes(1000);
  const file = await encryptToBuffer(plain, writer, { version: 2 });
  t.equal(file.subarray(0, 16).toString('hex'), Buffer.concat([Buffer.from('SecureTar'), Buffer.from([2, 0, 0, 0, 0, 0, 0])]).toString('hex'));
  t.equal(file.readBigUInt64BE(16), 1000n);
  t.equal(file.subarray(24, 32).toString('hex'), '00'.repeat(8));
  t.equal(file.length, 48 + 1008, 'header 48 + plaintext padded to the next 16 (1..16 bytes of padding)');
  t.equal(file.length, encryptedSize(1000, 2));
  t.equal((await encryptToBuffer(Buffer.alloc(16), writer, { version: 2 })).length, 48 + 32, 'an aligned plaintext gets a whole padding block');
});

t.test('v3 header: "SecureTar", 3, sizes, shared salts and validation key, per-file salt and secretstream header', async (t) => {
  const a = await encryptToBuffer(randomBytes(10), writer, { version: 3 });
  const b = await encryptToBuffer(randomBytes(10), writer, { version: 3 });
  t.equal(a.subarray(0, 16).toString('hex'), Buffer.concat([Buffer.from('SecureTar'), Buffer.from([3, 0, 0, 0, 0, 0, 0])]).toString('hex'));
  t.equal(a.readBigUInt64BE(16), 10n);
  t.equal(a.subarray(24, 32).toString('hex'), '00'.repeat(8));
  t.equal(a.length, 136 + 10 + 17);
  t.equal(a.subarray(32, 96).toString('hex'), b.subarray(32, 96).toString('hex'), 'root salt, validation salt and validation key are the backup’s');
  t.not(a.subarray(96, 112).toString('hex'), b.subarray(96, 112).toString('hex'), 'derivation salt is per file');
  t.not(a.subarray(112, 136).toString('hex'), b.subarray(112, 136).toString('hex'), 'secretstream header is per file');
  t.equal(writer.rootDerivations, 1, 'Argon2id ran once for the backup, not once per file');
});

for (const version of [2, 3] as const) {
  t.test(`v${version} round trips through streams: empty, 1 byte, 1 MiB, 1 MiB + 1, 5 MiB`, async (t) => {
    for (const size of SIZES) {
      const plain = randomBytes(size);
      const file = join(dir, `round-${version}-${size}`);
      const result = await encryptToFile(pieces(plain), file, writer, { version });
      const stored = readFileSync(file);
      t.equal(result.plaintextSize, size, `${size}: plaintext size`);
      t.equal(stored.length, encryptedSize(size, version), `${size}: ciphertext size`);
      t.equal(stored.readBigUInt64BE(16), BigInt(size), `${size}: the provisional header was rewritten with the size`);
      const back = await collect(decrypt(pieces(stored, 77_777), reader, { expectArchive: false }));
      t.ok(back.data.equals(plain), `${size}: decrypts to the plaintext`);
    }
    if (version === 3) {
      const chunks = (size: number) => Math.max(1, Math.ceil(size / MiB));
      t.same(SIZES.map((s) => encryptedSize(s, 3) - 136 - s), SIZES.map((s) => 17 * chunks(s)), '17 bytes per 1 MiB chunk, one chunk at least');
      t.equal(reader.rootDerivations, 1, 'reading every file of the backup derived the root key once');
    }
  });
}

t.test('inner files encrypted side by side still share one Argon2id run', async (t) => {
  const keys = new SecureTarKeys(PASSWORD);
  const [a, b] = await Promise.all([encryptToBuffer(randomBytes(5), keys, { version: 3 }), encryptToBuffer(randomBytes(5), keys, { version: 3 })]);
  t.equal(keys.rootDerivations, 1);
  t.equal(a.subarray(32, 96).toString('hex'), b.subarray(32, 96).toString('hex'));
  t.equal((await decryptToBuffer(b, keys, { expectArchive: false })).length, 5, 'and reads them back without deriving again');
  t.equal(keys.rootDerivations, 1);
});

t.test('a known plaintext size the source does not match is refused', async (t) => {
  await t.rejects(collect(encrypt(pieces(randomBytes(11)), writer, { version: 3, plaintextSize: 10 })), { code: 'size_mismatch', message: /11 bytes, not the 10/ });
  await t.rejects(collect(encrypt(Buffer.alloc(0), writer, { version: 4 as 3 })), { code: 'unsupported' });
});

t.test('a wrong password is refused before anything is decrypted', async (t) => {
  const archive = gzipSync(randomBytes(5000));
  for (const version of [2, 3] as const) {
    const file = await encryptToBuffer(archive, writer, { version });
    const { error, yielded } = await decryptFailure(file, 'wrong password');
    t.type(error, InvalidPasswordError, `v${version}`);
    t.match(error?.message, /^Invalid password/, `v${version}: the message says so`);
    t.equal(yielded, 0, `v${version}: no plaintext handed out`);
    t.ok((await decryptToBuffer(file, PASSWORD)).equals(archive), `v${version}: the right password reads it`);
  }
  // v1/v2 check the first 512 plaintext bytes for gzip or tar, as the original does
  const tar = Buffer.alloc(1024);
  tar.write('ustar', 257, 'latin1');
  const tarFile = await encryptToBuffer(tar, writer, { version: 2 });
  t.ok((await decryptToBuffer(tarFile, PASSWORD)).equals(tar), 'a plain tar passes the v2 check');
  const { error } = await decryptFailure(await encryptToBuffer(randomBytes(600), writer, { version: 2 }), PASSWORD);
  t.type(error, InvalidPasswordError, 'v2 data that is neither gzip nor tar reads as a wrong password');
});

t.test('decrypting into a file: nothing written for a wrong password, nothing left of a damaged file', async (t) => {
  const archive = gzipSync(randomBytes(3 * MiB));
  for (const version of [2, 3] as const) {
    const file = await encryptToBuffer(archive, writer, { version });
    const out = join(dir, `out-${version}`);
    await t.rejects(decryptToFile(pieces(file), out, 'wrong password'), InvalidPasswordError, `v${version}: wrong password`);
    t.notOk(existsSync(out), `v${version}: no file created`);
    await t.rejects(decryptToFile(pieces(file.subarray(0, file.length - 20)), out, reader), { code: 'truncated' }, `v${version}: truncated`);
    t.notOk(existsSync(out), `v${version}: the partial file was removed`);
    t.same(await decryptToFile(pieces(file), out, reader), { version, plaintextSize: archive.length });
    t.ok(readFileSync(out).equals(archive), `v${version}: the right password writes the archive`);
  }
  const empty = join(dir, 'out-empty');
  await decryptToFile(await encryptToBuffer(Buffer.alloc(0), writer, { version: 3 }), empty, reader);
  t.equal(readFileSync(empty).length, 0, 'an empty plaintext is an empty file');
});

t.test('v3 truncation and tampering are detected', async (t) => {
  const plain = randomBytes(2 * MiB + 100);
  const file = await encryptToBuffer(plain, writer, { version: 3 });
  const chunk = MiB + 17;
  const cases: [string, Buffer, string][] = [
    ['cut inside the header', file.subarray(0, 100), 'truncated'],
    ['cut inside the file id', file.subarray(0, 10), 'truncated'],
    ['cut inside a chunk', file.subarray(0, 136 + chunk + 1000), 'truncated'],
    ['cut at a chunk boundary', file.subarray(0, 136 + 2 * chunk), 'truncated'],
    ['one bit flipped in a chunk', flip(file, 136 + chunk + 5), 'corrupt'],
    ['one bit flipped in the MAC of the last chunk', flip(file, file.length - 1), 'corrupt'],
    ['one bit flipped in the derivation salt', flip(file, 100), 'corrupt'],
    ['data after the final chunk', Buffer.concat([file, Buffer.from([0])]), 'corrupt'],
    ['non-zero reserved file-id byte', flip(file, 12), 'corrupt'],
    ['unknown version', withByte(file, 9, 4), 'unsupported'],
  ];
  // the last chunk dropped and the size lowered to match: only the missing FINAL tag tells
  const shortened = Buffer.from(file.subarray(0, 136 + 2 * chunk));
  shortened.writeBigUInt64BE(BigInt(2 * MiB), 16);
  cases.push(['last chunk dropped, size rewritten', shortened, 'truncated']);
  // a size that ends the data earlier: the FINAL tag sits elsewhere or authentication fails
  const shrunk = Buffer.from(file);
  shrunk.writeBigUInt64BE(BigInt(MiB), 16);
  cases.push(['size lowered', shrunk, 'truncated']);
  for (const [name, bytes, code] of cases) {
    const { error, yielded } = await decryptFailure(bytes, reader);
    t.type(error, SecureTarError, name);
    t.equal((error as SecureTarError | undefined)?.code, code, `${name}: ${error?.message}`);
    t.ok(yielded <= plain.length, `${name}: never more than the plaintext`);
  }
  const early = await decryptFailure(flip(file, 136 + 5), reader);
  t.equal(early.yielded, 0, 'a bad first chunk yields nothing');
});

t.test('the quick password check reads the start, the full check reads everything', async (t) => {
  const plain = randomBytes(2 * MiB + 5);
  const file = await encryptToBuffer(plain, writer, { version: 3 });
  const chunk = MiB + 17;
  const truncated = file.subarray(0, file.length - 1);
  const noFinal = Buffer.from(file.subarray(0, 136 + 2 * chunk));
  noFinal.writeBigUInt64BE(BigInt(2 * MiB), 16);
  const earlyFinal = Buffer.concat([file.subarray(0, 136), (await encryptToBuffer(plain.subarray(0, 10), writer, { version: 3 })).subarray(136)]);
  const headerOnly = file.subarray(0, 136);
  const cases: [string, Buffer, boolean, boolean][] = [
    ['intact', file, true, true],
    ['cut by one byte', truncated, true, false],
    ['last chunk missing', noFinal, true, false],
    ['a chunk from another file', earlyFinal, false, false],
    ['header only', headerOnly, false, false],
  ];
  const wrong = new SecureTarKeys('wrong password');
  for (const [name, bytes, quick, full] of cases) {
    t.equal(await passwordMatches(pieces(bytes), reader, { expectArchive: false }), quick, `${name}: quick check`);
    t.equal(await verify(pieces(bytes), reader, { expectArchive: false }), full, `${name}: full check`);
    t.equal(await passwordMatches(pieces(bytes), wrong, { expectArchive: false }), false, `${name}: wrong password`);
  }
  const v2 = await encryptToBuffer(gzipSync(plain), writer, { version: 2 });
  t.equal(await passwordMatches(v2, PASSWORD), true, 'v2, right password');
  t.equal(await passwordMatches(v2, 'wrong'), false, 'v2, wrong password');
  t.equal(await verify(v2.subarray(0, v2.length - 3), PASSWORD), false, 'v2 cut short');
});

t.test('v1/v2 truncation and damage give clear errors', async (t) => {
  const archive = gzipSync(randomBytes(3000));
  const file = await encryptToBuffer(archive, writer, { version: 2 });
  const cut = await decryptFailure(file.subarray(0, file.length - 5), PASSWORD);
  t.equal((cut.error as SecureTarError).code, 'truncated');
  t.match(cut.error?.message, /not a whole number of AES blocks/);
  const empty = await decryptFailure(file.subarray(0, 48), PASSWORD);
  t.equal((empty.error as SecureTarError).code, 'truncated');
  const tiny = await decryptFailure(file.subarray(0, 9), PASSWORD);
  t.equal((tiny.error as SecureTarError).code, 'truncated');
  t.match(tiny.error?.message, /shorter than its 16-byte header/);
});

t.test('v3 files exchanged with libsodium', { skip: sodiumMissing }, async (t) => {
  const root = await writer.rootForWriting();
  for (const size of [0, 1, MiB, MiB + 1, 3 * MiB + 5]) {
    const plain = randomBytes(size);
    const ours = join(dir, `to-sodium-${size}`);
    await encryptToFile(pieces(plain), ours, writer, { version: 3 });
    const out = join(dir, `from-hearth-${size}.out`);
    t.same(sodium({ op: 'securetar_decrypt_v3', password: PASSWORD, in: ours, out }), { ok: true }, `${size}: libsodium reads Hearth's file`);
    t.ok(readFileSync(out).equals(plain), `${size}: and gets the plaintext`);

    const input = join(dir, `plain-${size}`);
    const theirs = join(dir, `from-sodium-${size}`);
    writeFileSync(input, plain);
    // the backup's salts, as the original's inner files share them; the empty file gets fresh ones, a root Hearth derives itself
    sodium({ op: 'securetar_encrypt_v3', password: PASSWORD, in: input, out: theirs, root_salt: size === 0 ? randomBytes(16).toString('hex') : root.rootSalt.toString('hex'), validation_salt: root.validationSalt.toString('hex') });
    const back = await collect(decrypt(pieces(readFileSync(theirs)), reader, { expectArchive: false }));
    t.ok(back.data.equals(plain), `${size}: Hearth reads libsodium's file`);
  }
  const wrong = join(dir, 'to-sodium-1');
  t.same(sodium({ op: 'securetar_decrypt_v3', password: 'wrong', in: wrong, out: join(dir, 'x') }), { error: 'invalid password' }, 'libsodium refuses a wrong password on our file');
});

t.test('v2 files exchanged with openssl (AES-128-CBC, key and IV from SHA-256 × 100)', { skip: opensslMissing() }, async (t) => {
  const archive = gzipSync(randomBytes(100_000));
  const file = await encryptToBuffer(archive, writer, { version: 2 });
  const key = aesKey(PASSWORD);
  const salt = file.subarray(32, 48);
  const plain = openssl(['-d'], key, aesIv(key, salt), file.subarray(48));
  t.ok(plain.equals(archive), "openssl decrypts Hearth's v2 body");

  const theirSalt = randomBytes(16);
  const body = openssl([], key, aesIv(key, theirSalt), archive);
  const header = Buffer.alloc(32);
  header.write('SecureTar', 0, 'ascii');
  header[9] = 2;
  header.writeBigUInt64BE(BigInt(archive.length), 16);
  const v2 = Buffer.concat([header, theirSalt, body]);
  t.ok((await decryptToBuffer(pieces(v2, 1000), PASSWORD)).equals(archive), "Hearth decrypts openssl's v2 file");
  // v1 (legacy): no magic, the salt first
  const v1 = Buffer.concat([theirSalt, body]);
  const result = await (async () => {
    const gen = decrypt(v1, PASSWORD);
    const parts: Buffer[] = [];
    let step = await gen.next();
    for (; !step.done; step = await gen.next()) parts.push(step.value);
    return { data: Buffer.concat(parts), info: step.value };
  })();
  t.ok(result.data.equals(archive), 'Hearth decrypts a legacy v1 file');
  t.equal(result.info.version, 1);
  const { error } = await decryptFailure(v1, 'wrong');
  t.type(error, InvalidPasswordError, 'v1 with a wrong password');
});

function flip(file: Buffer, at: number): Buffer {
  const copy = Buffer.from(file);
  copy[at] ^= 0x01;
  return copy;
}

function withByte(file: Buffer, at: number, value: number): Buffer {
  const copy = Buffer.from(file);
  copy[at] = value;
  return copy;
}

function opensslMissing(): string | false {
  const run = spawnSync('openssl', ['version']);
  return run.status === 0 ? false : 'openssl is not installed; skipping the openssl cross-check';
}

function openssl(args: string[], key: Buffer, iv: Buffer, input: Buffer): Buffer {
  const run = spawnSync('openssl', ['enc', ...args, '-aes-128-cbc', '-K', key.toString('hex'), '-iv', iv.toString('hex')], { input, maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`openssl failed: ${run.stderr.toString()}`);
  return run.stdout;
}
