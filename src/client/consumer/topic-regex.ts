// `subscribe(/regex/)` with groupProtocol 'consumer': the pattern travels to the coordinator as
// ConsumerGroupHeartbeat's SubscribedTopicRegex, which Kafka evaluates with RE2/J against whole
// topic names. A JavaScript RegExp means something else in two ways, so it is rewritten:
//   - `test()` searches: /^orders-/ matches "orders-eu". RE2 here must match the whole name, so
//     an unanchored start or end gets `.*` (and a leading `^` / trailing `$` that anchors the
//     whole pattern is dropped as redundant);
//   - flags live outside the source: `i` and `s` become a leading `(?is)` group; `m` changes
//     nothing for names without line breaks; `g`, `y`, `u`, `v`, `d` do not affect matching.
// JavaScript syntax RE2 lacks (lookaround, backreferences, `\u` escapes) is refused at
// subscribe() with a ConfigError rather than being refused later by the broker; `(?<name>` is
// written in RE2's `(?P<name>` form and `\/` (an escaped slash) as `/`.
import { ConfigError } from '../errors.js';

/** The RE2 form of a JavaScript RegExp, matching the same topic names; throws ConfigError. */
export function toRe2TopicRegex(re: RegExp): string {
  const src = re.source;
  if (/\(\?<?[=!]/.test(src))
    throw new ConfigError(`topic pattern ${re}: lookahead/lookbehind is not supported by RE2`);
  if (/\\[1-9]|\\k</.test(stripClasses(src)))
    throw new ConfigError(`topic pattern ${re}: backreferences are not supported by RE2`);
  if (/\\u/.test(src))
    throw new ConfigError(`topic pattern ${re}: \\u escapes are not supported by RE2; write the character`);
  let body = src.replace(/\(\?<(?![=!])/g, '(?P<').replace(/\\\//g, '/');
  const alternation = hasTopLevelAlternation(body);
  let prefix = '.*';
  let suffix = '.*';
  if (!alternation && body.startsWith('^')) {
    body = body.slice(1);
    prefix = '';
  }
  if (!alternation && endsWithAnchor(body)) {
    body = body.slice(0, -1);
    suffix = '';
  }
  const core = prefix === '' && suffix === '' ? body : `${prefix}(?:${body})${suffix}`;
  const flags = [...new Set(re.flags.split('').filter((f) => f === 'i' || f === 's'))].join('');
  return flags === '' ? core : `(?${flags})${core}`;
}

/** The source with character classes blanked, so `[\1]` is not taken for a backreference. */
function stripClasses(src: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      if (!inClass) out += c + (src[i + 1] ?? '');
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else out += c;
  }
  return out;
}

/** Whether `|` appears outside every group and class (then `^…$` do not anchor the whole). */
function hasTopLevelAlternation(src: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/** A final `$` that is not escaped (an odd run of backslashes before it escapes it). */
function endsWithAnchor(src: string): boolean {
  if (!src.endsWith('$')) return false;
  let slashes = 0;
  for (let i = src.length - 2; i >= 0 && src[i] === '\\'; i--) slashes++;
  return slashes % 2 === 0;
}
