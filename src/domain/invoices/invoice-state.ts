/**
 * The invoice state machine (spec: States and transitions — Invoice), written as data. Stored statuses are
 * PENDING, PAID, CANCELED; EXPIRED is PENDING judged against the clock. A transition is one conditional update
 * (`where: {id, status: from, ...guard}`) inside the caller's transaction, so a concurrent change makes it fail
 * instead of being overwritten.
 */
import type { Invoice } from '../../generated/prisma/client.ts';
import type { Tx } from '../deps.ts';
import { DomainError, type ErrorCode } from '../errors.ts';

export type InvoiceStatusName = 'PENDING' | 'EXPIRED' | 'PAID' | 'CANCELED';

/** The status a client sees: PENDING past its expiry is EXPIRED. */
export function effectiveStatus(i: Pick<Invoice, 'status' | 'expiresAt'>, now: Date): InvoiceStatusName {
  if (i.status === 'PENDING' && i.expiresAt && i.expiresAt.getTime() <= now.getTime()) return 'EXPIRED';
  return i.status;
}

export type InvoiceTrigger = 'DEPOSIT_MATCH' | 'MARK_AS_PAID' | 'UPDATE' | 'CANCEL' | 'DELETE_V1' | 'UNMATCH';

export interface InvoiceTransition {
  trigger: InvoiceTrigger;
  /** Effective statuses it may start from. */
  from: InvoiceStatusName[];
  to: 'PENDING' | 'PAID' | 'CANCELED';
  /** Events it emits (to the outbox, in the same transaction). */
  effects: string[];
  /** The error for each effective status it may not start from. */
  refuse: Partial<Record<InvoiceStatusName, ErrorCode>>;
}

export const INVOICE_TRANSITIONS: Record<InvoiceTrigger, InvoiceTransition> = {
  DEPOSIT_MATCH: {
    trigger: 'DEPOSIT_MATCH',
    from: ['PENDING'],
    to: 'PAID',
    effects: ['invoice.paid (trigger DEPOSIT)', 'cash receipt if cashReceipt set', 'paid e-mail if enabled'],
    refuse: { EXPIRED: 'INVOICE_NOT_PENDING', PAID: 'INVOICE_ALREADY_PAID', CANCELED: 'INVOICE_NOT_PENDING' },
  },
  MARK_AS_PAID: {
    trigger: 'MARK_AS_PAID',
    from: ['PENDING', 'EXPIRED'],
    to: 'PAID',
    effects: ['invoice.paid (trigger API_CALL)', 'cash receipt if cashReceipt set'],
    refuse: { PAID: 'INVOICE_ALREADY_PAID', CANCELED: 'INVOICE_CANCELED' },
  },
  UPDATE: {
    trigger: 'UPDATE',
    from: ['PENDING'],
    to: 'PENDING',
    effects: ['invoice.updated'],
    refuse: { EXPIRED: 'INVOICE_NOT_PENDING', PAID: 'INVOICE_NOT_PENDING', CANCELED: 'INVOICE_NOT_PENDING' },
  },
  CANCEL: {
    trigger: 'CANCEL',
    from: ['PENDING', 'EXPIRED'],
    to: 'CANCELED',
    effects: ['invoice.canceled (V2 webhooks)', 'invoice.deleted (V1 webhooks)'],
    refuse: { PAID: 'INVOICE_NOT_PENDING', CANCELED: 'INVOICE_NOT_PENDING' },
  },
  DELETE_V1: {
    trigger: 'DELETE_V1',
    from: ['PENDING', 'EXPIRED'],
    to: 'CANCELED',
    effects: ['invoice.deleted'],
    refuse: { PAID: 'INVOICE_ALREADY_PAID', CANCELED: 'INVOICE_NOT_FOUND' },
  },
  UNMATCH: {
    trigger: 'UNMATCH',
    from: ['PAID'],
    to: 'PENDING',
    effects: ['invoice.unpaid'],
    refuse: { PENDING: 'TRANSACTION_NOT_MATCHED', EXPIRED: 'TRANSACTION_NOT_MATCHED', CANCELED: 'TRANSACTION_NOT_MATCHED' },
  },
};

/** Throws the transition's refusal unless it may start from the invoice's effective status. */
export function assertTransitionAllowed(trigger: InvoiceTrigger, invoice: Pick<Invoice, 'status' | 'expiresAt'>, now: Date): void {
  const t = INVOICE_TRANSITIONS[trigger];
  const status = effectiveStatus(invoice, now);
  if (!t.from.includes(status)) throw new DomainError(t.refuse[status] ?? 'CONFLICT');
}

/**
 * Applies a transition as one conditional update and returns the updated invoice. If another transaction changed the
 * invoice first, the update matches nothing and the refusal for the state it is now in is thrown.
 */
export async function applyInvoiceTransition(
  tx: Tx,
  invoice: Invoice,
  trigger: InvoiceTrigger,
  now: Date,
  data: Record<string, unknown>,
): Promise<Invoice> {
  assertTransitionAllowed(trigger, invoice, now);
  const t = INVOICE_TRANSITIONS[trigger];
  const storedFrom = [...new Set(t.from.map((s) => (s === 'EXPIRED' ? 'PENDING' : s)))] as Invoice['status'][];
  const notExpired = t.from.includes('PENDING') && !t.from.includes('EXPIRED') && storedFrom.includes('PENDING');
  const res = await tx.invoice.updateMany({
    where: {
      id: invoice.id,
      status: { in: storedFrom },
      ...(notExpired ? { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] } : {}),
    },
    data: { ...data, status: t.to, updatedAt: now },
  });
  if (res.count === 0) {
    const current = await tx.invoice.findUnique({ where: { id: invoice.id } });
    if (!current) throw new DomainError('INVOICE_NOT_FOUND');
    assertTransitionAllowed(trigger, current, now);
    throw new DomainError('CONFLICT', { message: 'The invoice changed concurrently; retry.' });
  }
  return (await tx.invoice.findUnique({ where: { id: invoice.id } }))!;
}
