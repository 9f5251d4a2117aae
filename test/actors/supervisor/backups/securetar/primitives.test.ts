// SecureTar's thin layer over libsodium (sodium.ts, keys.ts) against published vectors and
// against Debian's native libsodium, the library the original reaches through PyNaCl: the
// arguments, paddings and parameters reach libsodium the way the original passes them.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { ABYTES, argon2id, blake2bSaltPersonal, loadSodium, SecretStream, SecretStreamAuthError, TAG_FINAL, TAG_MESSAGE } from '../../../../../actors/supervisor/backups/securetar/sodium.ts';
import { ROOT_KEY_COST, v3RootKey, v3SubKey } from '../../../../../actors/supervisor/backups/securetar/keys.ts';
import { sodium, sodiumMissing } from '../../../../helpers/sodium.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const lib = await loadSodium();

t.test('loadSodium instantiates libsodium once', async (t) => {
  t.equal(loadSodium(), loadSodium(), 'one promise for every caller');
  t.equal(await loadSodium(), lib);
});

t.test("the secretstream constants SecureTar sizes files with are libsodium's", async (t) => {
  t.equal(ABYTES, lib.crypto_secretstream_xchacha20poly1305_ABYTES);
  t.equal(TAG_MESSAGE, lib.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE);
  t.equal(TAG_FINAL, lib.crypto_secretstream_xchacha20poly1305_TAG_FINAL);
});

t.test('BLAKE2b with zero salt and personal is plain BLAKE2b: the reference KAT digests of the empty message', async (t) => {
  // BLAKE2 reference blake2b-kat.txt, first entries: unkeyed, and keyed with bytes 00..3f
  t.equal(
    hex(blake2bSaltPersonal(lib, 64, null, new Uint8Array(0), new Uint8Array(0))),
    '786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419' + 'd25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce',
  );
  t.equal(
    hex(blake2bSaltPersonal(lib, 64, Buffer.from(Array.from({ length: 64 }, (_, i) => i)), new Uint8Array(0), new Uint8Array(0))),
    '10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786' + 'b5e996e8f0f4eb981fc214b005f42d2ff4233499391653df7aefcbc13fc51568',
  );
});

t.test('BLAKE2b refuses a salt or personal longer than 16 bytes and a key libsodium refuses', async (t) => {
  t.throws(() => blake2bSaltPersonal(lib, 32, randomBytes(32), Buffer.alloc(17), Buffer.alloc(0)), /salt of 17 bytes/);
  t.throws(() => blake2bSaltPersonal(lib, 32, randomBytes(32), Buffer.alloc(16), Buffer.alloc(17)), /personal of 17 bytes/);
  t.throws(() => blake2bSaltPersonal(lib, 32, Buffer.alloc(65), Buffer.alloc(16), Buffer.alloc(16)));
  t.throws(() => blake2bSaltPersonal(lib, 65, null, Buffer.alloc(16), Buffer.alloc(16)));
});

t.test("Argon2id matches libsodium's published crypto_pwhash answers (test/default/pwhash_argon2id)", async (t) => {
  // RFC 9106's §5.3 vector needs a secret, associated data and 4 lanes, which crypto_pwhash does not take
  const vectors = [
    {
      password: 'a347ae92bce9f80f6f595a4480fc9c2fe7e7d7148d371e9487d75f5c23008ffae065577a928febd9b1973a5a95073acdbeb6a030cfc0d79caa2dc5cd011cef02c08da232d76d52dfbca38ca8dcbd665b17d1665f7cf5fe59772ec909733b24de97d6f58d220b20c60d7c07ec1fd93c52c31020300c6c1facd77937a597c7a6',
      passwordLength: 127,
      salt: '5541fbc995d5c197ba290346d2c559de',
      cost: { opslimit: 5, memlimit: 7256678 },
      out:
        '18acec5d6507739f203d1f5d9f1d862f7c2cdac4f19d2bdff64487e60d969e3ced615337b9eec6ac4461c6ca07f0939741e57c24d0005c7ea171a0ee1e7348249d135b38f222e4dad7b9a033ed83f5ca27277393e316582033c74affe2566a2bea47f91f0fd9fe49ece7e1f79f3ad6e9b23e0277c8ecc4b313225748dd2a80f5679534a0700e246a79a49b3f74eb89ec6205fe1eeb941c73b1fcf1',
    },
    {
      password: 'b540beb016a5366524d4605156493f9874514a5aa58818cd0c6dfffaa9e90205f17b',
      passwordLength: 34,
      salt: '44071f6d181561670bda728d43fb79b4',
      cost: { opslimit: 1, memlimit: 1631659 },
      out:
        '7fb72409b0987f8190c3729710e98c3f80c5a8727d425fdcde7f3644d467fe973f5b5fee683bd3fce812cb9ae5e9921a2d06c2f1905e4e839692f2b934b682f11a2fe2b90482ea5dd234863516dba6f52dc0702d324ec77d860c2e181f84472bd7104fedce071ffa93c5309494ad51623d214447a7b2b1462dc7d5d55a1f6fd5b54ce024118d86f0c6489d16545aaa87b6689dad9f2fb47fda9894f8e12b87d978b483ccd4cc5fd9595cdc7a818452f915ce2f7df95ec12b1c72e3788d473441d884f9748eb14703c21b45d82fd667b85f5b2d98c13303b3fe76285531a826b6fc0fe8e3dddecf',
    },
  ];
  for (const v of vectors) {
    const password = Buffer.from(v.password, 'hex').subarray(0, v.passwordLength);
    t.equal(hex(argon2id(lib, v.out.length / 2, password, Buffer.from(v.salt, 'hex'), v.cost)), v.out, `t=${v.cost.opslimit}, ${v.cost.memlimit} bytes`);
  }
});

t.test('Argon2id refuses what libsodium refuses, naming it', async (t) => {
  t.throws(() => argon2id(lib, 32, Buffer.alloc(1), Buffer.alloc(4), { opslimit: 1, memlimit: 8192 }), /invalid salt length/);
  t.throws(() => argon2id(lib, 32, Buffer.alloc(1), Buffer.alloc(16), { opslimit: 0, memlimit: 8192 }), /invalid usage/);
});

t.test('secretstream: tampering and reordering are refused and leave the state usable', async (t) => {
  const key = randomBytes(32);
  const { stream, header } = SecretStream.initPush(lib, key);
  t.equal(header.length, 24);
  const first = stream.push(Buffer.from('one'), TAG_MESSAGE);
  const second = stream.push(Buffer.from('two'), TAG_FINAL);
  t.equal(first.length, 3 + ABYTES);
  const reader = SecretStream.initPull(lib, key, header);
  const bad = Buffer.from(first);
  bad[2] ^= 1;
  t.throws(() => reader.pull(bad), SecretStreamAuthError);
  t.throws(() => reader.pull(second), SecretStreamAuthError, 'out of order');
  t.throws(() => reader.pull(first.subarray(0, ABYTES - 1)), SecretStreamAuthError, 'shorter than a tag and a MAC');
  t.same(reader.pull(first), { message: Buffer.from('one'), tag: TAG_MESSAGE });
  t.same(reader.pull(second), { message: Buffer.from('two'), tag: TAG_FINAL });
  t.throws(() => SecretStream.initPull(lib, randomBytes(32), header).pull(first), SecretStreamAuthError, 'another key');
});

t.test('against native libsodium', { skip: sodiumMissing }, async (t) => {
  t.test('BLAKE2b with key, salt and personal equals crypto_generichash_blake2b_salt_personal', async (t) => {
    for (const [keyLength, saltLength, personalLength, outLength] of [[32, 16, 11, 32], [0, 16, 16, 64], [64, 3, 0, 16], [1, 0, 5, 32], [17, 16, 11, 64]]) {
      const key = randomBytes(keyLength);
      const salt = randomBytes(saltLength);
      const personal = randomBytes(personalLength);
      const { out } = sodium<{ out: string }>({ op: 'blake2b', message: '', key: hex(key), salt: hex(salt), personal: hex(personal), outlen: outLength });
      t.equal(hex(blake2bSaltPersonal(lib, outLength, keyLength ? key : null, salt, personal)), out, `key ${keyLength}, salt ${saltLength}, personal ${personalLength}, out ${outLength}`);
    }
  });

  t.test('the v3 sub key equals the original\'s: BLAKE2b-256, personal "SecureTarv3"', async (t) => {
    const rootKey = randomBytes(32);
    const salt = randomBytes(16);
    const { out } = sodium<{ out: string }>({ op: 'blake2b', message: '', key: hex(rootKey), salt: hex(salt), personal: hex(Buffer.from('SecureTarv3')), outlen: 32 });
    t.equal(hex(v3SubKey(lib, rootKey, salt)), out);
  });

  t.test("the v3 root key equals crypto_pwhash with SecureTar's parameters (Argon2id13, opslimit 8, memlimit 16 MiB)", async (t) => {
    t.same(ROOT_KEY_COST, { opslimit: 8, memlimit: 16 * 1024 * 1024 });
    const password = 'correct horse battery staple \u00e9';
    const salt = randomBytes(16);
    const { out } = sodium<{ out: string }>({ op: 'pwhash', password: hex(Buffer.from(password)), salt: hex(salt), opslimit: 8, memlimit: 16 * 1024 * 1024, outlen: 32 });
    t.equal(hex(v3RootKey(lib, password, salt)), out);
  });

  t.test('Argon2id at other costs and lengths equals crypto_pwhash', async (t) => {
    const password = randomBytes(5);
    const salt = randomBytes(16);
    for (const [opslimit, memKiB, outlen] of [[1, 8, 16], [2, 100, 64], [3, 1024, 100]]) {
      const { out } = sodium<{ out: string }>({ op: 'pwhash', password: hex(password), salt: hex(salt), opslimit, memlimit: memKiB * 1024, outlen });
      t.equal(hex(argon2id(lib, outlen, password, salt, { opslimit, memlimit: memKiB * 1024 })), out, `t=${opslimit} m=${memKiB} KiB, ${outlen} bytes`);
    }
  });

  const tags = [TAG_MESSAGE, lib.crypto_secretstream_xchacha20poly1305_TAG_PUSH, TAG_MESSAGE, lib.crypto_secretstream_xchacha20poly1305_TAG_REKEY, TAG_MESSAGE, TAG_MESSAGE, TAG_FINAL];
  const messages = tags.map((tag, i) => [randomBytes([0, 1, 15, 16, 17, 64, 1000][i]), tag] as const);

  t.test('what native libsodium pushes, Hearth pulls, through rekeys and every tag', async (t) => {
    const key = randomBytes(32);
    const pushed = sodium<{ header: string; chunks: string[] }>({ op: 'push', key: hex(key), messages: messages.map(([m, tag]) => [hex(m), tag]) });
    const reader = SecretStream.initPull(lib, key, Buffer.from(pushed.header, 'hex'));
    pushed.chunks.forEach((chunk, i) => {
      const { message, tag } = reader.pull(Buffer.from(chunk, 'hex'));
      t.equal(hex(message), hex(messages[i][0]), `message ${i}`);
      t.equal(tag, messages[i][1], `tag ${i}`);
    });
  });

  t.test('what Hearth pushes, native libsodium pulls; a flipped bit fails there too', async (t) => {
    const key = randomBytes(32);
    const { stream, header } = SecretStream.initPush(lib, key);
    const chunks = messages.map(([m, tag]) => hex(stream.push(m, tag)));
    const pulled = sodium<{ messages: ([string, number] | null)[] }>({ op: 'pull', key: hex(key), header: hex(header), chunks });
    t.same(pulled.messages, messages.map(([m, tag]) => [hex(m), tag]));
    const tampered = [...chunks];
    tampered[3] = tampered[3].slice(0, 4) + (tampered[3][4] === '0' ? '1' : '0') + tampered[3].slice(5);
    const refused = sodium<{ messages: ([string, number] | null)[] }>({ op: 'pull', key: hex(key), header: hex(header), chunks: tampered });
    t.equal(refused.messages.length, 4);
    t.equal(refused.messages[3], null);
  });
});
