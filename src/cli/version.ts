// The package version for `samsa --version`: read from the package.json above this module, which
// sits at src/cli (run through tsx) or dist/src/cli (built) inside the package.

import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  let dir = new URL('./', import.meta.url);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'samsa' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: look one level up
    }
    dir = new URL('../', dir);
  }
  return 'unknown';
}
