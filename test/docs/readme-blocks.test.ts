// The README (and every docs/*.md) runs as written: each TypeScript/JavaScript and shell block is
// executed, in document order, against one test broker (`localhost:9092` in the text becomes the
// test broker's address). A block that fails fails this test unless its fence is preceded by
// `<!-- not-run: reason -->`; `<!-- run-until: TEXT -->` runs a block that never ends by itself
// until it printed TEXT, then sends SIGTERM and expects a clean exit. See doc-blocks.ts.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import {
  type DocBlock,
  describeFailure,
  extractBlocks,
  pointAt,
  REPO_ROOT,
  runBlock,
  ScratchProject,
  typeCheckBlocks,
} from './doc-blocks.js';

const BLOCK_TIMEOUT_MS = 120_000;

const DOCS = [
  'README.md',
  ...readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
  // One page per client pattern (ordered parallel consumption, replay, ...).
  ...readdirSync(join(REPO_ROOT, 'docs/patterns'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/patterns/${f}`),
];

const blocks: DocBlock[] = DOCS.flatMap((file) =>
  extractBlocks(readFileSync(join(REPO_ROOT, file), 'utf8'), file),
);

describe('the harness', () => {
  test('finds fences, languages, line numbers and markers', () => {
    const md = [
      '# t',
      '```ts',
      "console.log('a')",
      '```',
      '',
      '<!-- not-run: starts a broker -->',
      '',
      '```sh',
      'npm start',
      '```',
      '<!-- run-until: ready -->',
      '~~~js',
      'x',
      '~~~',
      '```json',
      '{}',
      '```',
    ].join('\n');
    const got = extractBlocks(md, 'x.md').map(({ line, lang, kind, code, notRun, runUntil }) => ({
      line,
      lang,
      kind,
      code,
      notRun,
      runUntil,
    }));
    assert.deepEqual(got, [
      {
        line: 2,
        lang: 'ts',
        kind: 'script',
        code: "console.log('a')\n",
        notRun: undefined,
        runUntil: undefined,
      },
      {
        line: 8,
        lang: 'sh',
        kind: 'shell',
        code: 'npm start\n',
        notRun: 'starts a broker',
        runUntil: undefined,
      },
      { line: 12, lang: 'js', kind: 'script', code: 'x\n', notRun: undefined, runUntil: 'ready' },
      { line: 15, lang: 'json', kind: 'other', code: '{}\n', notRun: undefined, runUntil: undefined },
    ]);
    assert.throws(() => extractBlocks('```ts\nx\n', 'y.md'), /y\.md:1: unclosed/);
    assert.throws(
      () => extractBlocks('<!-- not-run: -->\n```ts\nx\n```\n', 'z.md'),
      /z\.md:1: not-run marker without/,
    );
  });

  test('type errors in a TypeScript block are reported at their Markdown line', async () => {
    const code = "import { Producer } from 'samsa/client';\nnew Producer({ bootstrapServers: 9092 });\n";
    const got = await typeCheckBlocks([{ file: 'x.md', line: 10, lang: 'ts', kind: 'script', code }]);
    assert.equal(got.length, 1, got.join('\n'));
    assert.match(got[0]!, /^x\.md:12:\d+ error TS\d+/);
  });

  test('rewrites the documented broker address', () => {
    assert.equal(
      pointAt("'localhost:9092' 127.0.0.1:9092 localhost:90921", '127.0.0.1:4321'),
      "'127.0.0.1:4321' 127.0.0.1:4321 localhost:90921",
    );
  });

  test('a block that fails or throws is reported as failed; `samsa` resolves in both kinds', async () => {
    const project = await ScratchProject.create();
    try {
      const block = (lang: string, code: string, runUntil?: string): DocBlock => ({
        file: 'x.md',
        line: 1,
        lang,
        kind: lang === 'sh' ? 'shell' : 'script',
        code,
        ...(runUntil !== undefined ? { runUntil } : {}),
      });
      const thrown = await runBlock(project, block('ts', "throw new Error('boom');\n"), '127.0.0.1:1');
      assert.notEqual(thrown.status, 0);
      assert.match(thrown.stderr, /boom/);
      const imported = await runBlock(
        project,
        block('ts', "import { WakeupError } from 'samsa';\nconsole.log(typeof WakeupError);\n"),
        '127.0.0.1:1',
      );
      assert.equal(imported.status, 0, imported.stderr);
      assert.equal(imported.stdout, 'function\n');
      const failedStep = await runBlock(project, block('sh', 'false\necho after\n'), '127.0.0.1:1');
      assert.notEqual(failedStep.status, 0, 'a failing command stops a shell block');
      const pipe = await runBlock(project, block('sh', 'false | cat\n'), '127.0.0.1:1');
      assert.notEqual(pipe.status, 0, 'pipefail');
      const help = await runBlock(project, block('sh', 'npx samsa --help\n'), '127.0.0.1:1');
      assert.equal(help.status, 0, help.stderr);
      assert.match(help.stdout, /Usage: samsa/);
      const early = await runBlock(
        project,
        block('ts', "console.log('x');\n", 'never printed'),
        '127.0.0.1:1',
      );
      assert.notEqual(early.status, 0, 'a run-until block that ends without its text failed');
      const looping = await runBlock(
        project,
        block(
          'ts',
          "process.once('SIGTERM', () => process.exit(0));\nconsole.log('ready');\nsetInterval(() => {}, 1000);\n",
          'ready',
        ),
        '127.0.0.1:1',
      );
      assert.equal(looping.status, 0, looping.stderr);
    } finally {
      await project.remove();
    }
  });
});

describe('documentation blocks', () => {
  let broker: TestBroker;
  let project: ScratchProject;

  before(async () => {
    // No block is about the initial rebalance delay (3 s by default): each group a block forms
    // would wait it out.
    broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
    project = await ScratchProject.create();
  });

  after(async () => {
    await project?.remove();
    await broker?.close();
  });

  test('the README has blocks to run', () => {
    assert.ok(blocks.filter((b) => b.kind !== 'other' && b.notRun === undefined).length >= 3);
  });

  // One tsc run checks every block and compiles them for the runs below.
  test('the TypeScript blocks type-check in a strict project', {
    timeout: scaled(120_000) + 10_000,
  }, async () => {
    assert.deepEqual(await project.compile(blocks.filter((b) => b.notRun === undefined)), []);
  });

  for (const block of blocks) {
    if (block.kind === 'other') continue;
    const name = `${block.file}:${block.line} (${block.lang})`;
    if (block.notRun !== undefined) {
      // Not run here, and never silently: the marker must say why (and where it runs, if it does).
      const reason = block.notRun;
      test(`${name} is marked not-run with a reason: ${reason}`, () => {
        assert.ok(reason.length >= 10, `${name}: a not-run marker needs a real reason`);
      });
      continue;
    }
    test(name, { timeout: scaled(BLOCK_TIMEOUT_MS) + 10_000 }, async () => {
      const r = await runBlock(project, block, broker.bootstrap, BLOCK_TIMEOUT_MS);
      assert.ok(r.status === 0 && !r.timedOut, describeFailure(block, r, scaled(BLOCK_TIMEOUT_MS)));
    });
  }
});
