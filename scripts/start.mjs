/**
 * `npm start` (`node <flags> scripts/start.mjs`) and `npm run cli` (`... scripts/start.mjs cli`): runs the bundle
 * (dist/main.js, dist/cli.js), building it first when it is missing or older than the sources, so an edited .ts file
 * runs at the next start. One process: the bundle is imported here, not spawned (a signal to this process reaches the
 * service itself).
 */
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { DIST, build, isStale } from './build.mjs';

const name = process.argv[2] === 'cli' ? 'cli' : 'main';
if (name === 'cli') process.argv.splice(2, 1); // the CLI reads its command from argv[2]

if (isStale()) {
  // stderr: the CLI's stdout is its JSON output.
  process.stderr.write('Building dist/ (missing, or older than the sources)...\n');
  await build();
}
// Stack traces point at the .ts sources through dist/*.js.map.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(DIST, `${name}.js`)).href);
