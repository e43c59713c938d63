// `SubscribedTopicRegex` (ConsumerGroupHeartbeat v1+): Kafka compiles it with RE2/J and
// subscribes the member to every topic whose whole name matches. Node has no RE2, so the
// pattern is translated to a JavaScript RegExp, refusing (INVALID_REGULAR_EXPRESSION) what
// would behave differently or could run away:
//   - constructs RE2 does not have either: backreferences, lookahead/lookbehind;
//   - nested quantifiers such as `(a+)+`: RE2 runs them in linear time, a backtracking engine
//     may take exponential time, which would stall the coordinator's event loop;
//   - patterns over MAX_REGEX_LENGTH characters;
//   - RE2 syntax JavaScript lacks: POSIX classes `[[:alpha:]]`, `\pN` one-letter classes
//     without braces, inline flags other than a leading `(?i)`/`(?s)`/`(?m)` group.
// Translated: a leading `(?flags)` becomes RegExp flags, `(?P<name>` becomes `(?<name>`,
// `\A`/`\z` become `^`/`$`, `\Q…\E` is quoted. Internal topics never match (a client-side
// pattern subscription excludes them too).

export const MAX_REGEX_LENGTH = 1024;

export type CompiledRegex = { ok: true; test(topic: string): boolean } | { ok: false; reason: string };

const cache = new Map<string, CompiledRegex>();

export function compileTopicRegex(source: string): CompiledRegex {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  const compiled = compile(source);
  if (cache.size > 1000) cache.clear();
  cache.set(source, compiled);
  return compiled;
}

function quoteMeta(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function compile(source: string): CompiledRegex {
  if (source.length > MAX_REGEX_LENGTH)
    return { ok: false, reason: `longer than ${MAX_REGEX_LENGTH} characters` };
  let src = source;
  let flags = '';
  const lead = /^\(\?([ims]+)\)/.exec(src);
  if (lead) {
    flags = [...new Set(lead[1]!)].join('');
    src = src.slice(lead[0].length);
  }
  src = src.replace(/\\Q([\s\S]*?)(?:\\E|$)/g, (_m, lit: string) => quoteMeta(lit));
  if (/\(\?[a-zA-Z-]*\)|\(\?[a-zA-Z-]+:/.test(src))
    return { ok: false, reason: 'inline flags are only supported at the start' };
  if (/\(\?<?[=!]/.test(src)) return { ok: false, reason: 'lookaround is not supported (RE2 syntax)' };
  if (/\\[1-9]|\\k</.test(src)) return { ok: false, reason: 'backreferences are not supported (RE2 syntax)' };
  if (/\[\[:/.test(src)) return { ok: false, reason: 'POSIX character classes are not supported' };
  if (/\\[pP][A-Za-z]/.test(src)) return { ok: false, reason: 'one-letter Unicode classes need braces' };
  src = src
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$');
  if (hasNestedQuantifier(src)) return { ok: false, reason: 'nested quantifiers are not supported' };
  let re: RegExp;
  try {
    re = new RegExp(
      `^(?:${src})$`,
      flags.includes('i') || flags.includes('s') || flags.includes('m') ? flags : '',
    );
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
  return { ok: true, test: (topic) => !topic.startsWith('__') && re.test(topic) };
}

/**
 * True when a quantified group contains a quantifier: the shape of exponential backtracking
 * (`(a+)+`, `(a|aa)*` is not caught but alternation inside a starred group is bounded here by
 * topic names being at most 249 characters of a small alphabet).
 */
function hasNestedQuantifier(src: string): boolean {
  const stack: boolean[] = []; // per open group: does it contain a quantifier?
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push(false);
    else if (c === ')') {
      const inner = stack.pop() ?? false;
      const q = src[i + 1];
      const quantified = q === '*' || q === '+' || q === '?' || q === '{';
      if (inner && quantified && q !== '?') return true;
      if ((inner || quantified) && stack.length > 0) stack[stack.length - 1] = true;
    } else if ((c === '*' || c === '+' || c === '{') && stack.length > 0) stack[stack.length - 1] = true;
  }
  return false;
}
