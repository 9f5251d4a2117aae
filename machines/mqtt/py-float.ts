/**
 * A number the original holds as a Python float (a light's hue, an xy point, a transition):
 * written with its `.0` in payloads, and a float to command templates.
 */
export class PyFloat {
  constructor(readonly n: number) {}
}

/** str() of a Python float, for the usual range (`300.0`, `0.701`). */
export function pyFloatText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return n.toFixed(1);
  return String(n);
}
