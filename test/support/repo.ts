// Where the repository's files are for a test, whether the test runs from the TypeScript sources
// (`node --import tsx test/x.test.ts`) or compiled by tsc under dist/ (what `npm test` runs:
// no loader in each test process saves about 2 s of CPU per process, minutes over the suite on
// a loaded 2-core machine). Data files (fixtures, Python scripts, hooks) are always read from the
// source tree; a TypeScript module to run in a child process is run the way this test runs.
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url)); // <root>/test/support or <root>/dist/test/support
/** True when the tests run compiled, from dist/. */
export const COMPILED = basename(resolve(HERE, '../..')) === 'dist';
/** The repository root. */
export const REPO = resolve(HERE, COMPILED ? '../../..' : '../..');

/** A file of the source tree, by its path from the repository root (`test/fixtures/golden`). */
export const repoFile = (path: string): string => join(REPO, path);

/** Node flags that load TypeScript the way this process does: tsx from sources, none compiled. */
export const LOADER_FLAGS: readonly string[] = COMPILED ? ['--enable-source-maps'] : ['--import', 'tsx'];

/** The file that runs a TypeScript module of the repository (`src/cli/main.ts`) in this mode. */
export const moduleFile = (tsPath: string): string =>
  COMPILED ? join(REPO, 'dist', tsPath.replace(/\.ts$/, '.js')) : join(REPO, tsPath);

/** The URL to import a TypeScript module of the repository with, from a child's `-e` script. */
export const moduleUrl = (tsPath: string): string => pathToFileURL(moduleFile(tsPath)).href;

/** `node` arguments that run a TypeScript module of the repository with `args`. */
export const nodeArgs = (tsPath: string, ...args: string[]): string[] => [
  ...LOADER_FLAGS,
  moduleFile(tsPath),
  ...args,
];
