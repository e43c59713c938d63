// Keeps the consumer's Fetch frames in glibc's heap instead of fresh pages from the kernel.
//
// A Fetch answer arrives in a frame buffer of its own (`src/net/connection.ts`), up to
// max.partition.fetch.bytes (1 MiB by default) per partition, and the records handed to the
// application view it, so it is never reused: V8 frees the frames that died at each scavenge,
// up to a young generation's worth of records (~16 MiB of 1 KiB records) at a time. glibc's
// malloc serves a block from its heap only below its mmap threshold, and hands the top of the
// heap back to the kernel whenever more than its trim threshold lies free there. Both start at 128 KiB and move only when a block that was mmapped
// is freed: to that block's size and twice that (mallopt(3), "dynamic mmap threshold"). After
// the first ~1 MiB frame they stand at ~1 and ~2 MiB, so every scavenge's freed frames go back
// to the kernel and the next frames fault their pages in again: 15–60 page faults per 1,000
// records of 1 KiB, ~0.08 µs of CPU per record here (docs/benchmarks.md, "Consumer, second
// pass"). One block of RAISE_TO_BYTES, allocated untouched and dropped when the first consumer
// starts, is mmapped and freed at the next scavenge, which raises the thresholds to 16 and 32
// MiB for the process — what glibc does after any program frees a 16 MiB block. Measured:
// 16 MiB cuts the faults 3–8× and the consumer's CPU per record by 10–15 %; 4 MiB (8 MiB trim
// threshold, below one scavenge's worth of frames) by only half that. Cost: up to 32 MiB of free
// heap kept from the kernel (peak RSS of a 1 GB consumer run unchanged, 90–110 MB); frames up
// to 16 MiB come from the heap. Other allocators (musl, macOS) allocate and free 16 MiB once.
// The broker never calls this: its allocator keeps glibc's defaults.

const RAISE_TO_BYTES = 16 * 1024 * 1024;
let raised = false;

/** Raises glibc's mmap and trim thresholds to 16 and 32 MiB, once per process. */
export function raiseMallocThresholds(): void {
  if (raised) return;
  raised = true;
  // Uninitialized and never written: only the page holding malloc's block header is touched.
  Buffer.allocUnsafeSlow(RAISE_TO_BYTES);
}
