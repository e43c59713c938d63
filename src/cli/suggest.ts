// "Did you mean …?" for mistyped flags, commands and config keys: the known name closest to what
// was typed by edit distance, only when it is close enough to be a plausible typo.

/** Levenshtein distance (insert, delete, substitute; a swap of neighbours counts once). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0]![j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate closest to `name`, or null when none is plausibly meant: one edit away, else the
 * only candidate that starts with it, else the nearest one if at most a third of the name's
 * length away (and at most 4 edits).
 */
export function closest(name: string, candidates: Iterable<string>): string | null {
  const lower = name.toLowerCase();
  const list = [...candidates];
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of list) {
    const dist = editDistance(lower, c.toLowerCase());
    if (dist < bestDistance) {
      best = c;
      bestDistance = dist;
    }
  }
  // One slip (--topics for --topic) beats an abbreviation; an abbreviation of exactly one
  // candidate (--desc for --describe) beats a guess at a distance.
  if (best !== null && bestDistance <= 1) return best;
  if (lower.length >= 3) {
    const prefixed = list.filter((c) => c.toLowerCase().startsWith(lower));
    if (prefixed.length === 1) return prefixed[0]!;
  }
  if (best === null) return null;
  const limit = Math.min(4, Math.max(1, Math.floor(name.length / 3)));
  return bestDistance <= limit ? best : null;
}

/** ` (did you mean X?)` or '' — ready to append to a message. */
export function didYouMean(name: string, candidates: Iterable<string>, render = (s: string) => s): string {
  const c = closest(name, candidates);
  return c === null ? '' : ` (did you mean ${render(c)}?)`;
}
