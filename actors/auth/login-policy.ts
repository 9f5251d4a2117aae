import { isLocalAddress } from './client-id.ts';
import { CORE_PROVIDER, type Credential, type UserView } from './users.ts';
import type { LoginProvider } from './providers.ts';

/** One entry of GET /auth/providers. */
export interface AuthProviderInfo {
  name: string;
  id: string | null;
  type: string;
}

const providerKey = (type: string, id: string | null) => `${type}\n${id ?? ''}`;

/**
 * Who may log in, or have an access token minted, from where: the user's own limits (active,
 * local only) and those of the provider its credential belongs to. Logins and token refreshes
 * ask the same questions.
 */
export class LoginPolicy {
  private readonly byKey: Map<string, LoginProvider>;

  constructor(readonly providers: readonly LoginProvider[]) {
    this.byKey = new Map(providers.map((provider) => [providerKey(provider.type, provider.id), provider]));
  }

  /** The configured providers a client at `ip` may use, in configuration order. */
  listedFor(ip: string): AuthProviderInfo[] {
    return this.providers.filter((provider) => provider.listedFor(ip)).map(({ name, id, type }) => ({ name, id, type }));
  }

  /** The provider a client names by type and id. */
  provider(type: string, id: string | null): LoginProvider | undefined {
    return this.byKey.get(providerKey(type, id));
  }

  /** The provider a credential belongs to, when it is configured. */
  providerOf(credential: { auth_provider_type: string; auth_provider_id: string | null }): LoginProvider | undefined {
    return this.provider(credential.auth_provider_type, credential.auth_provider_id);
  }

  /** Why a user may not log in from `ip`, or undefined when it may. */
  userRefusal(user: UserView, ip: string): string | undefined {
    if (!user.isActive) return 'User is not active';
    if (user.localOnly && !isLocalAddress(ip)) return 'User cannot authenticate remotely';
    return undefined;
  }

  /** Why the credential's provider refuses a token now (trusted_networks checks the address), or undefined. */
  providerRefusal(credential: Credential, ip: string | null): string | undefined {
    const provider = this.providerOf(credential);
    // onboarding and `hearth auth add` make core credentials whatever is configured; others need their provider
    if (!provider) return credential.auth_provider_type === CORE_PROVIDER ? undefined : `Auth provider ${credential.auth_provider_type} is not configured`;
    return provider.refreshRefusal(ip);
  }
}
