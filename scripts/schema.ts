/** `npm run schema:write` writes schema/schema.graphql from the code; `schema:check` fails when they differ. */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { printedSchema } from '../src/graphql/schema.ts';

const path = new URL('../schema/schema.graphql', import.meta.url).pathname;
const sdl = printedSchema();
if (process.argv.includes('--write')) {
  mkdirSync(new URL('../schema/', import.meta.url).pathname, { recursive: true });
  writeFileSync(path, sdl);
  console.log(`Wrote ${path}`);
} else {
  const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (committed !== sdl) {
    console.error('schema/schema.graphql is out of date: run `npm run schema:write` and commit it.');
    process.exit(1);
  }
  console.log('schema/schema.graphql matches the code.');
}
