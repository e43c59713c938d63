// Built-in assignors by their Kafka names ("partition.assignment.strategy").
import type { PartitionAssignor } from './assignor.js';
import { rangeAssignor } from './range.js';
import { roundRobinAssignor } from './round-robin.js';
import { cooperativeStickyAssignor, stickyAssignor } from './sticky.js';

export * from './assignor.js';
export { rangeAssignor } from './range.js';
export { roundRobinAssignor } from './round-robin.js';
export { cooperativeStickyAssignor, stickyAssignor } from './sticky.js';

export const BUILTIN_ASSIGNORS: Record<string, () => PartitionAssignor> = {
  range: rangeAssignor,
  roundrobin: roundRobinAssignor,
  sticky: stickyAssignor,
  'cooperative-sticky': cooperativeStickyAssignor,
};
