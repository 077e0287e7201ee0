/**
 * The payment-guide e-mail (spec: PATCH resendGuideEmail): the amount to transfer, the depositor name to use, the
 * receiving accounts and the expiry, sent through the e-mail port; `guideEmailSentAt` records when.
 */
import type { BankAccount, Invoice } from '../../generated/prisma/client.ts';
import { findBankProvider } from '../bank-accounts/bank-providers.ts';
import type { Tx } from '../deps.ts';
import { enqueueEmail, won } from '../email/email.ts';
import { addHistory } from './invoices.ts';

/** Verified, active accounts an invoice can be paid to (empty list = every such account of the workspace). */
export async function usableReceivingAccounts(tx: Tx, workspaceId: string, bankAccountIds: readonly string[]): Promise<BankAccount[]> {
  return tx.bankAccount.findMany({
    where: {
      workspaceId,
      deletedAt: null,
      active: true,
      verifiedAt: { not: null },
      ...(bankAccountIds.length ? { id: { in: [...bankAccountIds] } } : {}),
    },
    orderBy: { createdAt: 'asc' },
  });
}

const kst = (d: Date) => new Date(d.getTime() + 9 * 3_600_000).toISOString().replace('T', ' ').slice(0, 16) + ' (KST)';

/** The guide's subject and text. */
export function guideEmailContent(invoice: Invoice, accounts: BankAccount[], workspaceName: string) {
  const lines = accounts.map((a) => `  - ${findBankProvider(a.provider)?.displayName ?? a.provider} ${a.number} (${a.alias})`);
  return {
    subject: `[${workspaceName}] 입금 안내: ${won(invoice.amount)}`,
    text: [
      `${invoice.customerName}님, 아래 계좌로 입금해 주세요.`,
      '',
      `입금 금액: ${won(invoice.amount)}`,
      `입금자명: ${invoice.customerName} (입금자명이 다르면 확인이 늦어질 수 있습니다)`,
      `입금 기한: ${invoice.expiresAt ? kst(invoice.expiresAt) : '없음'}`,
      '입금 계좌:',
      ...lines,
      '',
      `주문 번호: ${invoice.number}`,
    ].join('\n'),
  };
}

/** Queues the guide e-mail in the caller's transaction and records guideEmailSentAt. */
export async function queueGuideEmail(tx: Tx, invoice: Invoice, now: Date, actor: unknown): Promise<Invoice> {
  const accounts = await usableReceivingAccounts(tx, invoice.workspaceId, invoice.bankAccountIds);
  const workspace = await tx.workspace.findUniqueOrThrow({ where: { id: invoice.workspaceId }, select: { name: true } });
  const content = guideEmailContent(invoice, accounts, workspace.name);
  await enqueueEmail(tx, { ...content, to: invoice.customerEmail!, workspaceId: invoice.workspaceId, kind: 'payment_guide', invoiceId: invoice.id, now });
  await addHistory(tx, invoice.id, 'guide_email_sent', now, actor, { to: invoice.customerEmail });
  return tx.invoice.update({ where: { id: invoice.id }, data: { guideEmailSentAt: now } });
}
