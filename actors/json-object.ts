/** A JSON object (a dict): not null, not a list. What every reader of outside JSON asks first. */
export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
