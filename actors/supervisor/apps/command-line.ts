/**
 * An app's `backup_pre`/`backup_post` command as the original hands it to the engine: split into
 * arguments the way a POSIX shell splits words (quotes, backslashes), but never run by a shell,
 * so `$VAR`, `;` and `|` are plain text. An unclosed quote is refused with the original's words.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error('No closing quotation');
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      for (i++; ; i++) {
        if (i >= line.length) throw new Error('No closing quotation');
        const d = line[i]!;
        if (d === '"') break;
        // inside double quotes a backslash escapes only these
        if (d === '\\' && i + 1 < line.length && '\\"$`\n'.includes(line[i + 1]!)) word += line[++i];
        else word += d;
      }
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new Error('No escaped character');
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
