// TOTP codes for tests that sign in with a second factor.
import { totpCode, TOTP_STEP_SECONDS } from '../../actors/auth/totp.ts';

/** The code of now, waiting out the last seconds of a step so it is still current when checked. */
export async function freshCode(secret: string): Promise<string> {
  const stepMs = TOTP_STEP_SECONDS * 1000;
  const left = stepMs - (Date.now() % stepMs);
  if (left < 3000) await new Promise((r) => setTimeout(r, left + 50));
  return totpCode(secret, Date.now());
}

/** A code of none of the steps the login accepts around now. */
export function wrongCode(secret: string): string {
  const now = Date.now();
  const near = new Set([-1, 0, 1].map((k) => totpCode(secret, now + k * TOTP_STEP_SECONDS * 1000)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!near.has(code)) return code;
  }
}
