/**
 * The cash-receipt requests (spec: POST /v1/cash-receipts; v2 cancel, reissue, send-email) as zod schemas, fields in
 * the spec's order: the domain functions parse with them, the REST faces read bodies with them, and /openapi.json
 * describes the bodies from them. Rules that need the stored receipt are the operations' (cancel.ts, reissue.ts).
 */
import { z } from 'zod';
import { codePoints, fail, optionalBody, parseRequest } from '../request-schema.ts';
import { EMAIL_RE, MAX_WON } from '../validation.ts';
import { CASH_RECEIPT_TYPES, identifierFits, type CashReceiptTypeName } from './identifier.ts';

/** Longest cancel reason of a receipt, in characters. */
export const RECEIPT_CANCEL_REASON_MAX = 100;
/** Longest address a receipt is e-mailed to. */
export const RECEIPT_EMAIL_MAX = 100;

/** A required text field: missing → BAD_REQUEST "`name` is required." (v2 30007); anything else wrong → `code`. */
const requiredText = (name: string, code: 'RECEIPT_CANCEL_REASON_INVALID' | 'RECEIPT_EMAIL_INVALID') =>
  z.string({ error: (iss) => (iss.input === undefined || iss.input === null ? fail('BAD_REQUEST', `${name} is required.`) : fail(code)) });

/** The issue body (spec: POST /v1/cash-receipts): type in the enum (else BAD_REQUEST), identifier fit for the type, amount > 0. */
export const issueRequestSchema = z
  .object(
    {
      type: z.enum(CASH_RECEIPT_TYPES, { error: fail('INVALID_CASH_RECEIPT_TYPE') }),
      identifier: z
        .string({ error: fail('INVALID_CASH_RECEIPT_IDENTIFIER') })
        .meta({ description: 'PERSONAL: phone number (10-11 digits); CORPORATE: business registration number (10 digits); no hyphens.', pattern: '^\\d{10,11}$' }),
      // A whole number by refinement, not .int(): zod's int check aborts the object, which would skip the identifier check.
      amount: z
        .number({ error: fail('INVALID_CASH_RECEIPT_AMOUNT') })
        .refine(Number.isSafeInteger)
        .min(1)
        .max(MAX_WON)
        .meta({ type: 'integer', description: 'Won, VAT included, greater than 0.' }),
    },
    { error: fail('BAD_REQUEST') },
  )
  // Judged as soon as type and identifier are known, and reported at identifier (before amount, in the spec's order).
  .refine((r) => identifierFits(r.type, r.identifier), {
    error: fail('INVALID_CASH_RECEIPT_IDENTIFIER'),
    path: ['identifier'],
    when: (p) => !p.issues.some((i) => !i.path?.length || i.path[0] === 'type' || i.path[0] === 'identifier'),
  });

/** Parses an issue request: type in the enum (else BAD_REQUEST), identifier fit for the type, amount > 0. */
export function parseIssueRequest(raw: unknown): { type: CashReceiptTypeName; identifier: string; amount: number } {
  return parseRequest(issueRequestSchema, raw);
}

/** The v2 cancel body (spec: POST /v2/cash-receipts/{id}/cancel): reason 1-100 characters (missing → BAD_REQUEST/30007), amount > 0 when given. */
export const cancelRequestSchema = optionalBody({
  reason: requiredText('reason', 'RECEIPT_CANCEL_REASON_INVALID')
    .refine((v) => v.trim().length > 0 && codePoints(v) <= RECEIPT_CANCEL_REASON_MAX)
    .meta({ description: 'Why the receipt is canceled, 1-100 characters.', minLength: 1, maxLength: RECEIPT_CANCEL_REASON_MAX }),
  amount: z
    .number({ error: fail('INVALID_CASH_RECEIPT_AMOUNT') })
    .int()
    .min(1)
    .nullish()
    .transform((v) => v ?? null)
    .meta({ description: 'Won to cancel; omitted = the whole remaining amount. More than 0 and not above the remaining amount.' }),
});

/** v2 cancel body: reason 1-100 characters (missing → BAD_REQUEST/30007), amount > 0 when given. */
export function parseCancelRequest(raw: unknown): { reason: string; amount: number | null } {
  return parseRequest(cancelRequestSchema, raw);
}

/**
 * The reissue request (spec: reissue table), as it reads without the original: type in the enum (240002), selfIssued
 * a boolean; a missing or non-text identifier reads as absent. What needs the original's type is resolveReissue's.
 */
export const reissueRequestSchema = optionalBody({
  identifier: z
    .string()
    .nullish()
    .catch(undefined)
    .meta({ description: 'Required unless selfIssued is true; same format as issuing (phone 10-11 digits or business number 10 digits).', pattern: '^\\d{10,11}$' }),
  type: z.enum(CASH_RECEIPT_TYPES, { error: fail('RECEIPT_INVALID_TYPE') }).nullish().meta({ description: 'PERSONAL or CORPORATE; omitted = the original type.' }),
  selfIssued: z.boolean({ error: fail('BAD_REQUEST') }).nullish().meta({ description: 'Reissue as self-issued (not with CORPORATE).' }),
});

export type ReissueRequest = z.output<typeof reissueRequestSchema>;

/** Parses a reissue request's shape (type in the enum: 240002; selfIssued a boolean); resolveReissue judges the rest. */
export function parseReissueRequest(raw: unknown): ReissueRequest {
  return parseRequest(reissueRequestSchema, raw);
}

/** The send-email request (spec: POST /v2/cash-receipts/{id}/send-email): `email` required (30007 when missing), an address of at most 100 characters (240018 otherwise). */
export const sendEmailRequestSchema = optionalBody({
  email: requiredText('email', 'RECEIPT_EMAIL_INVALID').max(RECEIPT_EMAIL_MAX).regex(EMAIL_RE).meta({ description: 'Where the agency sends the receipt, up to 100 characters.' }),
});

/** Parses a send-email request: an e-mail address of at most 100 characters. */
export function parseSendEmailRequest(raw: unknown): { email: string } {
  return parseRequest(sendEmailRequestSchema, raw);
}
