/**
 * /openapi.json serves the clients people use: openapi-typescript generates types from the served document, and a
 * small openapi-fetch client that reads every documented field of every success response (and `code` and `data` of
 * every error body) type-checks under `strict`. A field whose schema is exactly `{"type": "null"}` vanishes from
 * openapi-fetch's response types (its Readable<> drops keys whose non-null part is never): the control below shows
 * the check catches that.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

type Json = Record<string, any>;

let t: TestApp;
let doc: Json;
beforeAll(async () => {
  t = await startTestApp();
  doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as Json;
});
afterAll(async () => {
  await t?.stop();
});

/** Statements reading every property of `schema` from `expr` (optional chaining past a nullable value). */
function reads(schema: Json, expr: string, nullable: boolean, depth = 0): string[] {
  if (depth > 8) return [];
  if (schema.$ref) return reads(doc.components.schemas[schema.$ref.split('/').pop()], expr, nullable, depth);
  if (schema.anyOf) {
    const rest = (schema.anyOf as Json[]).filter((s) => s.type !== 'null');
    return rest.length === 1 ? reads(rest[0], expr, nullable || rest.length < schema.anyOf.length, depth) : [];
  }
  const dot = nullable ? '?.' : '.';
  if (schema.type === 'array' && schema.items) return reads(schema.items, `${expr}${nullable ? '?.' : ''}[0]`, nullable, depth + 1);
  const types = ([] as string[]).concat(schema.type ?? []);
  const out: string[] = [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const at = `${expr}${dot}${name}`;
    out.push(`read(${at});`);
    const nullableProperty = nullable || (property.type as unknown) === 'null' || [].concat(property.type ?? []).includes('null' as never) || !!property.anyOf;
    out.push(...reads(property, at, nullableProperty || types.includes('null'), depth + 1));
  }
  return out;
}

/** The client: for each operation, one call whose data and error are read field by field. */
function clientSource(document: Json): { source: string; fields: number } {
  const lines = ["import createClient from 'openapi-fetch';", "import type { paths } from './api.ts';", 'const read = (_value: unknown): void => {};',
    '// Any parameters and body: only the response types are checked here.',
    'type Init = { params: never; body: never };', 'const client = createClient<paths>({ baseUrl: "http://localhost" });'];
  let fields = 0;
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item as Record<string, Json>)) {
      const body: string[] = [];
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const schema = response.content?.['application/json']?.schema;
        if (!schema || !status.startsWith('2')) continue;
        body.push(...reads(schema, 'r.data', false));
      }
      const errorReads = ['read(r.error.code);', 'read(r.error.data);'];
      const errors = Object.keys(op.responses).some((s) => !s.startsWith('2')) && op.tags[0] !== 'OAuth apps' && op.tags[0] !== 'Bank notifications';
      fields += body.length + (errors ? errorReads.length : 0);
      lines.push(
        `export async function ${op.operationId}() {`,
        `  const r = await client.${method.toUpperCase()}(${JSON.stringify(path)}, {} as Init);`,
        `  if (r.data) {`,
        ...body.map((l) => `    ${l}`),
        `  }`,
        ...(errors ? ['  if (r.error) {', ...errorReads.map((l) => `    ${l}`), '  }'] : []),
        `}`,
      );
    }
  }
  return { source: lines.join('\n') + '\n', fields };
}

/** Generates the types of `document`, writes the client next to them, and type-checks both (strict): the diagnostics. */
async function typeCheck(document: Json): Promise<{ diagnostics: string[]; fields: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'btp-openapi-client-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(document as never)));
    const { source, fields } = clientSource(document);
    writeFileSync(join(dir, 'client.ts'), source);
    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    return { diagnostics, fields };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('an openapi-fetch client typed from /openapi.json by openapi-typescript', () => {
  it('reads every documented field of every response and type-checks (deletedAt and V1Deleted.data included)', async () => {
    const { diagnostics, fields } = await typeCheck(doc);
    expect(diagnostics).toEqual([]);
    expect(fields).toBeGreaterThan(300);
    const source = clientSource(doc).source;
    expect(source).toContain('read(r.data.data.deletedAt);');
    expect(source).toContain('read(r.data.data.bankAccount.deletedAt);');
  }, 120_000);

  it('control: a field spelled exactly {"type": "null"} vanishes from the client\'s types, and the check says so', async () => {
    const broken = structuredClone(doc);
    broken.components.schemas.V1Invoice.properties.deletedAt = { type: 'null' };
    broken.components.schemas.V1Deleted.properties.data = { type: 'null' };
    const { diagnostics } = await typeCheck(broken);
    expect(diagnostics.some((d) => d.includes("Property 'deletedAt' does not exist"))).toBe(true);
    expect(diagnostics.some((d) => d.includes("Property 'data' does not exist on type '{ code: \"DELETED\"; }'"))).toBe(true);
  }, 120_000);

  it('spells every always-null field so it survives: no schema outside a union is exactly {"type": "null"}', () => {
    const exact: string[] = [];
    const walk = (node: unknown, at: string, inUnion: boolean) => {
      if (Array.isArray(node)) return node.forEach((x, i) => walk(x, `${at}/${i}`, inUnion));
      if (!node || typeof node !== 'object') return;
      if ((node as Json).type === 'null' && !inUnion) exact.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`, k === 'anyOf' || k === 'oneOf');
    };
    walk(doc, '', false);
    expect(exact).toEqual([]);
    expect(doc.components.schemas.V1Invoice.properties.deletedAt).toMatchObject({ type: ['string', 'null'], const: null });
  });
});
