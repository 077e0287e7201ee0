/**
 * Typed errors: mutations outside the fixed dashboard contract return their payload or a `DomainError` (code as in REST,
 * message, field path, the spec's `data`); the contract mutations report errors as GraphQL errors with extensions.code.
 */
import { DomainError, publicCode } from '../../domain/errors.ts';
import { builder } from '../builder.ts';

export const ErrorInterface = builder.interfaceRef<Error & { code?: string }>('Error').implement({
  description: 'Something the operation refused to do.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, for people.' }),
    code: t.string({ description: 'Stable machine-readable code (e.g. INVOICE_ALREADY_EXISTS).', resolve: (e, _args, ctx) => {
        const code = (e as DomainError).code;
        if (!code) return 'INTERNAL_SERVER_ERROR';
        // The REST faces read the domain's own code (v1 answers 403 for another workspace's resource).
        return (ctx as { domainCodes?: boolean }).domainCodes ? code : publicCode(code);
      } }),
  }),
});

builder.objectType(DomainError, {
  name: 'DomainError',
  description: 'A rule of the API refused the operation.',
  interfaces: [ErrorInterface],
  isTypeOf: (v) => v instanceof DomainError,
  fields: (t) => ({
    field: t.stringList({ nullable: true, description: 'Path of the input field at fault, for validation errors.', resolve: (e) => e.path }),
    data: t.field({ type: 'JSON', nullable: true, description: 'Details (e.g. invoiceId and number of a conflicting invoice).', resolve: (e) => jsonSafe(e.data) }),
  }),
});

/** Error details as JSON (dates as ISO strings). */
function jsonSafe(data: Record<string, unknown> | null): unknown {
  return data === null ? null : JSON.parse(JSON.stringify(data));
}

/** The field option every non-contract mutation uses. */
export const domainErrors: { types: (typeof DomainError)[] } = { types: [DomainError] };
