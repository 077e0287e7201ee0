/**
 * The deposit operations of the dashboard contract (matchTransaction, unmatchTransaction, setTransactionHidden). The
 * match is also an API operation (GraphQL with an API key or OAuth token, POST /v2/transactions/{id}/match); un-matching
 * and hiding stay dashboard operations (spec: "dashboard un-match of the deposit (not an API call)").
 */
import { z } from 'zod';
import { noteShopPaymentWithdrawn } from '../shops/shop-orders.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, requirePrincipal, requireSession } from '../auth/rules.ts';
import { inTransaction, rawOf, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { ID_PREFIXES } from '../ids.ts';
import { addHistory } from '../invoices/history.ts';
import { findConflictingInvoice, invoiceEvent, loadInvoiceFor } from '../invoices/invoices.ts';
import { applyInvoiceTransition, mayStartFrom } from '../invoices/invoice-state.ts';
import { fail, optionalBody, parseRequest } from '../request-schema.ts';
import { afterDepositPaid } from './deposit-payment.ts';
import { isVerificationDeposit } from './deposit-row.ts';
import { loadTransactionFor } from './transaction-reads.ts';

/**
 * The match request of the API (POST /v2/transactions/{id}/match): `invoiceId` required (missing → BAD_REQUEST, v2
 * 30007), an invoice id in form (else INVALID_INVOICE_ID, v2 220001).
 */
export const matchTransactionRequestSchema = optionalBody({
  invoiceId: z
    .string({ error: (iss) => (iss.input === undefined || iss.input === null ? fail('BAD_REQUEST', 'invoiceId is required.') : fail('INVALID_INVOICE_ID')) })
    .regex(new RegExp(`^${ID_PREFIXES.invoice}[a-z0-9]{24}$`), { error: fail('INVALID_INVOICE_ID') })
    .meta({ description: 'The invoice (`ivc_...`) the deposit pays: a pending or expired invoice of the workspace.', examples: [`${ID_PREFIXES.invoice}${'0'.repeat(24)}`] }),
});

/** Parses a match request: the invoice id the deposit pays. */
export function parseMatchTransactionRequest(raw: unknown): { invoiceId: string } {
  return parseRequest(matchTransactionRequestSchema, raw);
}

/**
 * matchTransaction (dashboard, GraphQL with a key or token, POST /v2/transactions/{id}/match): links an unmatched deposit
 * to a pending or expired invoice of the same workspace, method MANUAL; the invoice becomes paid (trigger DEPOSIT) and
 * invoice.paid is emitted. Who may: as mark-as-paid — any writer (a read-only key: READ_ONLY_KEY); a key limited to
 * bank accounts only a deposit to one of them and an invoice whose accounts are all of them (spec: account-limited
 * keys, "read, mark paid"; OUT_OF_SCOPE). The deposit need not have reached one of the invoice's receiving accounts:
 * matching by hand is how a buyer who paid into the merchant's other account is settled.
 */
export async function matchTransactionManually(deps: Deps, principal: Principal | null, transactionId: unknown, invoiceId: unknown) {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  return inTransaction(deps, async (tx) => {
    // Who may handle both first (not found, another workspace's, outside the key's accounts), then their states.
    const trx = await loadTransactionFor(tx, p, transactionId);
    const invoice = await loadInvoiceFor(tx, p, invoiceId);
    if (trx.matchedInvoiceId) throw new DomainError('TRANSACTION_ALREADY_MATCHED');
    const account = await tx.bankAccount.findUniqueOrThrow({ where: { id: trx.bankAccountId }, select: { verificationCode: true } });
    // The flag, and the rule itself for a deposit stored before the rule covered verified accounts.
    if (trx.verification || isVerificationDeposit(account, { amount: trx.amount, depositorName: trx.description })) {
      throw new DomainError('TRANSACTION_NOT_MATCHABLE', { message: 'A 1-won verification deposit cannot pay an invoice.' });
    }
    const now = deps.clock.now();
    const paid = await applyInvoiceTransition(tx, invoice, 'MARK_AS_PAID', now, { paidAt: now, paidTrigger: 'DEPOSIT' });
    // Link the deposit only if it is still unmatched (the row lock makes two manual matches of one deposit take turns).
    const claimed = await tx.transaction.updateMany({
      where: { id: trx.id, matchedInvoiceId: null },
      data: { matchedInvoiceId: invoice.id, matchMethod: 'MANUAL', matchedAt: now, matchNote: Prisma.DbNull, updatedAt: now },
    });
    if (claimed.count === 0) throw new DomainError('TRANSACTION_ALREADY_MATCHED');
    const matched = await tx.transaction.findUniqueOrThrow({ where: { id: trx.id } });
    await afterDepositPaid(rawOf(tx), matched, paid, 'MANUAL', now, actorOf(p));
    return matched;
  });
}

/**
 * unmatchTransaction (dashboard): the deposit becomes unmatched and its invoice pending again, unless another pending
 * invoice of the same name and amount was created meanwhile (INVOICE_ALREADY_EXISTS: two would wait for one deposit).
 */
export async function unmatchTransaction(deps: Deps, principal: Principal | null, transactionId: unknown) {
  const p = requireSession(principal);
  return inTransaction(deps, async (tx) => {
    const trx = await loadTransactionFor(tx, p, transactionId);
    if (!trx.matchedInvoiceId) throw new DomainError('TRANSACTION_NOT_MATCHED');
    const invoice = await tx.invoice.findUniqueOrThrow({ where: { id: trx.matchedInvoiceId } });
    const now = deps.clock.now();
    // Only an invoice that comes back payable by a deposit can conflict (past its expiry it comes back EXPIRED); the
    // conflict check's advisory lock makes a create at the same moment wait for this and be refused in turn.
    if (mayStartFrom('DEPOSIT_MATCH', { status: 'PENDING', expiresAt: invoice.expiresAt }, now)) {
      const conflict = await findConflictingInvoice(rawOf(tx), {
        workspaceId: invoice.workspaceId,
        customerName: invoice.customerName,
        amount: invoice.amount,
        bankAccountIds: invoice.bankAccountIds,
        excludeId: invoice.id,
        now,
      });
      if (conflict) {
        throw new DomainError('INVOICE_ALREADY_EXISTS', {
          data: { invoiceId: conflict.id, number: conflict.number },
          message: `Pending invoice ${conflict.number} has the same depositor name and amount on an overlapping receiving account; cancel it before un-matching this deposit.`,
        });
      }
    }
    const released = await tx.transaction.updateMany({
      where: { id: trx.id, matchedInvoiceId: invoice.id },
      data: { matchedInvoiceId: null, matchMethod: null, matchedAt: null, updatedAt: now },
    });
    if (released.count === 0) throw new DomainError('TRANSACTION_NOT_MATCHED');
    const pending = await applyInvoiceTransition(tx, invoice, 'UNMATCH', now, { paidAt: null, paidTrigger: null });
    await addHistory(tx, invoice.id, 'unmatched', now, actorOf(p), { transactionId: trx.id });
    // A shop already told of the payment keeps its order confirmed; the merchant is asked to look at it.
    await noteShopPaymentWithdrawn(tx, pending, now);
    await recordEvents(tx, p.workspaceId, [invoiceEvent('invoice.unpaid', pending, now, { transactionId: trx.id })]);
    return tx.transaction.findUniqueOrThrow({ where: { id: trx.id } });
  });
}

/** setTransactionHidden (dashboard only; the API cannot change `hidden`). */
export async function setTransactionHidden(deps: Deps, principal: Principal | null, transactionId: unknown, hidden: boolean) {
  const p = requireSession(principal);
  assertCanWrite(p);
  const trx = await loadTransactionFor(deps.prisma, p, transactionId);
  return deps.prisma.transaction.update({ where: { id: trx.id }, data: { hidden, updatedAt: deps.clock.now() } });
}
