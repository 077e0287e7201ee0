/** The dashboard's deposit operations (contract: matchTransaction, unmatchTransaction, setTransactionHidden). */
import { noteShopPaymentWithdrawn } from '../shops/shop-orders.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, requireSession } from '../auth/rules.ts';
import { inTransaction, rawOf, type Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { addHistory } from '../invoices/history.ts';
import { findConflictingInvoice, invoiceEvent, loadInvoiceFor } from '../invoices/invoices.ts';
import { applyInvoiceTransition, mayStartFrom } from '../invoices/invoice-state.ts';
import { afterDepositPaid } from './deposit-payment.ts';
import { isVerificationDeposit } from './deposit-row.ts';
import { loadTransactionFor } from './transaction-reads.ts';

/**
 * matchTransaction (dashboard): links an unmatched deposit to a pending or expired invoice of the same workspace,
 * method MANUAL; the invoice becomes paid (trigger DEPOSIT) and invoice.paid is emitted.
 */
export async function matchTransactionManually(deps: Deps, principal: Principal | null, transactionId: unknown, invoiceId: unknown) {
  const p = requireSession(principal);
  return inTransaction(deps, async (tx) => {
    const trx = await loadTransactionFor(tx, p, transactionId);
    if (trx.matchedInvoiceId) throw new DomainError('TRANSACTION_ALREADY_MATCHED');
    const account = await tx.bankAccount.findUniqueOrThrow({ where: { id: trx.bankAccountId }, select: { verificationCode: true } });
    // The flag, and the rule itself for a deposit stored before the rule covered verified accounts.
    if (trx.verification || isVerificationDeposit(account, { amount: trx.amount, depositorName: trx.description })) {
      throw new DomainError('TRANSACTION_NOT_MATCHABLE', { message: 'A 1-won verification deposit cannot pay an invoice.' });
    }
    const invoice = await loadInvoiceFor(tx, p, invoiceId);
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
