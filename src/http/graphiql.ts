/**
 * GraphiQL on GET /graphql without a CDN: Yoga's GraphiQL (the build bundled in @graphql-yoga/render-graphiql, the
 * same one Yoga's default page loads from unpkg) served by the service itself under /graphql/assets/, so the page works
 * offline and under a Content-Security-Policy that allows this origin only.
 */
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { DomainError } from '../domain/errors.ts';
import { errorResponse } from '../../rest-compat/shared/face-errors.ts';

export const GRAPHIQL_ASSETS_PREFIX = '/graphql/assets/';

/**
 * The page's options: subscriptions over SSE, so the headers editor's Authorization goes with them (graphql-ws would
 * not send it); every request carries the CSRF-prevention header, which a cross-site form cannot.
 */
export const GRAPHIQL_OPTIONS: GraphiQLOptions = {
  title: 'Bank-transfer payments — GraphQL',
  subscriptionsProtocol: 'SSE',
  additionalHeaders: { 'x-graphql-csrf': 'graphiql' },
};

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

/**
 * Sets Monaco's worker URLs, then renders GraphiQL once the bundle (the next script) has run. The page's options are
 * read from a JSON data block: no inline script, so `script-src 'self'` holds.
 */
const START = `self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (moduleId, label) {
    return '${GRAPHIQL_ASSETS_PREFIX}' + (label === 'json' || label === 'graphql' ? label : 'editor') + '.worker.js';
  },
};
document.addEventListener('DOMContentLoaded', function () {
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
});
`;

const gzip = promisify(gzipCallback);
const JS = 'text/javascript; charset=utf-8';

/** Each asset: its content type and how to read it from the bundle. */
const ASSETS: Record<string, { type: string; body: (b: Bundle) => string | Buffer }> = {
  'start.js': { type: JS, body: () => START },
  'graphiql.js': { type: JS, body: (b) => b.js },
  'graphiql.css': { type: 'text/css; charset=utf-8', body: (b) => b.css },
  'editor.worker.js': { type: JS, body: (b) => b.editorWorkerService },
  'json.worker.js': { type: JS, body: (b) => b.jsonWorker },
  'graphql.worker.js': { type: JS, body: (b) => b.graphqlWorker },
  'favicon.ico': { type: 'image/x-icon', body: (b) => Buffer.from(b.favicon.slice(b.favicon.indexOf(',') + 1), 'base64') },
};

/**
 * This origin only. Styles allow 'unsafe-inline' because React and Monaco set style attributes and insert <style>
 * elements at run time; fonts and some icons are data: URLs inside the stylesheet. connect-src 'self': queries,
 * introspection and subscriptions (SSE) all go to this origin's /graphql.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = { 'content-security-policy': GRAPHIQL_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };

/** GraphiQL's page for Yoga's `renderGraphiQL`: scripts and styles from /graphql/assets/, options as JSON data. */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  const title = String(options.title ?? 'GraphiQL').replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  // `<` escaped so that no option value can close the data block.
  const data = JSON.stringify(options).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <link rel="icon" href="${GRAPHIQL_ASSETS_PREFIX}favicon.ico">
  <link rel="stylesheet" href="${GRAPHIQL_ASSETS_PREFIX}graphiql.css">
</head>
<body id="body" class="no-focus-outline">
  <noscript>GraphiQL needs JavaScript.</noscript>
  <div id="root"></div>
  <script id="graphiql-options" type="application/json">${data}</script>
  <script src="${GRAPHIQL_ASSETS_PREFIX}start.js"></script>
  <script src="${GRAPHIQL_ASSETS_PREFIX}graphiql.js"></script>
</body>
</html>
`;
}

/** Yoga plugin: GraphiQL's page (the only HTML Yoga answers) gets the Content-Security-Policy and a charset. */
export function useGraphiQLHeaders(): Plugin {
  return {
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (request.method !== 'GET' || !response.headers.get('content-type')?.startsWith('text/html')) return;
      // A new response rather than headers.set: Yoga's 'Content-Type' would be kept beside a set 'content-type'.
      setResponse(new fetchAPI.Response(response.body, { status: response.status, headers: { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' } }));
    },
  };
}

/** The assets read once from the bundle (about 9 MB, loaded on first use), each also gzipped (about 2.5 MB in all). */
let loaded: Promise<Map<string, { body: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer> }>> | null = null;
function assets() {
  loaded ??= import('@graphql-yoga/render-graphiql/graphiql').then(async (bundle) => {
    const map = new Map<string, { body: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer> }>();
    for (const [name, a] of Object.entries(ASSETS)) {
      const v = a.body(bundle);
      const body = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
      // zlib's thread pool, not the event loop: requests go on being served meanwhile.
      map.set(name, { body: new Uint8Array(body), gzip: new Uint8Array(await gzip(body)) });
    }
    return map;
  });
  loaded.catch(() => (loaded = null));
  return loaded;
}

const nosniff = { 'x-content-type-options': 'nosniff' };

/** Answers GET /graphql/assets/<name>: GraphiQL's scripts, workers, stylesheet and icon (gzipped when accepted). */
export async function handleGraphiQLAsset(request: Request, path: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return errorResponse('bank', new DomainError('METHOD_NOT_ALLOWED', { message: 'Use GET.' }), { headers: { ...nosniff, allow: 'GET, HEAD' } });
  }
  const name = path.slice(GRAPHIQL_ASSETS_PREFIX.length);
  const asset = Object.hasOwn(ASSETS, name) ? (await assets()).get(name) : undefined;
  if (!asset) return errorResponse('bank', new DomainError('ROUTE_NOT_FOUND', { message: 'No such file.' }), { headers: nosniff });
  const gzipped = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  const headers: Record<string, string> = { ...SECURITY_HEADERS, 'content-type': ASSETS[name].type, 'cache-control': 'public, max-age=86400', vary: 'accept-encoding' };
  if (gzipped) headers['content-encoding'] = 'gzip';
  return new Response(request.method === 'HEAD' ? null : gzipped ? asset.gzip : asset.body, { headers });
}
