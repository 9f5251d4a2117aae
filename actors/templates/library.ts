import type { FilterFn, Library, TestFn } from './render-env.ts';
import { JINJA_FILTERS, JINJA_TESTS } from './filters.ts';
import { COLLECTION_FILTERS, COLLECTION_GLOBALS, COLLECTION_TESTS } from './collections.ts';
import { NUMBER_FILTERS, NUMBER_GLOBALS, NUMBER_TESTS } from './numbers.ts';
import { STATE_FILTERS, STATE_GLOBALS, STATE_TESTS } from './states.ts';
import { TIME_FILTERS, TIME_GLOBALS, TIME_TESTS } from './time.ts';
import { REGEX_FILTERS, REGEX_TESTS } from './regex.ts';
import { JSON_FILTERS } from './json.ts';
import { GEO_FILTERS, GEO_GLOBALS } from './geo.ts';

/**
 * Everything a template can name: Jinja's built-ins, then the original's additions (which
 * replace Jinja's float, int and round, as the original's environment does).
 */
export function templateLibrary(): Library {
  const globals = new Map<string, unknown>(Object.entries({ ...COLLECTION_GLOBALS, ...NUMBER_GLOBALS, ...STATE_GLOBALS, ...TIME_GLOBALS, ...GEO_GLOBALS }));
  const filters = new Map<string, FilterFn>(
    Object.entries({ ...JINJA_FILTERS, ...COLLECTION_FILTERS, ...NUMBER_FILTERS, ...STATE_FILTERS, ...TIME_FILTERS, ...REGEX_FILTERS, ...JSON_FILTERS, ...GEO_FILTERS }),
  );
  // Jinja's aliases
  filters.set('d', filters.get('default')!);
  filters.set('e', filters.get('escape')!);
  const tests = new Map<string, TestFn>(Object.entries({ ...JINJA_TESTS, ...COLLECTION_TESTS, ...NUMBER_TESTS, ...STATE_TESTS, ...TIME_TESTS, ...REGEX_TESTS }));
  return { globals, filters, tests };
}
