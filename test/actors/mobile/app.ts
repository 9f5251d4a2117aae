// A companion app as the tests play it: registers, sends webhooks (plain or sealed the way the
// iOS and Android apps do with libsodium secretbox), opens sealed answers.
import nacl from 'tweetnacl';

export const REGISTRATION = {
  app_id: 'io.robbie.HomeAssistant',
  app_name: 'Home Assistant',
  app_version: '2025.1',
  device_name: 'Test Phone',
  manufacturer: 'Apple',
  model: 'iPhone15,2',
  os_name: 'iOS',
  os_version: '18.2',
  device_id: 'A1B2C3D4',
  supports_encryption: false,
  app_data: { push_websocket_channel: true },
};

export const hexKey = (secret: string) => new Uint8Array(Buffer.from(secret, 'hex'));
export const legacyKey = (secret: string) => {
  const k = new Uint8Array(32);
  k.set(Buffer.from(secret, 'utf8').subarray(0, 32));
  return k;
};

export function sealFor(value: unknown, key: Uint8Array): string {
  return sealText(JSON.stringify(value), key);
}

export function sealText(text: string, key: Uint8Array): string {
  const nonce = nacl.randomBytes(24);
  const box = nacl.secretbox(new Uint8Array(Buffer.from(text)), nonce, key);
  return Buffer.concat([Buffer.from(nonce), Buffer.from(box)]).toString('base64');
}

export function openWith(encoded: string, key: Uint8Array): unknown {
  const bytes = new Uint8Array(Buffer.from(encoded, 'base64'));
  const opened = nacl.secretbox.open(bytes.subarray(24), bytes.subarray(0, 24), key);
  if (!opened) throw new Error('the answer does not open with this key');
  return JSON.parse(Buffer.from(opened).toString('utf8'));
}

/** A POST to the webhook: status, content type, raw text and parsed JSON (or undefined). */
export async function hook(base: string, webhookId: string, body: unknown, method = 'POST') {
  const res = await fetch(`${base}/api/webhook/${webhookId}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type'), text, json };
}

/** Registers an app; resolves to the 201 body. */
export async function register(call: (m: string, p: string, b?: unknown) => Promise<{ status: number; json: any }>, extra: Record<string, unknown> = {}) {
  const res = await call('POST', '/api/mobile_app/registrations', { ...REGISTRATION, ...extra });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json as { cloudhook_url: null; remote_ui_url: null; secret: string | null; webhook_id: string };
}
