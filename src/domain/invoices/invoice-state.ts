/**
 * The invoice state machine (spec: States and transitions — Invoice), written as data: how each status a client sees is
 * stored, and each transition's from, to and refusals. The TypeScript predicate and the SQL fragment are read from it.
 */
import type { Invoice } from '../../generated/prisma/client.ts';
import { rawOf, type Tx } from '../deps.ts';
import { DomainError, type ErrorCode } from '../errors.ts';
import { SqlParams } from '../sql.ts';

/** The statuses a client sees, in the order the faces list them. */
export const INVOICE_STATUS_NAMES = ['PENDING', 'EXPIRED', 'PAID', 'CANCELED'] as const;
export type InvoiceStatusName = (typeof INVOICE_STATUS_NAMES)[number];

/** Each status a client sees as stored: `expired` says whether the expiry must have passed (absent: either way). */
const STORED_AS: Record<InvoiceStatusName, { status: Invoice['status']; expired?: boolean }> = {
  PENDING: { status: 'PENDING', expired: false },
  EXPIRED: { status: 'PENDING', expired: true },
  PAID: { status: 'PAID' },
  CANCELED: { status: 'CANCELED' },
};

/** The status a client sees: PENDING past its expiry (expiresAt <= now) is EXPIRED. */
export function effectiveStatus(i: Pick<Invoice, 'status' | 'expiresAt'>, now: Date): InvoiceStatusName {
  const expired = i.expiresAt !== null && i.expiresAt.getTime() <= now.getTime();
  return INVOICE_STATUS_NAMES.find((name) => STORED_AS[name].status === i.status && (STORED_AS[name].expired ?? expired) === expired) ?? i.status;
}

/** SQL for "the expiry has passed at `now`" (or, with `false`, has not), `now` a timestamptz SQL expression. */
export function expirySql(expired: boolean, now: string): string {
  return expired ? `"expiresAt" IS NOT NULL AND "expiresAt" <= ${now}` : `("expiresAt" IS NULL OR "expiresAt" > ${now})`;
}

/**
 * SQL for "an invoice row's status, as a client sees it at `now`, is one of `statuses`" (effectiveStatus in SQL).
 * `now` is a timestamptz SQL expression, or a function giving one, called only if the expiry matters.
 */
export function statusSql(statuses: readonly InvoiceStatusName[], nowSql: string | (() => string)): string {
  let now: string | undefined;
  const at = () => (now ??= typeof nowSql === 'string' ? nowSql : nowSql());
  const parts: string[] = [];
  for (const stored of new Set(statuses.map((name) => STORED_AS[name].status))) {
    const all = INVOICE_STATUS_NAMES.filter((name) => STORED_AS[name].status === stored);
    const named = all.filter((name) => statuses.includes(name));
    if (named.length === all.length) parts.push(`status = '${stored}'`);
    else for (const name of named) parts.push(`status = '${stored}' AND ${expirySql(STORED_AS[name].expired!, at())}`);
  }
  if (parts.length === 0) return 'FALSE';
  return parts.length === 1 ? parts[0]! : `(${parts.map((p) => `(${p})`).join(' OR ')})`;
}

export type InvoiceTrigger = 'DEPOSIT_MATCH' | 'MARK_AS_PAID' | 'UPDATE' | 'CANCEL' | 'DELETE_V1' | 'UNMATCH';

export interface InvoiceTransition {
  /** Effective statuses it may start from. */
  from: InvoiceStatusName[];
  to: Invoice['status'];
  /** The error for each effective status it may not start from. */
  refuse: Partial<Record<InvoiceStatusName, ErrorCode>>;
  /** Events it emits (to the outbox, in the same transaction). */
  effects: string[];
}

const NOT_PENDING = 'INVOICE_NOT_PENDING';
const ALREADY_PAID = 'INVOICE_ALREADY_PAID';
const NOT_MATCHED = 'TRANSACTION_NOT_MATCHED';

/** The transitions, one a line: from, to, the refusal for each other status, and what they emit. */
export const INVOICE_TRANSITIONS: Record<InvoiceTrigger, InvoiceTransition> = {
  DEPOSIT_MATCH: { from: ['PENDING'], to: 'PAID', refuse: { EXPIRED: NOT_PENDING, PAID: ALREADY_PAID, CANCELED: NOT_PENDING }, effects: ['invoice.paid (trigger DEPOSIT)', 'cash receipt if cashReceipt set', 'paid e-mail if enabled'] },
  MARK_AS_PAID: { from: ['PENDING', 'EXPIRED'], to: 'PAID', refuse: { PAID: ALREADY_PAID, CANCELED: 'INVOICE_CANCELED' }, effects: ['invoice.paid (trigger API_CALL)', 'cash receipt if cashReceipt set'] },
  UPDATE: { from: ['PENDING'], to: 'PENDING', refuse: { EXPIRED: NOT_PENDING, PAID: NOT_PENDING, CANCELED: NOT_PENDING }, effects: ['invoice.updated'] },
  CANCEL: { from: ['PENDING', 'EXPIRED'], to: 'CANCELED', refuse: { PAID: NOT_PENDING, CANCELED: NOT_PENDING }, effects: ['invoice.canceled (V2 webhooks)', 'invoice.deleted (V1 webhooks)'] },
  DELETE_V1: { from: ['PENDING', 'EXPIRED'], to: 'CANCELED', refuse: { PAID: ALREADY_PAID, CANCELED: 'INVOICE_NOT_FOUND' }, effects: ['invoice.deleted'] },
  UNMATCH: { from: ['PAID'], to: 'PENDING', refuse: { PENDING: NOT_MATCHED, EXPIRED: NOT_MATCHED, CANCELED: NOT_MATCHED }, effects: ['invoice.unpaid'] },
};

/** SQL for "a transition may start from this invoice row at `now`": its `from` statuses (statusSql). */
export function transitionFromSql(trigger: InvoiceTrigger, now: string | (() => string)): string {
  return statusSql(INVOICE_TRANSITIONS[trigger].from, now);
}

/** Whether a transition may start from the invoice's effective status at `now`. */
export function mayStartFrom(trigger: InvoiceTrigger, invoice: Pick<Invoice, 'status' | 'expiresAt'>, now: Date): boolean {
  return INVOICE_TRANSITIONS[trigger].from.includes(effectiveStatus(invoice, now));
}

/** Throws the transition's refusal unless it may start from the invoice's effective status. */
export function assertTransitionAllowed(trigger: InvoiceTrigger, invoice: Pick<Invoice, 'status' | 'expiresAt'>, now: Date): void {
  const t = INVOICE_TRANSITIONS[trigger];
  const status = effectiveStatus(invoice, now);
  if (!t.from.includes(status)) throw new DomainError(t.refuse[status] ?? 'CONFLICT');
}

/**
 * Applies a transition and returns the updated invoice: the row is locked only while it may still start from it
 * (transitionFromSql), so if another transaction changed it first, the refusal for its state now is thrown instead.
 */
export async function applyInvoiceTransition(tx: Tx, invoice: Invoice, trigger: InvoiceTrigger, now: Date, data: Record<string, unknown>): Promise<Invoice> {
  assertTransitionAllowed(trigger, invoice, now);
  const s = new SqlParams();
  const from = transitionFromSql(trigger, () => s.p(now.toISOString(), '::timestamptz'));
  const locked = await rawOf(tx)(`SELECT id FROM "Invoice" WHERE id = ${s.p(invoice.id)} AND ${from} FOR NO KEY UPDATE`, s.values);
  if (locked.length === 0) {
    const current = await tx.invoice.findUnique({ where: { id: invoice.id } });
    if (!current) throw new DomainError('INVOICE_NOT_FOUND');
    assertTransitionAllowed(trigger, current, now);
    throw new DomainError('CONFLICT', { message: 'The invoice changed concurrently; retry.' });
  }
  return tx.invoice.update({ where: { id: invoice.id }, data: { ...data, status: INVOICE_TRANSITIONS[trigger].to, updatedAt: now } });
}
