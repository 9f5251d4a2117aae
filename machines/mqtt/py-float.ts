/**
 * A number the original holds as a Python float (a light's hue, an xy point, a transition):
 * written with its `.0` in payloads, and a float to command templates.
 */
export class PyFloat {
  constructor(readonly n: number) {}
}
