// SecureTar's hand-written primitives against published vectors and libsodium (the reference
// the original uses through PyNaCl): BLAKE2b, Argon2id, HChaCha20, secretstream.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { blake2b, Blake2b } from '../../actors/supervisor/backups/securetar/blake2b.ts';
import { argon2id, argon2idAsync, secureTarRootKey } from '../../actors/supervisor/backups/securetar/argon2id.ts';
import { hchacha20, SecretStreamState, SecretStreamAuthError, TAG_FINAL, TAG_MESSAGE, TAG_PUSH, TAG_REKEY } from '../../actors/supervisor/backups/securetar/secretstream.ts';
import { sodium, sodiumMissing } from '../helpers/sodium.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

t.test('BLAKE2b-512("abc") is the RFC 7693 Appendix A digest', async (t) => {
  t.equal(
    hex(blake2b(Buffer.from('abc'), 64)),
    'ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1' + '7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923',
  );
});

t.test('BLAKE2b fed in pieces equals the one-shot digest across block edges', async (t) => {
  const data = randomBytes(1000);
  const key = randomBytes(40);
  for (const cut of [0, 1, 127, 128, 129, 256, 999]) {
    const pieces = new Blake2b(48, { key }).update(data.subarray(0, cut)).update(data.subarray(cut)).digest();
    t.equal(hex(pieces), hex(blake2b(data, 48, { key })), `cut at ${cut}`);
  }
});

t.test('BLAKE2b rejects parameters libsodium rejects', async (t) => {
  t.throws(() => blake2b(Buffer.alloc(0), 65), /output length 65/);
  t.throws(() => blake2b(Buffer.alloc(0), 32, { key: Buffer.alloc(65) }), /key of 65 bytes/);
  t.throws(() => blake2b(Buffer.alloc(0), 32, { salt: Buffer.alloc(17) }), /salt of 17 bytes/);
});

t.test('Argon2id matches the RFC 9106 §5.3 test vector', async (t) => {
  const tag = argon2id({
    password: Buffer.alloc(32, 1),
    salt: Buffer.alloc(16, 2),
    secret: Buffer.alloc(8, 3),
    associatedData: Buffer.alloc(12, 4),
    iterations: 3,
    memoryKiB: 32,
    parallelism: 4,
    tagLength: 32,
  });
  t.equal(hex(tag), '0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659');
});

t.test('Argon2id computed in turns gives the same tag and lets other work run meanwhile', async (t) => {
  const params = { password: Buffer.from('pw'), salt: Buffer.alloc(16, 9), iterations: 2, memoryKiB: 256 };
  let turns = 0;
  const ticker = setInterval(() => turns++, 0);
  const tag = await argon2idAsync(params);
  clearInterval(ticker);
  t.equal(hex(tag), hex(argon2id(params)));
  t.ok(turns > 0, 'timers fired while the key was being derived');
});

t.test('Argon2id rejects parameters out of range with a message naming them', async (t) => {
  t.throws(() => argon2id({ password: Buffer.alloc(1), salt: Buffer.alloc(4), iterations: 1, memoryKiB: 8 }), /salt of 4 bytes/);
  t.throws(() => argon2id({ password: Buffer.alloc(1), salt: Buffer.alloc(8), iterations: 0, memoryKiB: 8 }), /iterations 0/);
});

t.test('HChaCha20 matches draft-irtf-cfrg-xchacha §2.2.1', async (t) => {
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
  const input = Buffer.from('000000090000004a0000000031415927', 'hex');
  t.equal(hex(hchacha20(key, input)), '82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc');
});

t.test('secretstream: tampering is refused and the state stays usable', async (t) => {
  const key = randomBytes(32);
  const { state, header } = SecretStreamState.initPush(key);
  const first = state.push(Buffer.from('one'), TAG_MESSAGE);
  const second = state.push(Buffer.from('two'), TAG_FINAL);
  const reader = SecretStreamState.initPull(key, header);
  const bad = Buffer.from(first);
  bad[2] ^= 1;
  t.throws(() => reader.pull(bad), SecretStreamAuthError);
  t.throws(() => reader.pull(second), SecretStreamAuthError, 'out of order');
  t.same(reader.pull(first), { message: Buffer.from('one'), tag: TAG_MESSAGE });
  t.same(reader.pull(second), { message: Buffer.from('two'), tag: TAG_FINAL });
});

t.test('against libsodium', { skip: sodiumMissing }, async (t) => {
  t.test('BLAKE2b with key, salt and personal equals crypto_generichash_blake2b_salt_personal', async (t) => {
    for (const [length, keyLength, outLength] of [[0, 32, 32], [3, 0, 64], [127, 64, 16], [128, 1, 32], [129, 32, 32], [300, 17, 64]]) {
      const message = randomBytes(length);
      const key = randomBytes(keyLength);
      const salt = randomBytes(16);
      const personal = Buffer.from('SecureTarv3');
      const { out } = sodium<{ out: string }>({ op: 'blake2b', message: hex(message), key: hex(key), salt: hex(salt), personal: hex(personal), outlen: outLength });
      t.equal(hex(blake2b(message, outLength, { key, salt, personal })), out, `message ${length}, key ${keyLength}, out ${outLength}`);
    }
  });

  t.test("Argon2id with SecureTar's parameters equals crypto_pwhash (opslimit 8, memlimit 16 MiB)", async (t) => {
    const password = Buffer.from('correct horse battery staple \u00e9');
    const salt = randomBytes(16);
    const { out } = sodium<{ out: string }>({ op: 'pwhash', password: hex(password), salt: hex(salt), opslimit: 8, memlimit: 16 * 1024 * 1024, outlen: 32 });
    t.equal(hex(await secureTarRootKey(password, salt)), out);
  });

  t.test('Argon2id at other sizes equals crypto_pwhash', async (t) => {
    const password = randomBytes(5);
    const salt = randomBytes(16);
    for (const [opslimit, memKiB, outlen] of [[1, 8, 16], [2, 100, 64], [3, 1024, 100]]) {
      const { out } = sodium<{ out: string }>({ op: 'pwhash', password: hex(password), salt: hex(salt), opslimit, memlimit: memKiB * 1024, outlen });
      t.equal(hex(argon2id({ password, salt, iterations: opslimit, memoryKiB: memKiB, tagLength: outlen })), out, `t=${opslimit} m=${memKiB} KiB, ${outlen} bytes`);
    }
  });

  const tags = [TAG_MESSAGE, TAG_PUSH, TAG_MESSAGE, TAG_REKEY, TAG_MESSAGE, TAG_MESSAGE, TAG_FINAL];
  const messages = tags.map((tag, i) => [randomBytes([0, 1, 15, 16, 17, 64, 1000][i]), tag] as const);

  t.test('what libsodium pushes, Hearth pulls, and Hearth pushes the same bytes from the same header', async (t) => {
    const key = randomBytes(32);
    const pushed = sodium<{ header: string; chunks: string[] }>({ op: 'push', key: hex(key), messages: messages.map(([m, tag]) => [hex(m), tag]) });
    const reader = SecretStreamState.initPull(key, Buffer.from(pushed.header, 'hex'));
    const { state } = SecretStreamState.initPush(key, Buffer.from(pushed.header, 'hex'));
    pushed.chunks.forEach((chunk, i) => {
      const { message, tag } = reader.pull(Buffer.from(chunk, 'hex'));
      t.equal(hex(message), hex(messages[i][0]), `message ${i}`);
      t.equal(tag, messages[i][1], `tag ${i}`);
      t.equal(hex(state.push(messages[i][0], messages[i][1])), chunk, `pushed bytes ${i}`);
    });
  });

  t.test('what Hearth pushes, libsodium pulls; a flipped bit fails there too', async (t) => {
    const key = randomBytes(32);
    const { state, header } = SecretStreamState.initPush(key);
    const chunks = messages.map(([m, tag]) => hex(state.push(m, tag)));
    const pulled = sodium<{ messages: ([string, number] | null)[] }>({ op: 'pull', key: hex(key), header: hex(header), chunks });
    t.same(pulled.messages, messages.map(([m, tag]) => [hex(m), tag]));
    const tampered = [...chunks];
    tampered[3] = tampered[3].slice(0, 4) + (tampered[3][4] === '0' ? '1' : '0') + tampered[3].slice(5);
    const refused = sodium<{ messages: ([string, number] | null)[] }>({ op: 'pull', key: hex(key), header: hex(header), chunks: tampered });
    t.equal(refused.messages.length, 4);
    t.equal(refused.messages[3], null);
  });
});
