/** `npm run openapi:write` writes schema/openapi.json from the code; `openapi:check` fails when they differ. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { openApiJson } from '../rest-compat/openapi/document.ts';

const path = new URL('../schema/openapi.json', import.meta.url).pathname;
const json = openApiJson();
if (process.argv.includes('--write')) {
  mkdirSync(new URL('../schema/', import.meta.url).pathname, { recursive: true });
  writeFileSync(path, json);
  console.log(`Wrote ${path}`);
} else {
  const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
  if (committed !== json) {
    console.error('schema/openapi.json is out of date: run `npm run openapi:write` and commit it.');
    process.exit(1);
  }
  console.log('schema/openapi.json matches the code.');
}
