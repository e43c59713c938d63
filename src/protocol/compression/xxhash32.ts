// XXH32, needed only to recompute an LZ4 frame-descriptor checksum (the HC byte) when reading
// magic-0 messages whose producers computed it over the wrong bytes (KAFKA-3160).
const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function read32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

function round(acc: number, input: number): number {
  return Math.imul(rotl((acc + Math.imul(input, P2)) | 0, 13), P1);
}

export function xxhash32(b: Uint8Array, start = 0, end = b.length, seed = 0): number {
  let i = start;
  let h: number;
  if (end - start >= 16) {
    let v1 = (seed + P1 + P2) | 0;
    let v2 = (seed + P2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - P1) | 0;
    for (; i + 16 <= end; i += 16) {
      v1 = round(v1, read32(b, i));
      v2 = round(v2, read32(b, i + 4));
      v3 = round(v3, read32(b, i + 8));
      v4 = round(v4, read32(b, i + 12));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + P5) | 0;
  }
  h = (h + (end - start)) | 0;
  for (; i + 4 <= end; i += 4) h = Math.imul(rotl((h + Math.imul(read32(b, i), P3)) | 0, 17), P4);
  for (; i < end; i++) h = Math.imul(rotl((h + Math.imul(b[i]!, P5)) | 0, 11), P1);
  h ^= h >>> 15;
  h = Math.imul(h, P2);
  h ^= h >>> 13;
  h = Math.imul(h, P3);
  h ^= h >>> 16;
  return h >>> 0;
}
