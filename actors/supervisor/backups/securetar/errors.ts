/** Why an encrypted inner archive could not be read or written. */
export type SecureTarErrorCode = 'invalid_password' | 'truncated' | 'corrupt' | 'unsupported' | 'size_mismatch';

export class SecureTarError extends Error {
  constructor(
    readonly code: SecureTarErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SecureTarError';
  }
}

/** Raised before any plaintext is produced, so a wrong password never leaves partial output. */
export class InvalidPasswordError extends SecureTarError {
  constructor(detail: string) {
    super('invalid_password', `Invalid password: ${detail}`);
    this.name = 'InvalidPasswordError';
  }
}
