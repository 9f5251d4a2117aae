/**
 * An error a template raised, named by the Python exception class the original would raise
 * (`UndefinedError`, `TypeError`, `ValueError`, `TemplateSyntaxError`...), so the text a client
 * reads is the original's `<Class>: <message>`.
 */
export class TemplateError extends Error {
  constructor(
    readonly pyClass: string,
    message: string,
  ) {
    super(message);
  }

  /** The original's `str(TemplateError(err))`; an error the original raises as a bare TemplateError has no class. */
  override toString(): string {
    return this.pyClass ? `${this.pyClass}: ${this.message}` : this.message;
  }
}

/** A render stopped by one of its bounds (time, steps, output, recursion). */
export class RenderLimitError extends TemplateError {}

/**
 * A JavaScript exception raised inside a render: the render's error, as any exception is in
 * the original, and a fault of the function that raised it.
 */
export class RenderFault extends TemplateError {}

export const typeError = (message: string) => new TemplateError('TypeError', message);
export const valueError = (message: string) => new TemplateError('ValueError', message);
export const undefinedError = (message: string) => new TemplateError('UndefinedError', message);
export const syntaxError = (message: string) => new TemplateError('TemplateSyntaxError', message);

/** The original's message for a conversion with no default (`float`, `int`, `round`, `as_timestamp`...). */
export function noDefault(fn: string, shown: string, template: string): TemplateError {
  return valueError(`Template error: ${fn} got invalid input '${shown}' when rendering template '${template}' but no default was specified`);
}
