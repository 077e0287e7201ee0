/**
 * Text the database cannot store (U+0000, lone surrogates) is refused as VALIDATION_FAILED at its field by every
 * request parser (src/domain/request-schema.ts) and by every GraphQL argument (src/graphql/common/argument-checks.ts),
 * instead of reaching PostgreSQL and coming back as a 500. Found by the hostile-input fuzz (test/stress).
 */
import { execute, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { parseBankNotification } from '../../src/domain/deposits/bank-notification.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { parseCancelInvoiceRequest, parseCreateInvoiceInput } from '../../src/domain/invoices/invoice-input.ts';
import { parseInvoiceChanges } from '../../src/domain/invoices/update-invoice.ts';
import { isStorableText, unstorableTextPath } from '../../src/domain/request-schema.ts';
import { domainErrorOf, maskError } from '../../src/graphql/common/errors.ts';
import { schema } from '../../src/graphql/schema.ts';

function refusal(f: () => unknown): { code: string; path: string[] | null } | null {
  try {
    f();
    return null;
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { code: e.code, path: e.path };
  }
}

const invoice = { bankAccountIds: [], customer: { name: '홍길동' }, amount: 1000 };

describe('storable text', () => {
  it.each([
    ['plain', 'abc', true],
    ['Korean and emoji (a surrogate pair)', '홍길동😀', true],
    ['empty', '', true],
    ['NUL', 'a\u0000b', false],
    ['a lone high surrogate', 'a\ud800', false],
    ['a lone low surrogate', '\udc00a', false],
    ['a reversed pair', '\ude00\ud83d', false],
  ])('%s', (_name, text, ok) => {
    expect(isStorableText(text)).toBe(ok);
  });

  it('finds the first bad string or key, depth first, and survives very deep values', () => {
    expect(unstorableTextPath({ a: 'x', b: ['y', { c: 'z\u0000' }] })).toEqual(['b', '1', 'c']);
    expect(unstorableTextPath({ ok: 'x', ['k\u0000']: 'v' })).toEqual(['k\u0000']);
    expect(unstorableTextPath({ a: 1, b: null, c: [true, 2.5], d: new Date(0) })).toBeNull();
    let deep: unknown = 'leaf\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(unstorableTextPath(deep)).toHaveLength(200_000);
  });

  it.each([
    ['metadata value (the 500 the issue names)', () => parseCreateInvoiceInput({ ...invoice, metadata: { a: 'x\u0000' } }), ['metadata', 'a']],
    ['metadata key', () => parseCreateInvoiceInput({ ...invoice, metadata: { ['k\u0000']: 'v' } }), ['metadata', 'k\u0000']],
    ['customer name with a lone surrogate', () => parseCreateInvoiceInput({ ...invoice, customer: { name: 'a\ud800b' } }), ['customer', 'name']],
    ['customer e-mail with a lone surrogate', () => parseCreateInvoiceInput({ ...invoice, customer: { name: 'a', email: 'a\ud800@b.co' } }), ['customer', 'email']],
    ['update: name with a lone surrogate', () => parseInvoiceChanges({ customer: { name: 'x\udc00' } }, new Date()), ['customer', 'name']],
    ['v2 cancel reason', () => parseCancelInvoiceRequest({ reason: 'r\u0000' }), ['reason']],
    ['bank notification id', () => parseBankNotification({ notificationId: 'n\u0000', depositorName: 'a', amount: 1, receivedAt: new Date().toISOString() }), ['notificationId']],
  ])('parsers refuse it as VALIDATION_FAILED at the field: %s', (_name, f, path) => {
    expect(refusal(f)).toEqual({ code: 'VALIDATION_FAILED', path });
  });

  it('a field that breaks its own rule keeps its own code', () => {
    expect(refusal(() => parseCreateInvoiceInput({ ...invoice, customer: { name: 'a b\u0000' } }))).toEqual({ code: 'INVALID_CUSTOMER_NAME', path: ['customer', 'name'] });
    // U+0000 is a control character, which a customer name may not hold (depositor-name.ts isAcceptableInvoiceName).
    expect(refusal(() => parseCreateInvoiceInput({ ...invoice, customer: { name: 'a\u0000b' } }))).toEqual({ code: 'INVALID_CUSTOMER_NAME', path: ['customer', 'name'] });
    expect(refusal(() => parseInvoiceChanges({ customer: { name: 'x\u0000' } }, new Date()))).toEqual({ code: 'INVALID_CUSTOMER_NAME', path: ['customer', 'name'] });
  });

  it('GraphQL: any argument of any field is checked before its resolver runs (like a variable that does not coerce)', async () => {
    const principal = { kind: 'API_KEY', workspaceId: 'w', workspaceOwnerId: 'a', accountId: null, apiKeyId: 'k', oauthAppId: null, credentialId: 'k', name: 'k', readOnly: false, bankAccountIds: null };
    const run = async (query: string, variableValues: Record<string, unknown>, p: unknown = principal) =>
      (await execute({ schema, document: parse(query), contextValue: { principal: p, deps: {}, prisma: {}, requestId: 'r', bus: {} }, variableValues })).errors?.map((e) => {
        const d = domainErrorOf(e);
        return { code: d?.code, field: d?.path };
      });
    expect(await run('query($s: String) { invoicePage(offset: 0, limit: 1, filter: { search: $s }) { totalItems } }', { s: 'x\u0000' })).toEqual([{ code: 'VALIDATION_FAILED', field: ['filter', 'search'] }]);
    expect(await run('query($id: ID!) { transaction(id: $id) { id } }', { id: '\ud800' })).toEqual([{ code: 'VALIDATION_FAILED', field: ['id'] }]);
    // Public fields too (no principal needed to reach the database).
    expect(await run('mutation($i: LogInInput!) { logIn(input: $i) { token } }', { i: { email: 'a\u0000@b.co', password: 'x' } }, null)).toEqual([{ code: 'VALIDATION_FAILED', field: ['input', 'email'] }]);
  });
});

describe('GraphQL errors that used to be masked as INTERNAL_SERVER_ERROR', () => {
  it('a stack overflow while reading the document is the document’s fault', () => {
    const e = maskError(new RangeError('Maximum call stack size exceeded'), 'Unexpected error.');
    expect((e as { extensions?: { code?: string } }).extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  });

  it('JSON that does not parse (a GET’s variables parameter) is BAD_REQUEST with status 400', () => {
    let thrown: unknown;
    try {
      JSON.parse('???');
    } catch (err) {
      thrown = err;
    }
    const e = maskError(thrown, 'Unexpected error.') as { message: string; extensions?: { code?: string; http?: { status?: number } } };
    expect(e.extensions).toMatchObject({ code: 'BAD_REQUEST', http: { status: 400 } });
    expect(e.message).not.toContain('???');
  });

  it('a refusal without a code (document limits, CSRF prevention) gets one', async () => {
    const { GraphQLError } = await import('graphql');
    const code = (e: Error) => (e as unknown as { extensions: { code: string } }).extensions.code;
    expect(code(maskError(new GraphQLError('Syntax Error: Aliases limit of 30 exceeded, found 100.'), 'x'))).toBe('GRAPHQL_PARSE_FAILED');
    expect(code(maskError(new GraphQLError('Query depth limit of 12 exceeded'), 'x'))).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(code(maskError(new GraphQLError('Required CSRF header(s) not present', { extensions: { http: { status: 403 } } }), 'x'))).toBe('BAD_REQUEST');
  });
});
