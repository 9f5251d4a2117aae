import type { HelperDomain } from '../types.ts';
import { counterDomain } from './counter.ts';
import { inputBooleanDomain } from './input_boolean.ts';
import { inputButtonDomain } from './input_button.ts';
import { inputDatetimeDomain } from './input_datetime.ts';
import { inputNumberDomain } from './input_number.ts';
import { inputSelectDomain } from './input_select.ts';
import { inputTextDomain } from './input_text.ts';

/** The helper domains configured in configuration.yaml (each gets its `reload` from the composition root). */
export const helperDomains: HelperDomain[] = [
  inputBooleanDomain,
  inputNumberDomain,
  inputTextDomain,
  inputSelectDomain,
  inputButtonDomain,
  inputDatetimeDomain,
  counterDomain,
];
