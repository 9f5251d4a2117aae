import type { Clock, Ids } from '../clock.ts';

/** Authorization codes live ten minutes (OAuth 2.0 §4.1.2 recommends at most that). */
export const AUTH_CODE_LIFETIME_MS = 10 * 60 * 1000;

interface Pending {
  clientId: string;
  credentialId: string;
  createdAt: number;
}

/**
 * Authorization codes, in memory only: single use, bound to the client id they were issued
 * for. A code presented with another client id is not found and stays usable by its own client.
 */
export class AuthCodes {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly clock: Clock, private readonly ids: Ids) {}

  /** A fresh code that yields `credentialId` to `clientId`. */
  create(clientId: string, credentialId: string): string {
    const now = this.clock.now();
    this.prune(now);
    const code = this.ids.uuidHex();
    this.pending.set(code, { clientId, credentialId, createdAt: now });
    return code;
  }

  /** The credential behind `code`, consuming it; undefined when unknown, expired or for another client. */
  take(clientId: string, code: string): string | undefined {
    const entry = this.pending.get(code);
    if (!entry || entry.clientId !== clientId) return undefined;
    this.pending.delete(code);
    return this.clock.now() - entry.createdAt < AUTH_CODE_LIFETIME_MS ? entry.credentialId : undefined;
  }

  private prune(now: number): void {
    for (const [code, entry] of this.pending) {
      if (now - entry.createdAt < AUTH_CODE_LIFETIME_MS) break; // insertion order is creation order
      this.pending.delete(code);
    }
  }
}
