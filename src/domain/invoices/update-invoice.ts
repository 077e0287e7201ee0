/**
 * Updating a pending invoice (spec: PATCH /v2/invoices/{id}): only sent fields change; `null` clears e-mail, phone,
 * cash receipt and expiry; `extendDays` wins over `expiresAt`; changing name, amount or receiving accounts re-runs the
 * conflict check; the payment-guide e-mail is re-sent on request when amount or expiry changed. Emits invoice.updated.
 */
import type { Invoice } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, assertReceivingAccountsInScope, requirePrincipal } from '../auth/rules.ts';
import { holdUsableReceivingAccounts } from '../bank-accounts/bank-accounts.ts';
import { inTransaction, rawOf, type Deps, type Tx } from '../deps.ts';
import { MAX_EXPIRY_MS } from '../duration.ts';
import { z } from 'zod';
import { DomainError, type ErrorCode } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { fail, parseRequest } from '../request-schema.ts';
import {
  INVOICE_REPORT_AT,
  amountSchema,
  bankAccountIdsSchema,
  cashReceiptRequestSchema,
  customerEmailSchema,
  customerNameSchema,
  customerPhoneNumberSchema,
  invoiceSearchText,
  type CashReceiptRequest,
} from './invoice-input.ts';
import { applyInvoiceTransition, assertTransitionAllowed } from './invoice-state.ts';
import { invoiceNameColumns } from '../deposits/depositor-name.ts';
import { isShopLinked } from '../shops/reserved-metadata.ts';
import { addHistory, findConflictingInvoice, invoiceEvent, loadInvoiceFor } from './invoices.ts';
import { queueGuideEmail, usableReceivingAccounts } from './guide-email.ts';

export const EXTEND_DAYS_MAX = 365;

/**
 * What a PATCH asks for, in the request's shape (spec: PATCH /v2/invoices/{id}); absent fields are undefined, `null`
 * clears. Faces pass it on as it is (GraphQL's UpdateInvoiceInput has the same shape).
 */
export interface InvoiceChanges {
  customer?: { name?: string; email?: string | null; phoneNumber?: string | null };
  amount?: number;
  /** The new expiry (null = remove the expiry). */
  expiresAt?: Date | null;
  extendDays?: number;
  bankAccountIds?: string[];
  cashReceipt?: CashReceiptRequest | null;
  resendGuideEmail: boolean;
}

const E = (code: ErrorCode) => ({ error: fail(code) });

/**
 * How a face writes the new expiry: a schema whose output is a Date (failing with INVALID_EXPIRES_AT) and the
 * document's description of it. The domain's own is a Date (GraphQL's DateTime); v2 passes Unix seconds.
 */
export interface ExpiresAtWire {
  schema: z.ZodType<Date, unknown>;
  description: string;
}

const DATE_EXPIRES_AT: ExpiresAtWire = {
  schema: z.date(E('INVALID_EXPIRES_AT')),
  description: 'New expiry: later than now and within 365 days; null removes the expiry.',
};

/** The PATCH body (spec: PATCH /v2/invoices/{id}), fields in the spec's order; `expiresAt` is judged against `now`. */
export function invoiceChangesSchema(now: Date, expiresAt: ExpiresAtWire = DATE_EXPIRES_AT) {
  const inRange = (at: Date) => at.getTime() > now.getTime() && at.getTime() <= now.getTime() + MAX_EXPIRY_MS;
  return z
    .object(
      {
        customer: z
          .object({ name: customerNameSchema.optional(), email: customerEmailSchema.optional(), phoneNumber: customerPhoneNumberSchema.optional() }, E('INVALID_CUSTOMER_NAME'))
          .optional(),
        amount: amountSchema.optional(),
        expiresAt: expiresAt.schema
          .pipe(z.date().refine(inRange, E('INVALID_EXPIRES_AT')))
          .nullable()
          .optional()
          .meta({ description: expiresAt.description }),
        extendDays: z
          .number(E('INVALID_EXTEND_DAYS'))
          .int()
          .min(1)
          .max(EXTEND_DAYS_MAX)
          .optional()
          .meta({ description: 'Extends the expiry by this many days from the current expiry (or from now when expired or none); wins over expiresAt.' }),
        bankAccountIds: bankAccountIdsSchema.optional(),
        cashReceipt: cashReceiptRequestSchema.nullable().optional(),
        resendGuideEmail: z
          .boolean(E('BAD_REQUEST'))
          .optional()
          .meta({ description: 'Re-send the payment-guide e-mail when amount or expiry changed (default false).' }),
      },
      E('BAD_REQUEST'),
    )
    .transform((b): InvoiceChanges => ({ ...b, resendGuideEmail: b.resendGuideEmail ?? false }))
    .refine((c) => Object.values(c.customer ?? {}).some((v) => v !== undefined) || CHANGE_FIELDS.some((k) => c[k] !== undefined), E('NO_FIELD_TO_CHANGE'));
}

const CHANGE_FIELDS = ['amount', 'expiresAt', 'extendDays', 'bankAccountIds', 'cashReceipt'] as const;

/** Parses a PATCH body with the v2 field codes (220002-220009); 30007 for an unreadable body. */
export function parseInvoiceChanges(raw: unknown, now: Date, expiresAt?: ExpiresAtWire): InvoiceChanges {
  return parseRequest(invoiceChangesSchema(now, expiresAt), raw, { reportAt: INVOICE_REPORT_AT });
}

/** The new expiry: extendDays from the current expiry (or from now when expired or none) wins over expiresAt. */
export function newExpiry(current: Date | null, c: InvoiceChanges, now: Date): Date | null | undefined {
  if (c.extendDays !== undefined) {
    const base = current && current.getTime() > now.getTime() ? current.getTime() : now.getTime();
    const at = new Date(base + c.extendDays * 86_400_000);
    if (at.getTime() > now.getTime() + MAX_EXPIRY_MS) {
      throw new DomainError('INVALID_EXTEND_DAYS', { path: ['extendDays'], message: 'The extended expiry would be more than 365 days away.' });
    }
    return at;
  }
  return c.expiresAt;
}

/**
 * The fields of `c` that would change what a shop order decides (README, Shop integrations: "Orders become invoices"):
 * the amount, the depositor name, the receiving accounts and the expiry (expiresAt, extendDays). A value sent equal to
 * the invoice's own is no change (a form that sends every field back); extendDays always is one.
 */
export function shopDecidedChanges(invoice: Pick<Invoice, 'amount' | 'customerName' | 'bankAccountIds' | 'expiresAt'>, c: InvoiceChanges): string[] {
  const sameIds = (a: readonly string[], b: readonly string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
  const fields: string[] = [];
  if (c.amount !== undefined && c.amount !== invoice.amount) fields.push('amount');
  if (c.customer?.name !== undefined && c.customer.name !== invoice.customerName) fields.push('customer.name');
  if (c.bankAccountIds !== undefined && !sameIds(c.bankAccountIds, invoice.bankAccountIds)) fields.push('bankAccountIds');
  if (c.expiresAt !== undefined && (c.expiresAt?.getTime() ?? null) !== (invoice.expiresAt?.getTime() ?? null)) fields.push('expiresAt');
  if (c.extendDays !== undefined) fields.push('extendDays');
  return fields;
}

/**
 * updateInvoice (PATCH /v2/invoices/{id}). An invoice imported from a shop order (isShopLinked) follows its order: a
 * change of its amount, depositor name, receiving accounts or expiry is SHOP_LINKED_INVOICE (the shop still has the
 * order as it was: a smaller transfer would confirm the whole order, a later expiry would outlive the shop's own
 * deadline); its e-mail, phone and cash receipt stay editable.
 */
export async function updateInvoice(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<Invoice> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const now0 = deps.clock.now();
  const changes = parseInvoiceChanges(raw, now0);
  if (changes.bankAccountIds !== undefined) assertReceivingAccountsInScope(p, changes.bankAccountIds);
  return inTransaction(deps, async (tx) => {
    if (changes.bankAccountIds !== undefined) await holdUsableReceivingAccounts(rawOf(tx), p.workspaceId, changes.bankAccountIds);
    const invoice = await loadInvoiceFor(tx, p, id);
    const now = deps.clock.now();
    assertTransitionAllowed('UPDATE', invoice, now);
    if (isShopLinked(invoice.metadata)) {
      const refused = shopDecidedChanges(invoice, changes);
      if (refused.length > 0) throw new DomainError('SHOP_LINKED_INVOICE', { path: refused[0]!.split('.'), data: { fields: refused } });
    }
    const expiresAt = newExpiry(invoice.expiresAt, changes, now);
    const next = {
      customerName: changes.customer?.name ?? invoice.customerName,
      customerEmail: changes.customer?.email !== undefined ? changes.customer.email : invoice.customerEmail,
      customerPhoneNumber: changes.customer?.phoneNumber !== undefined ? changes.customer.phoneNumber : invoice.customerPhoneNumber,
      amount: changes.amount ?? invoice.amount,
      expiresAt: expiresAt !== undefined ? expiresAt : invoice.expiresAt,
      bankAccountIds: changes.bankAccountIds ?? invoice.bankAccountIds,
      cashReceiptType: changes.cashReceipt !== undefined ? (changes.cashReceipt?.type ?? null) : invoice.cashReceiptType,
      cashReceiptIdentifier: changes.cashReceipt !== undefined ? (changes.cashReceipt?.identifier ?? null) : invoice.cashReceiptIdentifier,
    };
    const conflictRelevant = changes.customer?.name !== undefined || changes.amount !== undefined || changes.bankAccountIds !== undefined;
    if (conflictRelevant) {
      const conflict = await findConflictingInvoice(rawOf(tx), {
        workspaceId: invoice.workspaceId,
        customerName: next.customerName,
        amount: next.amount,
        bankAccountIds: next.bankAccountIds,
        excludeId: invoice.id,
        now,
      });
      if (conflict) throw new DomainError('INVOICE_ALREADY_EXISTS', { data: { invoiceId: conflict.id, number: conflict.number } });
    }
    const amountOrExpiryChanged = next.amount !== invoice.amount || (next.expiresAt?.getTime() ?? null) !== (invoice.expiresAt?.getTime() ?? null);
    let sendGuide = false;
    if (changes.resendGuideEmail) {
      if ((await usableReceivingAccounts(tx, invoice.workspaceId, next.bankAccountIds)).length === 0) throw new DomainError('GUIDE_EMAIL_NO_ACCOUNT');
      if (!next.expiresAt) throw new DomainError('GUIDE_EMAIL_NO_EXPIRY');
      sendGuide = amountOrExpiryChanged && !!next.customerEmail;
    }
    const updated = await applyInvoiceTransition(tx, invoice, 'UPDATE', now, {
      ...next,
      // The name's comparison columns (matching and the conflict check look them up), not a field of the invoice.
      ...invoiceNameColumns(next.customerName),
      searchText: invoiceSearchText(next),
    });
    const changed = Object.keys(next).filter((k) => JSON.stringify((next as Record<string, unknown>)[k]) !== JSON.stringify((invoice as Record<string, unknown>)[k]));
    await addHistory(tx, invoice.id, 'updated', now, actorOf(p), { fields: changed });
    let final = updated;
    if (sendGuide) final = await queueGuideEmail(tx, updated, now, actorOf(p));
    await recordEvents(tx, p.workspaceId, [invoiceEvent('invoice.updated', final, now, { changedFields: changed, guideEmailSent: sendGuide })]);
    return final;
  });
}

export type { Tx };
