// Compression codec ids as stored in bits 0-2 of the batch attributes (`CompressionType.java`).

export const CompressionCodec = {
  NONE: 0,
  GZIP: 1,
  SNAPPY: 2,
  LZ4: 3,
  ZSTD: 4,
} as const;

export type CompressionCodecId = (typeof CompressionCodec)[keyof typeof CompressionCodec];
export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

const NAMES: readonly CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

/** Accepts a codec name or id; returns the id, or -1 if it is not a known codec. */
export function codecId(codec: CompressionName | number): number {
  if (typeof codec === 'number') return codec >= 0 && codec <= 4 && Number.isInteger(codec) ? codec : -1;
  return NAMES.indexOf(codec);
}

export function codecName(id: number): CompressionName | undefined {
  return NAMES[id];
}
