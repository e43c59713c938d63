// Writing the generated tree: stale generated files are removed so a schema that disappears
// does not leave a module behind.

import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `ApiVersions` → `api-versions`, `OffsetCommitValue` → `offset-commit-value`. */
export function kebab(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

function listTs(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...listTs(p, `${prefix}${n}/`));
    else if (n.endsWith('.ts')) out.push(prefix + n);
  }
  return out;
}

export function writeGenerated(outDir: string, files: Map<string, string>): void {
  for (const old of listTs(outDir)) if (!files.has(old)) rmSync(join(outDir, old));
  for (const [rel, text] of files) {
    const p = join(outDir, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
  }
}
