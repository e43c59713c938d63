// Parser for Java `.properties` files (the format of Kafka's `server.properties`).
// Supports `key=value`, `key: value` and `key value`, `#`/`!` comments, backslash line
// continuations and the usual escapes, because operators copy files straight from Kafka.

export class PropertiesSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`line ${line}: ${message}`);
    this.name = 'PropertiesSyntaxError';
  }
}

/** Parses the text of a `.properties` file into an ordered map (later keys win). */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    let logical = lines[i]!.replace(/^[ \t\f]+/, '');
    if (logical === '' || logical.startsWith('#') || logical.startsWith('!')) continue;
    // A line ending in an odd number of backslashes continues on the next line.
    while (endsWithOddBackslashes(logical) && i + 1 < lines.length) {
      logical = logical.slice(0, -1) + lines[++i]!.replace(/^[ \t\f]+/, '');
    }
    if (endsWithOddBackslashes(logical)) logical = logical.slice(0, -1);
    const { key, value } = splitKeyValue(logical);
    if (key === '') throw new PropertiesSyntaxError('empty key', startLine);
    out.set(unescapeJava(key), unescapeJava(value));
  }
  return out;
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let j = s.length - 1; j >= 0 && s[j] === '\\'; j--) n++;
  return n % 2 === 1;
}

function splitKeyValue(line: string): { key: string; value: string } {
  let j = 0;
  while (j < line.length) {
    const c = line[j]!;
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    j++;
  }
  const key = line.slice(0, Math.min(j, line.length));
  let k = j;
  while (k < line.length && (line[k] === ' ' || line[k] === '\t' || line[k] === '\f')) k++;
  if (k < line.length && (line[k] === '=' || line[k] === ':')) k++;
  while (k < line.length && (line[k] === ' ' || line[k] === '\t' || line[k] === '\f')) k++;
  return { key, value: line.slice(k) };
}

function unescapeJava(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let j = 0; j < s.length; j++) {
    const c = s[j]!;
    if (c !== '\\' || j + 1 >= s.length) {
      out += c;
      continue;
    }
    const n = s[++j]!;
    if (n === 't') out += '\t';
    else if (n === 'n') out += '\n';
    else if (n === 'r') out += '\r';
    else if (n === 'f') out += '\f';
    else if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(j + 1, j + 5))) {
      out += String.fromCharCode(Number.parseInt(s.slice(j + 1, j + 5), 16));
      j += 4;
    } else out += n;
  }
  return out;
}
