// A strict parser of the Prometheus text exposition format (0.0.4), for tests that read
// /metrics: every line must be empty, a comment, a HELP/TYPE line or a well-formed sample; a sample must
// belong to a family whose TYPE came first; a series may appear once. Throws on anything else.

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);
/** Sample names a family of each type may use besides its own name. */
const SUFFIXES: Record<string, readonly string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
};

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('exposition must end with a newline');
  lines.pop();
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // a plain comment
      if (!NAME.test(m[2]!)) throw new Error(`bad metric name, ${where}`);
      if (m[1] === 'TYPE') {
        if (!TYPES.has(m[3]!)) throw new Error(`unknown type, ${where}`);
        if (types.has(m[2]!)) throw new Error(`second TYPE, ${where}`);
        types.set(m[2]!, m[3]!);
      }
      return;
    }
    if (line.trim() === '') return; // the format ignores empty lines (prom-client separates families)
    const sample = parseSample(line, where);
    const family = familyOf(sample.name, types);
    if (family === undefined) throw new Error(`sample before its TYPE, ${where}`);
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seen.has(key)) throw new Error(`duplicate series, ${where}`);
    seen.add(key);
    samples.push(sample);
  });
  return { types, samples };
}

function familyOf(name: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const [family, type] of types)
    if ((SUFFIXES[type] ?? []).some((s) => name === family + s)) return family;
  return undefined;
}

function parseSample(line: string, where: string): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (!m) throw new Error(`malformed sample, ${where}`);
  return { name: m[1]!, labels: m[2] ? parseLabels(m[2], where) : {}, value: parseValue(m[3]!, where) };
}

function parseLabels(block: string, where: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 1;
  const end = block.length - 1;
  while (i < end) {
    const eq = block.indexOf('=', i);
    if (eq < 0) throw new Error(`label without value, ${where}`);
    const name = block.slice(i, eq);
    if (!LABEL_NAME.test(name) || name in labels) throw new Error(`bad or repeated label ${name}, ${where}`);
    if (block[eq + 1] !== '"') throw new Error(`unquoted label value, ${where}`);
    let value = '';
    let j = eq + 2;
    for (; j < end && block[j] !== '"'; j++) {
      if (block[j] !== '\\') {
        value += block[j];
        continue;
      }
      const escaped = block[++j];
      if (escaped === 'n') value += '\n';
      else if (escaped === '\\' || escaped === '"') value += escaped;
      else throw new Error(`bad escape in label value, ${where}`);
    }
    if (block[j] !== '"') throw new Error(`unterminated label value, ${where}`);
    labels[name] = value;
    i = j + 1;
    if (block[i] === ',') i++;
    else if (i !== end) throw new Error(`expected , or } after a label, ${where}`);
  }
  return labels;
}

function parseValue(text: string, where: string): number {
  // Prometheus reads values with Go's ParseFloat: NaN and Inf in any case (prom-client writes `Nan`).
  const special = text.toLowerCase();
  if (special === '+inf' || special === 'inf') return Number.POSITIVE_INFINITY;
  if (special === '-inf') return Number.NEGATIVE_INFINITY;
  if (special === 'nan') return Number.NaN;
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value, ${where}`);
  return Number(text);
}

/** The value of the one sample with exactly these labels; throws when absent. */
export function sampleValue(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const want = JSON.stringify(Object.entries(labels).sort());
  const s = e.samples.find(
    (x) => x.name === name && JSON.stringify(Object.entries(x.labels).sort()) === want,
  );
  if (s === undefined) throw new Error(`no sample ${name}${JSON.stringify(labels)}`);
  return s.value;
}

/** Every sample of `name` whose labels include `labels`. */
export function samplesOf(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter(
    (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
}
