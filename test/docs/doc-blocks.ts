// Extracting the fenced code blocks of the documentation and running them as a user would, in a
// scratch project where `samsa` is installed (a symlink to this repository, resolved through
// package.json "exports"): the TypeScript blocks compiled by tsc (one run for all of them, which
// also type-checks them), the JavaScript ones as they are, the shell ones through bash with a
// `samsa` command on the PATH.
//
// Markers (an HTML comment on the last non-blank line before the fence):
//   <!-- not-run: reason -->   the block is illustrative or starts something long-running.
//   <!-- run-until: TEXT -->   the block runs until its output contains TEXT, then gets SIGTERM
//                              and must exit with status 0 (a consumer loop, say).
//
// The blocks run the same code as the rest of the suite. Compiled (`npm test`, which built dist/
// just before): plain `node` with `samsa` resolved to dist/ and `samsa` being bin/samsa.js, what a
// user's install runs, and tsc checks the blocks against the built .d.ts files. From the sources
// (`node tools/run-tests.mjs docs`): through tsx with the `samsa-source` export condition, so no
// build is needed and no stale dist/ can make a block pass or fail. A process through tsx costs
// about 1-2 s more CPU than plain node, and the blocks start dozens of them.

import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPILED, repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';

export const REPO_ROOT = repoFile('./');
/** Node flags that make `samsa` (and `samsa/client`, ...) resolve to the TypeScript sources. */
export const SOURCE_NODE_FLAGS: readonly string[] = [
  '--conditions=samsa-source',
  '--import',
  import.meta.resolve('tsx'),
];
/**
 * The flags a block runs with: none when the suite runs compiled (the package's exports name
 * dist/), else the sources'.
 */
const BLOCK_NODE_FLAGS: readonly string[] = COMPILED ? [] : SOURCE_NODE_FLAGS;
/** What the `samsa` command runs: the package's bin (over dist/) or the CLI's source. */
const SAMSA_COMMAND: readonly string[] = COMPILED
  ? [join(REPO_ROOT, 'bin/samsa.js')]
  : [...BLOCK_NODE_FLAGS, join(REPO_ROOT, 'src/cli/main.ts')];

export type BlockKind = 'script' | 'shell' | 'other';

export interface DocBlock {
  /** Path relative to the repository root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly lang: string;
  readonly kind: BlockKind;
  readonly code: string;
  /** Reason given by a `not-run` marker. */
  readonly notRun?: string;
  /** Text given by a `run-until` marker. */
  readonly runUntil?: string;
}

const SCRIPT_LANGS = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs', 'mts']);
const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'zsh']);
const MARKER = /^<!--\s*(not-run|run-until):\s*(.*?)\s*-->$/;

export function kindOf(lang: string): BlockKind {
  const l = lang.toLowerCase();
  if (SCRIPT_LANGS.has(l)) return 'script';
  if (SHELL_LANGS.has(l)) return 'shell';
  return 'other';
}

/** Every fenced block of a Markdown text, with its marker if it has one. */
export function extractBlocks(markdown: string, file: string): DocBlock[] {
  const lines = markdown.split('\n');
  const out: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    const lang = open[2] ?? '';
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`).test(lines[j]!)) {
      body.push(lines[j]!);
      j++;
    }
    if (j === lines.length) throw new Error(`${file}:${i + 1}: unclosed code fence`);
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const marker = k >= 0 ? MARKER.exec(lines[k]!.trim()) : null;
    if (marker !== null && marker[2] === '')
      throw new Error(`${file}:${k + 1}: ${marker[1]} marker without text`);
    out.push({
      file,
      line: i + 1,
      lang,
      kind: kindOf(lang),
      code: `${body.join('\n')}\n`,
      ...(marker?.[1] === 'not-run' ? { notRun: marker[2]! } : {}),
      ...(marker?.[1] === 'run-until' ? { runUntil: marker[2]! } : {}),
    });
    i = j;
  }
  return out;
}

/** The documentation's broker address (Kafka's default port) replaced by the test broker's. */
export function pointAt(code: string, bootstrap: string): string {
  return code.replace(/\b(?:localhost|127\.0\.0\.1):9092\b/g, bootstrap);
}

/**
 * A scratch project outside the repository, as a user's would be: `node_modules/samsa` is a
 * symlink to this repository, `samsa` (and `npx samsa`, rewritten to it) is a script on the
 * PATH running the CLI. `compile()` turns its TypeScript blocks into JavaScript.
 */
export class ScratchProject {
  /** The JavaScript tsc made of each compiled TypeScript block. */
  private readonly compiled = new Map<DocBlock, string>();
  private compilations = 0;

  private constructor(
    readonly dir: string,
    readonly binDir: string,
  ) {}

  static async create(): Promise<ScratchProject> {
    const dir = await mkdtemp(join(tmpdir(), 'samsa-docs-'));
    await writeFile(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
    await mkdir(join(dir, 'node_modules'));
    await symlink(REPO_ROOT, join(dir, 'node_modules', 'samsa'), 'dir');
    const binDir = join(dir, 'bin');
    await mkdir(binDir);
    const shim = join(binDir, 'samsa');
    const args = [process.execPath, ...SAMSA_COMMAND].map((a) => `'${a}'`).join(' ');
    await writeFile(shim, `#!/bin/sh\nexec ${args} "$@"\n`);
    await chmod(shim, 0o755);
    return new ScratchProject(dir, binDir);
  }

  /**
   * Compiles the TypeScript blocks among `blocks` with tsc in this project, as a user's strict
   * project would (`samsa` through "exports": the sources' types from source, else dist/'s
   * .d.ts). Returns the diagnostics that point into the blocks, as `file:line:col message` of
   * the Markdown file; errors inside src/ are the suite's own type-check's business. tsc emits
   * despite type errors, so the blocks still run and fail or pass on their own.
   */
  async compile(blocks: readonly DocBlock[]): Promise<string[]> {
    const ts = blocks.filter((b) => b.kind === 'script' && TS_LANGS.has(b.lang.toLowerCase()));
    if (ts.length === 0) return [];
    const name = `tsc-${++this.compilations}`;
    const src = join(this.dir, name);
    const out = join(this.dir, `${name}-out`);
    await mkdir(src);
    const compilerOptions = {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      lib: ['es2023'],
      strict: true,
      skipLibCheck: true,
      ...(COMPILED ? {} : { customConditions: ['samsa-source'] }),
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
      rootDir: src,
      outDir: out,
    };
    const tsconfig = join(this.dir, `${name}.json`);
    await writeFile(tsconfig, JSON.stringify({ compilerOptions, include: [`${name}/*.mts`] }));
    await Promise.all(ts.map((b, i) => writeFile(join(src, `block-${i}.mts`), b.code)));
    const child = spawn(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', tsconfig, '--pretty', 'false'],
      { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const r = await supervise(child, undefined, scaled(120_000));
    if (r.timedOut) return [`tsc timed out after ${scaled(120_000)} ms`];
    for (const [i, b] of ts.entries()) {
      const js = await readFile(join(out, `block-${i}.mjs`), 'utf8').catch(() => null);
      if (js !== null) this.compiled.set(b, js);
    }
    const diagnostics: string[] = [];
    for (const line of `${r.stdout}${r.stderr}`.split('\n')) {
      const m = /block-(\d+)\.mts\((\d+),(\d+)\): (.*)$/.exec(line);
      if (m === null) continue;
      const b = ts[Number(m[1])]!;
      diagnostics.push(`${b.file}:${b.line + Number(m[2])}:${m[3]} ${m[4]}`);
    }
    return diagnostics;
  }

  /** The JavaScript to run for a script block (a TypeScript one is compiled first if it was not). */
  async javascriptOf(block: DocBlock): Promise<string> {
    if (!TS_LANGS.has(block.lang.toLowerCase())) return block.code;
    if (!this.compiled.has(block)) await this.compile([block]);
    const js = this.compiled.get(block);
    if (js === undefined) throw new Error(`${block.file}:${block.line}: tsc produced no JavaScript`);
    return js;
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

export interface RunResult {
  /** Exit status, or the signal name that ended the process. */
  readonly status: number | string;
  readonly stdout: string;
  readonly stderr: string;
  /** The block did not finish (or, with run-until, did not print its text) in time. */
  readonly timedOut: boolean;
}

let counter = 0;

/** Runs one block in the scratch project against `bootstrap`; never throws for a failing block. */
export async function runBlock(
  project: ScratchProject,
  block: DocBlock,
  bootstrap: string,
  timeoutMs = 120_000,
): Promise<RunResult> {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${project.binDir}:${process.env.PATH ?? ''}` };
  // A block that runs node:test itself must report as a standalone script, not to our runner.
  delete env.NODE_TEST_CONTEXT;
  let child: ChildProcess;
  if (block.kind === 'script') {
    const file = join(project.dir, `block-${++counter}.mjs`);
    await writeFile(file, pointAt(await project.javascriptOf(block), bootstrap));
    child = spawn(process.execPath, [...BLOCK_NODE_FLAGS, file], {
      cwd: project.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  } else if (block.kind === 'shell') {
    const script = pointAt(block.code, bootstrap).replace(/\bnpx samsa\b/g, 'samsa');
    child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: project.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
  } else {
    throw new Error(`${block.file}:${block.line}: a ${JSON.stringify(block.lang)} block cannot be run`);
  }
  return supervise(child, block.runUntil, scaled(timeoutMs));
}

function supervise(child: ChildProcess, until: string | undefined, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let signalled = false;
    // Signals go to the whole process group (bash and what it started).
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, s);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      signal('SIGKILL');
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (until !== undefined && !signalled && stdout.includes(until)) {
        signalled = true;
        signal('SIGTERM');
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      // A run-until block that ended before printing its text did not do what it shows.
      const missing = until !== undefined && !signalled;
      resolve({
        status:
          missing && code === 0 ? `exited before printing ${JSON.stringify(until)}` : (code ?? sig ?? -1),
        stdout,
        stderr,
        timedOut,
      });
    });
  });
}

const TS_LANGS = new Set(['ts', 'typescript', 'mts']);

/** Type-checks the TypeScript blocks in a project of their own; see `ScratchProject.compile()`. */
export async function typeCheckBlocks(blocks: readonly DocBlock[]): Promise<string[]> {
  const project = await ScratchProject.create();
  try {
    return await project.compile(blocks);
  } finally {
    await project.remove();
  }
}

/** A failure message with the block, where it is, and the tail of what it printed. */
export function describeFailure(block: DocBlock, r: RunResult, timeoutMs: number): string {
  const tail = (s: string) => (s.length > 4000 ? `…${s.slice(-4000)}` : s);
  const what = r.timedOut
    ? block.runUntil !== undefined
      ? `timed out after ${timeoutMs} ms waiting for ${JSON.stringify(block.runUntil)} and a clean exit`
      : `timed out after ${timeoutMs} ms`
    : `exited with ${r.status}`;
  return [
    `${block.file}:${block.line} (${block.lang}) ${what}`,
    '--- block ---',
    block.code.trimEnd(),
    '--- stdout ---',
    tail(r.stdout),
    '--- stderr ---',
    tail(r.stderr),
    '(mark a block that is not meant to run with <!-- not-run: reason --> before its fence)',
  ].join('\n');
}
