/**
 * The contract's name of one of the original's fields: where the original's name carries a brand
 * word, the contract has the neutral one (`homeassistant` → `core`, `hassio` → `supervisor`).
 */
export function contractName(original: string): string {
  return original.replace(/homeassistant/g, 'core').replace(/hassio/g, 'supervisor');
}

/**
 * A field under the original's name and under the contract's, side by side (spread it where
 * the field goes): the original's clients read their names, the contract's read its own.
 * `contractValue` is for a value that is itself spelled differently (the role `homeassistant`
 * is `core`).
 */
export function bothSpellings(original: string, value: unknown, contractValue: unknown = value): Record<string, unknown> {
  return { [original]: value, [contractName(original)]: contractValue };
}
