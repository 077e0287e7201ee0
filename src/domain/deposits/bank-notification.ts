/** The bank notification body (spec: POST /bank-notifications), as the domain takes it. */
import { z } from 'zod';
import { timestampSchema } from '../dates.ts';
import { fail, parseRequest } from '../request-schema.ts';
import { MAX_WON } from '../validation.ts';
import { nameLength } from './depositor-name.ts';

export interface BankNotification {
  notificationId: string;
  depositorName: string;
  amount: number;
  receivedAt: Date;
}

const invalid = (field: string, rule: string) => ({ error: fail('VALIDATION_FAILED', `${field} must be ${rule}.`) });

/** A bank notification body (POST /bank-notifications): notificationId 1-200, depositorName 1-100, amount 1..MAX_WON, receivedAt a wire timestamp (dates.ts). */
export const bankNotificationSchema = z.object(
  {
    notificationId: z
      .string(invalid('notificationId', 'a string of 1-200 characters'))
      .min(1)
      .max(200)
      .meta({ description: 'Unique per bank account; the same id again returns the first transaction and changes nothing.' }),
    depositorName: z
      .string(invalid('depositorName', 'a string of 1-100 characters'))
      .refine((v) => v.trim().length >= 1 && nameLength(v) <= 100, invalid('depositorName', 'a string of 1-100 characters'))
      .transform((v) => v.trim())
      .meta({ description: 'Depositor name as the bank reports it (surrounding spaces are removed).', minLength: 1, maxLength: 100 }),
    amount: z.number({ error: fail('INVALID_AMOUNT') }).int().min(1).max(MAX_WON).meta({ description: 'Won, greater than 0.' }),
    receivedAt: timestampSchema('receivedAt').meta({
      description:
        'Deposit time per the bank, ISO 8601 with a zone, e.g. `2026-11-21T19:00:00+09:00`: a real calendar date and time, offset within ±23:59, between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.',
    }),
  },
  { error: fail('BAD_REQUEST') },
);

/** Validates a bank notification body: notificationId 1-200, depositorName 1-100, amount 1..MAX_WON, receivedAt ISO 8601 with zone. */
export function parseBankNotification(raw: unknown): BankNotification {
  return parseRequest(bankNotificationSchema, raw);
}
