/**
 * The merchant dashboard's pages (README, "The dashboard"). Every path under /dashboard but the session's is the one
 * page of the app, which routes in the browser. /dashboard/assets/ holds its script and style sheet, built by
 * `npm run build` (scripts/build.mjs, also run by `npm install` and by `npm start` when stale) into dist/dashboard/.
 * Nothing loads from another origin: the Content-Security-Policy allows this service alone.
 */
import { readFile } from 'node:fs/promises';
import { DomainError } from '../domain/errors.ts';

const DIST_DASHBOARD = new URL('../../dist/dashboard/', import.meta.url);
const ASSETS_PREFIX = '/dashboard/assets/';
/** The bundle's files: app.js, app.css, and the chunks its screens load lazily (chunk-<hash>.js). */
const ASSET_NAME = /^[A-Za-z0-9_-]{1,64}\.(js|css)$/;
const ASSET_TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

/** The page's policy: scripts, styles, data and WebSocket of this service only; never framed. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** X-Frame-Options says what frame-ancestors says, for browsers that predate it. */
const SECURITY_HEADERS = { 'content-security-policy': DASHBOARD_CSP, 'x-frame-options': 'DENY', 'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin' };

const PAGE = `<!doctype html>
<html lang="ko">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard</title>
<link rel="stylesheet" href="${ASSETS_PREFIX}app.css">
<link rel="icon" type="image/svg+xml" href="${ASSETS_PREFIX}icon.svg">
</head>
<body>
<div id="app"></div>
<script type="module" src="${ASSETS_PREFIX}app.js"></script>
</body>
</html>
`;

/** The page's icon (a browser asks for /favicon.ico, a 404, without one): the won sign on the dashboard's blue. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/><path d="M7 9l4 14 5-11 5 11 4-14M6 15h20M6 19h20" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

/** GET /dashboard and below: the page, or one of its assets (null: no such asset, or another method). */
export async function handleDashboardPage(request: Request, path: string): Promise<Response | null> {
  if (request.method !== 'GET' && request.method !== 'HEAD') throw new DomainError('METHOD_NOT_ALLOWED', { message: 'Use GET.' });
  if (!path.startsWith(ASSETS_PREFIX)) {
    return new Response(request.method === 'HEAD' ? null : PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...SECURITY_HEADERS } });
  }
  const name = path.slice(ASSETS_PREFIX.length);
  if (name === 'icon.svg') {
    return new Response(request.method === 'HEAD' ? null : ICON, { headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400', ...SECURITY_HEADERS } });
  }
  const kind = ASSET_NAME.exec(name)?.[1];
  if (!kind) return null;
  const type = ASSET_TYPES[kind]!;
  let body: Buffer;
  try {
    body = await readFile(new URL(name, DIST_DASHBOARD));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    // No such chunk (an old page asking for a chunk of an earlier build, or a made-up name): 404; no bundle at all: 503.
    if (name !== 'app.js' && name !== 'app.css') return null;
    throw new DomainError('SERVICE_UNAVAILABLE', { message: 'The dashboard is not built: run `npm run build`.' });
  }
  {
    // A chunk is named by its content: cached for good. app.js and app.css keep their names: revalidated.
    const cache = name.startsWith('chunk-') ? 'public, max-age=31536000, immutable' : 'no-cache';
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers: { 'content-type': type, 'cache-control': cache, ...SECURITY_HEADERS } });
  }
}
