/**
 * Entity ids from names, as the original makes them: its `slugify` (python-slugify with an
 * underscore separator) and `async_generate_entity_id` (`_2`, `_3`... on a collision).
 */

// letters NFKD does not take apart into a base letter and marks; unidecode spells them so
const SPELLED: Record<string, string> = {
  ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D',
  þ: 'th', Þ: 'TH', ł: 'l', Ł: 'L', ı: 'i', ħ: 'h', Ħ: 'H', ŧ: 't', Ŧ: 'T', ŋ: 'ng', Ŋ: 'NG', ĸ: 'q',
};

/** A simple transliteration to ASCII: accents dropped, a few letters spelled out, the rest removed. */
function transliterate(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFKD')) {
    if (ch.charCodeAt(0) < 0x80) out += ch;
    else if (SPELLED[ch] !== undefined) out += SPELLED[ch];
    // combining marks and letters without an ASCII spelling vanish, as unidecode's unknowns do
  }
  return out;
}

/**
 * The original's slugify: quotes split words, text transliterated and lower-cased, a comma
 * between digits dropped (`1,000` → `1000`), every run of other characters one `_`, no `_` at
 * either end; an empty result is `unknown`.
 */
export function slugify(text: string): string {
  if (text === '') return '';
  let s = transliterate(text.replace(/'+/g, '-')).toLowerCase();
  s = s.replace(/(?<=\d),(?=\d)/g, '');
  s = s.replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return s === '' ? 'unknown' : s;
}

/** `preferred`, or the first of `preferred_2`, `preferred_3`... that is not taken. */
export function uniqueId(preferred: string, taken: (id: string) => boolean): string {
  if (!taken(preferred)) return preferred;
  for (let n = 2; ; n++) {
    const candidate = `${preferred}_${n}`;
    if (!taken(candidate)) return candidate;
  }
}
