// The storage layer's LogConfig for a topic, from its overrides over the broker's values. The
// deprecated `message.timestamp.difference.max.ms` feeds the same fields as the newer
// before/after keys, so it is passed on only when someone actually set it; otherwise its
// Long.MAX default would silently cancel a `message.timestamp.before.max.ms` override.

import { type LogConfig, logConfigFromProperties } from '../../storage/index.js';
import { LONG_MAX } from './config-def.js';
import type { ConfigResolver } from './config-resolver.js';

const DEPRECATED_DIFF = 'message.timestamp.difference.max.ms';

export function logConfigFor(
  configs: ConfigResolver,
  overrides: Readonly<Record<string, string>>,
): Partial<LogConfig> {
  const props = configs.topicProps(overrides);
  if (props[DEPRECATED_DIFF] === LONG_MAX) delete props[DEPRECATED_DIFF];
  return logConfigFromProperties(props);
}
