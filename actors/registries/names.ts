/**
 * Names and ids as the original's registries make them: a name is compared by its normalized
 * form (normalize_name), and an area, floor or label id is its name slugified, made unique
 * with `_2`, `_3`... (generate_id_from_name).
 */

/** The original's normalize_name: case folded, spaces removed. */
export function normalizeName(name: string): string {
  return name.toLowerCase().replaceAll('ß', 'ss').replaceAll(' ', '');
}

// letters the NFKD decomposition leaves whole, spelled as unidecode spells them
const TRANSLITERATED: Record<string, string> = { ß: 'ss', æ: 'ae', ø: 'o', œ: 'oe', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i' };

/**
 * The original's slugify (python-slugify with `_`): ASCII letters and digits in lower case,
 * runs of anything else one `_`, none at either end. Apostrophes vanish ("Bob's" → "bobs"). A
 * name with no ASCII spelling at all (the original transliterates it) becomes `unknown`;
 * the empty name stays empty, as there.
 */
export function slugify(text: string): string {
  if (text === '') return '';
  const slug = text
    .toLowerCase()
    .replace(/[ßæøœđðþłı]/g, (c) => TRANSLITERATED[c])
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/'+/g, '')
    .replace(/(?<=\d),(?=\d)/g, '')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return slug === '' ? 'unknown' : slug;
}

/** The slug of `name`, with `_2`, `_3`... appended while `taken` says it is in use. */
export function uniqueSlug(name: string, taken: (id: string) => boolean): string {
  const base = slugify(name);
  let id = base;
  for (let tries = 2; taken(id); tries++) id = `${base}_${tries}`;
  return id;
}
