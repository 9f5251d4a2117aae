// Text normalisation shared by templates, list values and spoken input: lower case, punctuation
// turned into spaces, one space between words. Input keeps a map back to the original characters
// so a slot's `text` is what was said, not its normalised form.

/** Punctuation that separates words; the apostrophe stays (what's), `%` becomes its own word. */
const PUNCT = /[\p{P}\p{S}]/u;
const KEEP = new Set(["'", '%', '+', '°', '$', '€', '£', '#', '&', '@']);

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Normalises `text` one character at a time, calling `emit(char, originalIndex)`; spaces are not
 * collapsed here (the callers do).
 */
function walk(text: string, emit: (c: string, at: number) => void): void {
  const lower = text.toLowerCase();
  for (let i = 0; i < lower.length; i++) {
    const code = lower.charCodeAt(i);
    // the common case first: a-z and 0-9 stand for themselves
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
      emit(lower[i], i);
      continue;
    }
    if (code === 32) {
      emit(' ', i);
      continue;
    }
    let c = lower[i];
    if (c === '’' || c === '‘' || c === '`') c = "'";
    if (/\s/.test(c)) emit(' ', i);
    else if (c === '%') {
      emit(' ', i);
      emit('%', i);
      emit(' ', i);
    } else if ((c === '.' || c === ',') && isDigit(lower[i - 1]) && isDigit(lower[i + 1])) {
      // a decimal point stays; a thousands comma (1,000) is dropped
      if (c === '.') emit('.', i);
    } else if (c === '-' && isDigit(lower[i + 1]) && (i === 0 || /\s/.test(lower[i - 1]))) emit('-', i);
    else if (KEEP.has(c)) emit(c, i);
    else if (PUNCT.test(c)) emit(' ', i);
    else emit(c, i);
  }
}

/** The normalised form of a name or list value: trimmed, single spaces. */
export function normalizeText(text: string): string {
  let out = '';
  walk(text.normalize('NFC'), (c) => {
    if (c === ' ' && (out.length === 0 || out[out.length - 1] === ' ')) return;
    out += c;
  });
  return out.endsWith(' ') ? out.slice(0, -1) : out;
}

/**
 * Template text: like normalizeText but a leading or trailing space is kept (as one space),
 * because `turn on [the] {name}` needs to know where words end.
 */
export function normalizeTemplateText(text: string): string {
  let out = '';
  walk(text.normalize('NFC'), (c) => {
    if (c === ' ' && out[out.length - 1] === ' ') return;
    out += c;
  });
  return out;
}

/** A spoken sentence ready to match: its words, and where each character came from. */
export interface NormalizedInput {
  /** the original text */
  original: string;
  /** normalised words joined by single spaces */
  text: string;
  /** for each character of `text`, its index in `original` */
  at: number[];
  /** the words of `text` */
  words: string[];
  /** indexes in `text` where a value may end: each space, and the end */
  ends: number[];
}

/** Normalises a sentence and drops skip words (whole words or phrases, already normalised). */
export function normalizeInput(original: string, skipPhrases: string[][] = []): NormalizedInput {
  const text = original.normalize('NFC');
  // the words, each with the original index of its characters
  const tokens: { w: string; at: number[] }[] = [];
  let w = '';
  let at: number[] = [];
  walk(text, (c, i) => {
    if (c === ' ') {
      if (w) tokens.push({ w, at });
      w = '';
      at = [];
    } else {
      w += c;
      at.push(i);
    }
  });
  if (w) tokens.push({ w, at });
  let kept = tokens;
  if (skipPhrases.length) {
    kept = [];
    for (let i = 0; i < tokens.length; ) {
      const phrase = skipPhrases.find((p) => p.length > 0 && p.every((pw, j) => tokens[i + j]?.w === pw));
      if (phrase) i += phrase.length;
      else kept.push(tokens[i++]);
    }
  }
  let joined = '';
  const map: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < kept.length; i++) {
    if (i > 0) {
      ends.push(joined.length);
      joined += ' ';
      map.push(kept[i - 1].at[kept[i - 1].at.length - 1] + 1);
    }
    joined += kept[i].w;
    // one by one: a spread of a word a megabyte long would overflow the call stack
    for (const at of kept[i].at) map.push(at);
  }
  ends.push(joined.length);
  return { original: text, text: joined, at: map, words: kept.map((k) => k.w), ends };
}
