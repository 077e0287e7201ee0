/**
 * The parts the faces' route tables are written with: success envelopes as named schemas, query parameters, and the
 * error codes routes share. Responses are the schemas of ./components.ts; errors are rendered per face through
 * ERROR_TABLE (src/domain/errors.ts) by ./document.ts.
 */
import { z } from 'zod';
import { kstDateSchema } from '../../src/domain/dates.ts';
import type { ErrorCode } from '../../src/domain/errors.ts';
import { INVOICE_TRANSITIONS, type InvoiceTrigger } from '../../src/domain/invoices/invoice-state.ts';
import { limitSchema, offsetSchema } from '../../src/domain/paging.ts';
import { queryBooleanSchema } from '../shared/http.ts';
import type { Success } from '../shared/route.ts';
import { alwaysNull } from './components.ts';

// ───────────────────────────── success envelopes ─────────────────────────────

/** One named schema per id (a component is defined once, however many routes answer with it). */
const named = new Map<string, z.ZodType>();
const once = (id: string, make: () => z.ZodType) => named.get(id) ?? (named.set(id, make()), named.get(id)!);
const totalItems = () => z.int().min(0).meta({ description: 'Items matching the filter.' });

/** v1's `{code, data}` (spec: Response envelope (v1)) answered with `status`. */
export const v1Ok = (status: number, description: string, code: 'OK' | 'CREATED', id: string, data: z.ZodType, about: string): Success => ({
  status,
  description,
  code,
  schema: once(id, () => z.object({ code: z.literal(code), data }).meta({ id, description: about })),
});

/** `{code: "OK", data: [...], totalItems}` of a v1 list. */
export const v1ListOk = (description: string, id: string, item: z.ZodType, about: string): Success => ({
  status: 200,
  description,
  code: 'OK',
  schema: once(id, () => z.object({ code: z.literal('OK'), data: z.array(item), totalItems: totalItems() }).meta({ id, description: about })),
});

/** v1 DELETE: `{code: "DELETED", data: null}`. */
export const V1_DELETED: Success = {
  status: 200,
  description: 'Deleted.',
  code: 'DELETED',
  schema: z.object({ code: z.literal('DELETED'), data: alwaysNull('object') }).meta({ id: 'V1Deleted', description: 'The invoice was deleted.' }),
};

/** v2's one success code. */
const V2_SUCCESS = '10001';
const V2_OK = z.literal(V2_SUCCESS).meta({ description: 'Success.' });

/** v2's `{code: "10001", data}`. */
export const v2Ok = (description: string, id: string, data: z.ZodType, about: string): Success => ({
  status: 200,
  description,
  code: V2_SUCCESS,
  schema: once(id, () => z.object({ code: V2_OK, data }).meta({ id, description: about })),
});

/** `{code: "10001", data: [...], totalItems}` of a v2 list. */
export const v2ListOk = (description: string, id: string, item: z.ZodType, about: string): Success => ({
  status: 200,
  description,
  code: V2_SUCCESS,
  schema: z.object({ code: V2_OK, data: z.array(item), totalItems: totalItems() }).meta({ id, description: about }),
});

/** v2's `{code: "10001"}` without data. */
export const v2Done = (description: string, id: string, about: string): Success => ({ status: 200, description, code: V2_SUCCESS, schema: z.object({ code: V2_OK }).meta({ id, description: about }) });

// ───────────────────────────── query parameters ─────────────────────────────

export const paging = { offset: offsetSchema, limit: limitSchema };
export const dates = {
  dateAfter: kstDateSchema.meta({ description: '`YYYY-MM-DD` in KST, inclusive.', format: 'date' }),
  dateBefore: kstDateSchema.meta({ description: '`YYYY-MM-DD` in KST, inclusive.', format: 'date' }),
};
export const search = (what: string) => z.string().optional().meta({ description: what });
export const flag = (what: string) => queryBooleanSchema.optional().meta({ description: what });

// ───────────────────────────── error lists ─────────────────────────────

export const READ: ErrorCode[] = ['UNAUTHENTICATED', 'SESSION_TOKEN_NOT_ALLOWED', 'INTERNAL_SERVER_ERROR'];
export const WRITE: ErrorCode[] = [...READ, 'READ_ONLY_KEY'];
/** VALIDATION_FAILED: text the database cannot store (U+0000, a lone surrogate) in a field or a filter (src/domain/request-schema.ts). */
export const BODY: ErrorCode[] = ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED'];
export const LIST: ErrorCode[] = ['INVALID_OFFSET', 'INVALID_LIMIT', 'LIMIT_EXCEEDS_MAXIMUM', 'INVALID_DATE_RANGE_FORMAT', 'BAD_REQUEST', 'VALIDATION_FAILED'];
export const INVOICE_BY_ID: ErrorCode[] = ['INVALID_INVOICE_ID', 'INVOICE_NOT_FOUND', 'FOREIGN_INVOICE', 'OUT_OF_SCOPE'];
export const RECEIPT_BY_ID: ErrorCode[] = ['INVALID_CASH_RECEIPT_ID', 'CASH_RECEIPT_NOT_FOUND', 'FOREIGN_CASH_RECEIPT'];
export const INVOICE_FIELDS: ErrorCode[] = [
  'INVALID_BANK_ACCOUNT_IDS',
  'INVALID_CUSTOMER_NAME',
  'INVALID_EMAIL',
  'INVALID_PHONE_NUMBER',
  'INVALID_AMOUNT',
  'INVALID_CASH_RECEIPT_TYPE',
  'INVALID_CASH_RECEIPT_IDENTIFIER',
];
export const RECEIVING_ACCOUNTS: ErrorCode[] = ['OUT_OF_SCOPE', 'BANK_ACCOUNT_NOT_FOUND', 'BANK_ACCOUNT_NOT_VERIFIED', 'BANK_ACCOUNT_INACTIVE'];
/** The refusals of a transition of the invoice state machine (src/domain/invoices/invoice-state.ts), and a lost race. */
export const refusals = (t: InvoiceTrigger): ErrorCode[] => [...Object.values(INVOICE_TRANSITIONS[t].refuse), 'CONFLICT'];
