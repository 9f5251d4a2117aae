/**
 * Entity-id globs (`sensor.*_temperature`, `light.?itchen`): `*` any run of characters, `?`
 * one character. Matched without regular expressions, so no glob can make matching backtrack
 * exponentially: the pattern is split at its stars, each piece is found at its leftmost place
 * after the previous one (which is always right for star-separated pieces), the first piece
 * anchored at the start and the last at the end.
 */
export function globMatcher(glob: string): (text: string) => boolean {
  const pieces = glob.split('*');
  if (pieces.length === 1) return (text) => text.length === glob.length && matchesAt(glob, text, 0);
  const head = pieces[0];
  const tail = pieces[pieces.length - 1];
  // runs of stars are one star
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const least = head.length + tail.length + middle.reduce((n, p) => n + p.length, 0);
  return (text) => {
    if (text.length < least) return false;
    if (!matchesAt(head, text, 0) || !matchesAt(tail, text, text.length - tail.length)) return false;
    let from = head.length;
    const end = text.length - tail.length;
    for (const piece of middle) {
      const at = find(piece, text, from, end);
      if (at < 0) return false;
      from = at + piece.length;
    }
    return true;
  };
}

/** True when `piece` (with `?` for any character) matches `text` at `at`. */
function matchesAt(piece: string, text: string, at: number): boolean {
  for (let i = 0; i < piece.length; i++) {
    const c = piece.charCodeAt(i);
    if (c !== QUESTION && c !== text.charCodeAt(at + i)) return false;
  }
  return true;
}

/** The leftmost place from `from` where `piece` ends at or before `end`, or -1. */
function find(piece: string, text: string, from: number, end: number): number {
  if (!piece.includes('?')) {
    const at = text.indexOf(piece, from);
    return at >= 0 && at + piece.length <= end ? at : -1;
  }
  for (let at = from; at + piece.length <= end; at++) if (matchesAt(piece, text, at)) return at;
  return -1;
}

const QUESTION = 0x3f;
