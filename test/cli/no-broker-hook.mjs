// `node --import ./no-broker-hook.mjs`: fails any import of a broker or storage module, so a
// test can prove that a command never loads the broker. The one exception is the Java
// .properties parser in broker/config, a leaf module (it imports nothing) that
// --command-config shares with `samsa start`.
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (/\\/src\\/(broker|storage)\\//.test(r.url) && !/\\/src\\/broker\\/config\\/properties\\.[jt]s$/.test(r.url))
    throw new Error('the broker was loaded: ' + r.url);
  return r;
}
`)}`,
);
