// The native codec libraries, loaded on first use. Loading snappy, lz4-napi and zstd (dlopen of
// three shared objects plus their platform-detection code) took ~90 ms of CPU at every process
// start, also in processes that never meet a compressed batch (a broker whose clients do not
// compress, a CLI command, a test). `require` keeps the sync codecs sync: the packages are
// CommonJS, so they load synchronously at the first call.
import { createRequire } from 'node:module';

type Snappy = typeof import('snappy');
type Lz4 = typeof import('lz4-napi');
type Zstd = typeof import('@mongodb-js/zstd');

const load = createRequire(import.meta.url);

let snappy: Snappy | undefined;
let lz4: Lz4 | undefined;
let zstd: Zstd | undefined;

export function snappyLib(): Snappy {
  snappy ??= load('snappy') as Snappy;
  return snappy;
}

export function lz4Lib(): Lz4 {
  lz4 ??= load('lz4-napi') as Lz4;
  return lz4;
}

export function zstdLib(): Zstd {
  zstd ??= load('@mongodb-js/zstd') as Zstd;
  return zstd;
}
