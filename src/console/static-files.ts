// The UI's files: `ui/` next to this module when running from source, `src/console/ui/` of the
// package when running from `dist/` (package.json "files" ships that folder; tsc does not copy
// it). preact, preact/hooks and htm are served from node_modules under /ui/vendor/ and named in
// index.html's import map. Only files listed at startup are served: a path never reaches the
// file system.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};

export interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
}

/** The folder holding index.html, from source or from an installed package. */
export function uiDir(): string {
  for (const rel of ['./ui/', '../../../src/console/ui/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  throw new Error('samsa console: the UI files (src/console/ui) are missing from the package');
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

function file(path: string): StaticFile {
  const ext = path.slice(path.lastIndexOf('.') + 1);
  return { body: readFileSync(path), type: TYPES[ext] ?? 'application/octet-stream' };
}

/** URL path (`/ui/app.js`, `/ui/vendor/preact.mjs`) → file, read once. */
export function loadStaticFiles(): Map<string, StaticFile> {
  const dir = uiDir();
  const files = new Map<string, StaticFile>();
  for (const p of walk(dir)) files.set(`/ui/${relative(dir, p).split(sep).join('/')}`, file(p));
  const require = createRequire(import.meta.url);
  files.set('/ui/vendor/preact.mjs', file(require.resolve('preact')));
  files.set('/ui/vendor/hooks.mjs', file(require.resolve('preact/hooks')));
  // htm's exports give its CommonJS build to require(); the ES module sits next to it.
  files.set('/ui/vendor/htm.mjs', file(join(dirname(require.resolve('htm')), 'htm.mjs')));
  return files;
}

/** Content-Security-Policy: our own scripts only, plus the inline import map by its hash. */
export function contentSecurityPolicy(indexHtml: Buffer): string {
  const m = /<script type="importmap">([\s\S]*?)<\/script>/.exec(indexHtml.toString('utf8'));
  const hash = m ? ` 'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'` : '';
  return [
    "default-src 'self'",
    `script-src 'self'${hash}`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; ');
}
