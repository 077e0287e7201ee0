/**
 * The v2 bodies parsed at the face (spec: POST /v2/invoices/{id}/cancel, POST /v2/cash-receipts/{id}/send-email) as
 * zod schemas: the routes run them, and /openapi.json describes the bodies from them.
 */
import { z } from 'zod';
import { CANCEL_REASON_MAX } from '../../src/domain/invoices/invoices.ts';
import { RECEIPT_EMAIL_MAX } from '../../src/domain/cash-receipts/cash-receipts.ts';
import { absentBodyIsEmpty, codePoints, fail, parseRequest } from '../../src/domain/request-schema.ts';
import { EMAIL_RE } from '../../src/domain/validation.ts';

/** Invoice cancel: optional `reason` of up to 200 characters (220020 beyond). */
export const cancelInvoiceBodySchema = z.preprocess(
  absentBodyIsEmpty,
  z.object(
    {
      reason: z
        .string({ error: fail('BAD_REQUEST') })
        .refine((v) => codePoints(v) <= CANCEL_REASON_MAX, { error: fail('CANCEL_REASON_TOO_LONG') })
        .nullish()
        .transform((v) => v ?? null)
        .meta({ description: 'Shown in the dashboard and as cancelReason; up to 200 characters.', maxLength: CANCEL_REASON_MAX }),
    },
    { error: fail('BAD_REQUEST') },
  ),
);

/** Send-email: `email` required (30007 when missing), an address of at most 100 characters (240018 otherwise). */
export const sendEmailBodySchema = z.preprocess(
  absentBodyIsEmpty,
  z.object(
    {
      email: z
        .string({ error: (iss) => (iss.input === undefined || iss.input === null ? fail('BAD_REQUEST', 'email is required.') : fail('RECEIPT_EMAIL_INVALID')) })
        .max(RECEIPT_EMAIL_MAX)
        .regex(EMAIL_RE)
        .meta({ description: 'Where the agency sends the receipt, up to 100 characters.' }),
    },
    { error: fail('BAD_REQUEST') },
  ),
);

export const parseCancelInvoiceBody = (raw: unknown) => parseRequest(cancelInvoiceBodySchema, raw);
export const parseSendEmailBody = (raw: unknown) => parseRequest(sendEmailBodySchema, raw);
