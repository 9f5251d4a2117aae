/** A listening port given on the command line or in the environment: 0 (any free one) to 65535. */
export function portFrom(text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port ${JSON.stringify(text)}: give a number from 0 to 65535`);
  return port;
}
