// The user's language as the original frontend keeps it: per-user frontend data under the key
// `language`, a value like {language: "de", number_format: "language"}, read and written with
// frontend/get_user_data and frontend/set_user_data, followed with frontend/subscribe_user_data
// so that a choice made in another tab or on another device switches this page too.
import { LANGUAGES, LANGUAGE_NAMES, pickLanguage } from './i18n.js';

const KEY = 'language';

/**
 * The language to show: the user's stored choice, then the browser's languages, then the core's
 * (get_config `language`), then English. The browser comes before the core because it speaks for
 * this user, the core for the whole home; the core's still counts where the browser's has no table.
 */
export function chooseLanguage(stored, config) {
  return pickLanguage(stored?.language, ...(navigator.languages ?? []), navigator.language, config?.language);
}

/** The stored value, or undefined when there is none or the core keeps no user data. */
export async function readStoredLanguage(conn) {
  try {
    const { value } = await conn.sendMessagePromise({ type: 'frontend/get_user_data', key: KEY });
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Calls onValue(stored) now and at every change of the stored language; resolves to the unsubscribe. */
export async function followStoredLanguage(conn, onValue) {
  try {
    return await conn.subscribeMessage((event) => onValue(event?.value && typeof event.value === 'object' ? event.value : undefined), { type: 'frontend/subscribe_user_data', key: KEY });
  } catch {
    return () => {};
  }
}

/** Stores the user's choice, keeping what else the value holds (the number format). */
export async function saveLanguage(conn, language) {
  const stored = await readStoredLanguage(conn);
  const value = { number_format: 'language', ...stored, language };
  await conn.sendMessagePromise({ type: 'frontend/set_user_data', key: KEY, value });
}

/**
 * A labelled <select> of the languages the dashboard has, each in its own name, showing `lang`.
 * A choice is saved to the user's data; the page follows when the change comes back.
 */
export function languageControl(conn, t, lang) {
  const label = document.createElement('label');
  label.className = 'lang';
  const text = document.createElement('span');
  text.className = 'lang-label';
  text.textContent = t('app.language');
  const select = document.createElement('select');
  select.id = 'language';
  for (const code of LANGUAGES) {
    const option = document.createElement('option');
    option.value = code;
    option.lang = code;
    option.textContent = LANGUAGE_NAMES[code] ?? code;
    select.append(option);
  }
  select.value = lang;
  const problem = document.createElement('span');
  problem.className = 'error';
  problem.setAttribute('role', 'alert');
  select.addEventListener('change', async () => {
    problem.textContent = '';
    // busy, not disabled: a disabled control would drop the keyboard focus
    select.setAttribute('aria-busy', 'true');
    try {
      await saveLanguage(conn, select.value);
    } catch (err) {
      select.value = lang;
      problem.textContent = t('app.language_failed', { message: err?.message ?? String(err) });
    } finally {
      select.removeAttribute('aria-busy');
    }
  });
  label.append(text, select, problem);
  return label;
}
