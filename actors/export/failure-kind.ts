// What an export session that failed is warned of: the many ways of not reaching NATS are one
// outage, warned of once however they alternate; any other failure is its own reason.

/**
 * nats.js's and the socket's codes for a server not reached, or lost, and for a JetStream not
 * answering on it yet (503, no responders: a server just restarted): one outage, however they
 * alternate
 */
const UNREACHABLE = /^(503|CONNECTION_REFUSED|CONNECTION_CLOSED|CONNECTION_TIMEOUT|CONNECTION_DRAINING|DISCONNECT|TIMEOUT|ECONNRESET|ECONNREFUSED|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;

/** What a failed session is warned of once: `unreachable` however the server was not reached, else its reason. */
export function failureKind(err: unknown): string {
  const reason = (err as Error | undefined)?.message ?? String(err);
  const code = (err as { code?: unknown } | undefined)?.code;
  return UNREACHABLE.test(typeof code === 'string' ? code : reason) ? 'unreachable' : reason;
}
