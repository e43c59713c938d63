// Used with `node --import`: appends the URL of every module the ESM loader loads (one per line)
// to the file named by SAMSA_LOAD_LOG, so a test can tell which of our sources an import evaluated.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.SAMSA_LOAD_LOG, url + '\\n');
  return next(url, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
