// Fuzzes the companion-app webhook of a real Hearth: malformed bodies, mangled envelopes, wrong
// keys, truncated and altered ciphertexts, wrong types, huge and odd data. Each answer must be
// the original's for that input, nothing may be half-applied (the log does not move when the
// input is refused; a registration is either untouched or fully updated), and the server keeps
// serving. Seeded: HEARTH_FUZZ_SEED=<seed> replays a run, HEARTH_FUZZ_CASE=<case id> one case.
import t from 'tap';
import nacl from 'tweetnacl';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { caseRng, fuzzSeed, type Rng } from '../../fuzz/rng.ts';
import { budget, selected } from '../../fuzz/report.ts';
import { genValue, malformedJson, mutateJson, preview, type Body } from '../../fuzz/generators.ts';
import { hexKey, legacyKey, openWith, register, sealFor, sealText } from './app.ts';

const FILE = 'test/actors/mobile/webhook-fuzz.test.ts';

/** Valid envelopes' data by action (none of them changes what later cases rely on). */
const VALID: Record<string, unknown> = {
  get_config: {},
  get_zones: {},
  render_template: { a: { template: '{{ 1 + 1 }}' }, b: { template: 'x {{ v }}', variables: { v: 2 } } },
  fire_event: { event_type: 'fuzzed', event_data: { n: 1 } },
  call_service: { domain: 'input_boolean', service: 'toggle', service_data: { entity_id: 'input_boolean.x' } },
  update_registration: { app_version: '9.9', device_name: 'Fuzz Phone', manufacturer: 'Fuzz', model: 'F1', os_version: '1', app_data: {} },
  scan_tag: { tag_id: 'tag-1' },
  stream_camera: { camera_entity_id: 'camera.none' },
  conversation_process: { text: 'hello' },
  no_such_action: {},
};
const TYPES = Object.keys(VALID);

/** The decoded JSON of a body as a strict reader sees it, or undefined when it is not JSON. */
function parsed(body: Body): { value: unknown } | undefined {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(typeof body === 'string' ? Buffer.from(body) : body);
    if (text.length === 0) return undefined;
    let depth = 0;
    let max = 0;
    for (const c of text) {
      if (c === '[' || c === '{') max = Math.max(max, ++depth);
      else if (c === ']' || c === '}') depth--;
    }
    // the gateway refuses JSON nested deeper than 512 levels as not JSON (strings with brackets only raise the count)
    if (max > 512) return undefined;
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

t.test('webhook fuzz', async (t) => {
  const h = await startTestHearth(t, { config: 'input_boolean:\n  x:\n' });
  const call = api(h.base, (await onboard(h.base)).access_token);
  const plain = await register(call);
  const sealed = await register(call, { supports_encryption: true, device_id: 'SEALED', device_name: 'Sealed' });
  const gone = await register(call, { device_id: 'GONE', device_name: 'Gone' });
  const entryId = h.hearth.mobile.registrations.entries().find((e) => e.registration.webhook_id === gone.webhook_id)!.entry_id;
  t.equal((await call('DELETE', `/api/config/config_entries/entry/${entryId}`)).status, 200);
  const secret = sealed.secret!;
  const mobile = h.hearth.mobile.registrations;

  const post = async (webhookId: string, body: Body) => {
    const res = await fetch(`${h.base}/api/webhook/${webhookId}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : new Uint8Array(body) });
    const text = await res.text();
    return { status: res.status, text };
  };

  const seed = fuzzSeed();
  t.comment(`fuzz seed ${seed} (replay: HEARTH_FUZZ_SEED=${seed} npm test -- ${FILE})`);
  const { cases, deadline } = budget(1500, 30);
  let ran = 0;

  type Kind = 'malformed' | 'mutated' | 'ciphertext' | 'plaintext-to-sealed' | 'odd-target';
  const kinds: ReadonlyArray<readonly [number, Kind]> = [[3, 'malformed'], [5, 'mutated'], [4, 'ciphertext'], [1, 'plaintext-to-sealed'], [1, 'odd-target']];

  for (let i = 0; i < cases && Date.now() < deadline; i++) {
    const id = `case-${i}`;
    if (!selected(id)) continue;
    const rng: Rng = caseRng(seed, id);
    const kind = rng.weighted(kinds);
    const type = rng.pick(TYPES);
    const envelope = { type, data: VALID[type] };
    // an earlier case's valid update_registration may still be re-syncing the notify services
    await h.hearth.mobilePush.settled();
    const beforeSeq = h.hearth.log.lastSeq();
    const before = { plain: mobile.get(plain.webhook_id)!, sealed: mobile.get(sealed.webhook_id)! };
    let target = plain.webhook_id;
    let body: Body;
    let what: string;
    /** the exact answer the original gives, when this case determines it */
    let expect: { status: number; text: string } | undefined;
    /** true when the input must change nothing */
    let inert = false;

    if (kind === 'malformed') {
      target = rng.chance(0.5) ? plain.webhook_id : sealed.webhook_id;
      const g = malformedJson(rng, JSON.stringify(envelope));
      body = g.value;
      what = g.what;
      if (!parsed(body)) {
        expect = { status: 400, text: '{}' };
        inert = true;
      }
    } else if (kind === 'mutated') {
      const g = mutateJson(rng, envelope, { big: rng.chance(0.05) });
      body = g.value;
      what = g.what;
      if (!parsed(body) && Buffer.byteLength(body) <= 1024 * 1024) {
        // nested past the gateway's limit: refused as not JSON
        expect = { status: 400, text: '{}' };
        inert = true;
      }
    } else if (kind === 'ciphertext') {
      target = sealed.webhook_id;
      const good = sealFor(VALID[type], legacyKey(secret));
      const raw = Buffer.from(good, 'base64');
      const variant = rng.pick(['wrong key', 'truncated', 'bit flipped', 'not base64', 'empty', 'not JSON inside', 'short', 'url-safe alphabet', 'number']);
      let data: unknown;
      if (variant === 'wrong key') data = sealFor(VALID[type], nacl.randomBytes(32));
      else if (variant === 'truncated') data = raw.subarray(0, rng.int(raw.length)).toString('base64');
      else if (variant === 'bit flipped') {
        const copy = Buffer.from(raw);
        copy[rng.int(copy.length)] ^= 1 << rng.int(8);
        data = copy.toString('base64');
      } else if (variant === 'not base64') data = '%%%' + good.slice(3);
      else if (variant === 'empty') data = '';
      else if (variant === 'not JSON inside') data = sealText(rng.pick(['{', 'nope', '\u0000', '{"a":}']), legacyKey(secret));
      else if (variant === 'short') data = Buffer.from(nacl.randomBytes(rng.int(40))).toString('base64');
      else if (variant === 'url-safe alphabet') data = sealFor(VALID[type], nacl.randomBytes(32)).replace(/\+/g, '-').replace(/\//g, '_');
      else data = rng.int(1000);
      body = JSON.stringify({ type, encrypted: true, encrypted_data: data });
      what = `ciphertext ${variant}`;
      // a number is not a string: the envelope schema refuses it; every other variant fails to open
      expect = { status: 200, text: '{}' };
      inert = true;
    } else if (kind === 'plaintext-to-sealed') {
      target = sealed.webhook_id;
      body = JSON.stringify(rng.chance(0.5) ? envelope : { type });
      what = 'plaintext to an encrypting registration';
      expect = { status: 400, text: JSON.stringify({ success: false, error: { code: 'encryption_required', message: 'Encryption required' } }) };
      inert = true;
    } else {
      const g = genValue(rng);
      target = rng.pick([gone.webhook_id, 'f'.repeat(64), 'x', encodeURIComponent('../../api/states')]);
      body = rng.chance(0.5) ? JSON.stringify(envelope) : g.value;
      what = `a webhook id that is not served: ${target.slice(0, 12)}`;
      expect = target === gone.webhook_id ? { status: 410, text: '' } : { status: 200, text: '' };
      inert = true;
    }

    const label = `[seed ${seed} ${id}] ${kind} ${type}: ${what}; body ${preview(body, 160)}`;
    const res = await post(target, body);
    ran++;
    if (expect && !(Buffer.byteLength(body) > 1024 * 1024 && res.status === 413)) {
      if (res.status !== expect.status || res.text !== expect.text) t.fail(`${label}: answered ${res.status} ${res.text.slice(0, 200)}, expected ${expect.status} ${expect.text}`);
    } else if (Buffer.byteLength(body) > 1024 * 1024) {
      // the webhook reads at most 1 MiB, as every route open to anyone
      if (res.status !== 413) t.fail(`${label}: a body past 1 MiB answered ${res.status}`);
    } else {
      // whatever the mangled envelope became, the answer is one the original can give
      let json: any;
      const ok = res.text === '' || (() => {
        try {
          json = JSON.parse(res.text);
          return true;
        } catch {
          return false;
        }
      })();
      if (!ok || ![200, 201, 400].includes(res.status)) t.fail(`${label}: answered ${res.status} ${res.text.slice(0, 200)}`);
      if (res.status === 400 && json !== undefined && !(json.success === false)) t.fail(`${label}: a 400 that is not an error body: ${res.text.slice(0, 200)}`);
    }
    if (inert && h.hearth.log.lastSeq() !== beforeSeq) {
      const added: string[] = [];
      for await (const r of h.hearth.log.read({ gt: beforeSeq })) added.push(`${r.stream} ${r.type}`);
      t.fail(`${label}: refused input appended records: ${added.join(', ')}`);
    }
    // a registration is untouched, or fully updated by a valid update_registration
    const now = mobile.get(plain.webhook_id)!;
    const changed = JSON.stringify(now) !== JSON.stringify(before.plain);
    if (changed) {
      const keys = ['app_version', 'device_name', 'manufacturer', 'model'] as const;
      if (!keys.every((k) => typeof now[k] === 'string') || now.webhook_id !== before.plain.webhook_id || now.secret !== before.plain.secret || now.supports_encryption) {
        t.fail(`${label}: the plain registration was half-changed: ${JSON.stringify(now)}`);
      }
    }
    if (JSON.stringify(mobile.get(sealed.webhook_id)) !== JSON.stringify(before.sealed)) t.fail(`${label}: the encrypting registration changed`);
  }

  // still serving, both ways, with the legacy key still accepted (no case proved the current key)
  const live = await post(plain.webhook_id, JSON.stringify({ type: 'get_config' }));
  t.equal(live.status, 200);
  t.equal(JSON.parse(live.text).theme_color, '#03A9F4');
  const enc = await post(sealed.webhook_id, JSON.stringify({ type: 'get_config', encrypted: true, encrypted_data: sealFor({}, legacyKey(secret)) }));
  t.equal((openWith(JSON.parse(enc.text).encrypted_data, legacyKey(secret)) as any).theme_color, '#03A9F4');
  t.equal(mobile.get(sealed.webhook_id)!.no_legacy_encryption, false);
  t.throws(() => openWith(JSON.parse(enc.text).encrypted_data, hexKey(secret)));
  t.comment(`ran ${ran} cases with seed ${seed}`);
  t.ok(ran > 0);
});
