/**
 * The machine-readable API description and its reference page: `GET /openapi.json` (OpenAPI 3.1, built from the zod
 * schemas by rest-compat/openapi) and `GET /docs`, Swagger UI rendering it from files served out of
 * node_modules/swagger-ui-dist (no CDN: the page works offline).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DomainError } from '../domain/errors.ts';
import { openApiJson } from '../../rest-compat/openapi/document.ts';
import { errorResponse } from '../../rest-compat/shared/face-errors.ts';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

let assetDir: string | null = null;
const assetPath = (name: string) => join((assetDir ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))), name);

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Bank-transfer payments API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/reference.js"></script>
</body>
</html>
`;

// Its own file rather than an inline script, so the page works under a strict Content-Security-Policy.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  displayOperationId: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'BaseLayout',
});
`;

const headers = (type: string, extra: Record<string, string> = {}) => ({ 'content-type': type, 'x-content-type-options': 'nosniff', ...extra });

/**
 * The page's Content-Security-Policy: everything from this origin (Swagger UI's bundle, its stylesheet, the reference
 * script; "Try it out" calls this origin's API), inline styles (Swagger UI sets style attributes), data: images (its
 * icons); never framed.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Answers GET /openapi.json, /docs and the page's assets; null for any other path. */
export async function handleApiDocs(request: Request, path: string): Promise<Response | null> {
  const isDocs = path === '/openapi.json' || path === '/docs' || path === '/docs/' || path === '/docs/reference.js' || path.startsWith('/docs/assets/');
  if (!isDocs) return null;
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return errorResponse('bank', new DomainError('METHOD_NOT_ALLOWED', { message: 'Use GET.' }), { headers: { 'x-content-type-options': 'nosniff', allow: 'GET, HEAD' } });
  }
  if (path === '/openapi.json') return new Response(openApiJson(), { headers: headers('application/json; charset=utf-8', { 'access-control-allow-origin': '*' }) });
  if (path === '/docs' || path === '/docs/') return new Response(PAGE, { headers: headers('text/html; charset=utf-8', { 'content-security-policy': DOCS_CSP, 'referrer-policy': 'no-referrer' }) });
  if (path === '/docs/reference.js') return new Response(INIT, { headers: headers('text/javascript; charset=utf-8') });
  const name = path.slice('/docs/assets/'.length);
  // Own keys only: `constructor`, `__proto__` or `toString` are not files (they were read from disk and answered 500).
  const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!type) return errorResponse('bank', new DomainError('ROUTE_NOT_FOUND', { message: 'No such file.' }), { headers: { 'x-content-type-options': 'nosniff' } });
  return new Response(await readFile(assetPath(name)), { headers: headers(type, { 'cache-control': 'public, max-age=86400' }) });
}
