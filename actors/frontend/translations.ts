import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { ServiceDescription } from '../services/types.ts';

/**
 * The backend's translations as `frontend/get_translations` serves them: flat keys
 * `component.<domain>.<category>.<key...>` over the original's English strings of each domain
 * Hearth has (`strings/<domain>.json`, its references already resolved, as the original's
 * generated English files are), the `services` category made from the services' own
 * descriptions so a name is written once. Every language is answered in English: the original
 * fills what a language lacks from English, and Hearth keeps no other.
 */

const STRINGS_DIR = fileURLToPath(new URL('./strings/', import.meta.url));

type Strings = Record<string, unknown>;

/** Where the translations read the loaded domains and the services' texts. */
export interface TranslationsDeps {
  /** the loaded components (get_config's list), answered when no integration is named */
  components(): string[];
  /** `{domain: {service: description}}` as get_services has them */
  services(): Record<string, Record<string, ServiceDescription>>;
  /** where the domains' strings are read from (tests) */
  dir?: string;
}

/** Reads every domain's strings once. */
function readStrings(dir: string): Map<string, Strings> {
  const byDomain = new Map<string, Strings>();
  for (const file of readdirSync(dir)) {
    if (file.endsWith('.json')) byDomain.set(file.slice(0, -'.json'.length), JSON.parse(readFileSync(join(dir, file), 'utf8')));
  }
  return byDomain;
}

/** `prefix.key.sub` for every text under `value`. */
function flatten(prefix: string, value: unknown, out: Record<string, string>): void {
  if (typeof value === 'string') out[prefix] = value;
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) flatten(`${prefix}.${k}`, v, out);
}

/** A service description's texts in the shape of the original's strings.json `services` section. */
function serviceStrings(description: ServiceDescription): Strings {
  const fields: Strings = {};
  for (const [name, f] of Object.entries(description.fields)) {
    fields[name] = { ...(f.name !== undefined && { name: f.name }), ...(f.description !== undefined && { description: f.description }) };
  }
  return { name: description.name, description: description.description, ...(Object.keys(fields).length && { fields }) };
}

/** The translations of every domain Hearth has, by category. */
export class Translations {
  private readonly strings: Map<string, Strings>;

  constructor(private readonly deps: TranslationsDeps) {
    this.strings = readStrings(deps.dir ?? STRINGS_DIR);
  }

  /**
   * The resources of one category: for the named integrations, else (config_flow) those with a
   * config flow not yet loaded, of which Hearth has none, else the loaded components.
   */
  resources(language: string, category: string, integrations?: string[], configFlow?: boolean): Record<string, string> {
    void language;
    const domains = integrations ?? (configFlow ? [] : this.deps.components().filter((c) => !c.includes('.')));
    const services = category === 'services' ? this.deps.services() : {};
    const out: Record<string, string> = {};
    for (const domain of domains) {
      const prefix = `component.${domain}`;
      if (category === 'services') {
        for (const [service, description] of Object.entries(services[domain] ?? {})) flatten(`${prefix}.services.${service}`, serviceStrings(description), out);
        continue;
      }
      const strings = this.strings.get(domain);
      if (strings?.[category] !== undefined) flatten(`${prefix}.${category}`, strings[category], out);
    }
    return out;
  }
}
