// Kafka's `sasl.jaas.config` value: one or more login modules, each
// `<module class> <flag> [<option>=<value> ...];` with the flag one of required, requisite,
// sufficient, optional, and values bare words or double-quoted strings (Java's
// StreamTokenizer rules: `\"` and `\\` escapes inside quotes). Errors never quote the value:
// it holds passwords.

export interface JaasLoginModule {
  readonly loginModule: string;
  readonly flag: 'required' | 'requisite' | 'sufficient' | 'optional';
  readonly options: ReadonlyMap<string, string>;
}

export class JaasConfigError extends Error {
  override name = 'JaasConfigError';
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);
const WORD = /[A-Za-z0-9_$.-]/;

type Token = { kind: 'word' | 'quoted'; text: string } | { kind: 'punct'; text: '=' | ';' };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new JaasConfigError('unterminated comment');
      i = end + 2;
    } else if (c === '=' || c === ';') {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (c === '"') {
      let out = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && i + 1 < text.length) i++;
        out += text[i];
        i++;
      }
      if (i >= text.length) throw new JaasConfigError('unterminated quoted value');
      i++;
      tokens.push({ kind: 'quoted', text: out });
    } else if (WORD.test(c)) {
      const start = i;
      while (i < text.length && WORD.test(text[i]!)) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i) });
    } else throw new JaasConfigError(`unexpected character '${c}' at position ${i}`);
  }
  return tokens;
}

export function parseJaasConfig(text: string): JaasLoginModule[] {
  const tokens = tokenize(text);
  const modules: JaasLoginModule[] = [];
  let i = 0;
  const next = () => tokens[i++];
  while (i < tokens.length) {
    const name = next();
    if (name?.kind !== 'word') throw new JaasConfigError('expected a login module class name');
    const flag = next();
    if (flag?.kind !== 'word' || !FLAGS.has(flag.text.toLowerCase()))
      throw new JaasConfigError(`login module ${name.text}: expected a control flag (required, …)`);
    const options = new Map<string, string>();
    for (;;) {
      const t = next();
      if (t === undefined) throw new JaasConfigError(`login module ${name.text}: missing ';' at the end`);
      if (t.kind === 'punct' && t.text === ';') break;
      if (t.kind !== 'word') throw new JaasConfigError(`login module ${name.text}: expected an option name`);
      const eq = next();
      const value = next();
      if (eq?.text !== '=' || value === undefined || value.kind === 'punct')
        throw new JaasConfigError(`login module ${name.text}: option ${t.text} has no value`);
      options.set(t.text, value.text);
    }
    modules.push({
      loginModule: name.text,
      flag: flag.text.toLowerCase() as JaasLoginModule['flag'],
      options,
    });
  }
  if (modules.length === 0) throw new JaasConfigError('no login module');
  return modules;
}
