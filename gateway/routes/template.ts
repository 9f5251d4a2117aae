import type { Router } from '../router.ts';
import { message, text } from '../replies.ts';
import { parseJson } from '../body.ts';
import { isObject } from '../body.ts';
import type { CoreDeps } from '../core.ts';

/** POST /api/template (core-api §2.8): renders a template to plain text; admins only, as the original. */
export function registerTemplateRoutes(root: Router, deps: Pick<CoreDeps, 'templates'>): void {
  const router = root.of('api');
  router.post('/api/template', { access: 'admin' }, (req) => {
    const read = parseJson(req);
    if (!read.ok) return message(400, `Error rendering template: ${read.message}`);
    const data = read.value;
    if (!isObject(data)) return message(400, 'Template data should be a JSON object');
    // the original fails on these with a bare TypeError (a 500); the client is told what is wrong instead
    if (typeof data.template !== 'string') return message(400, 'Error rendering template: Expected template to be a string');
    const variables = data.variables ?? undefined;
    if (variables !== undefined && !isObject(variables)) return message(400, 'Error rendering template: variables should be a JSON object');
    const outcome = deps.templates.render(data.template, variables);
    if (!outcome.ok) return message(400, `Error rendering template: ${outcome.error}`);
    return text(200, outcome.text);
  });
}
