/** E-mailing a cash receipt (spec: POST /v2/cash-receipts/{id}/send-email): the agency sends it. */
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import type { CashReceipt } from '../../generated/prisma/client.ts';
import { inTransaction, type Deps } from '../deps.ts';
import { enqueueEmail, won } from '../email/email.ts';
import { DomainError } from '../errors.ts';
import { AgencyError, RECEIPT_PURPOSE } from './agency.ts';
import { assertReceiptId, loadReceiptFor } from './reads.ts';
import { parseSendEmailRequest } from './requests.ts';

/** sendCashReceiptEmail (POST /v2/cash-receipts/{id}/send-email): the agency e-mails the receipt. */
export async function sendCashReceiptEmail(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<void> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  assertReceiptId(id);
  const { email } = parseSendEmailRequest(raw);
  const receipt = await loadReceiptFor(deps.prisma, p, id);
  if (receipt.status === 'FAILED' || !receipt.ntsConfirmNum) throw new DomainError('RECEIPT_EMAIL_NOT_SENDABLE');
  try {
    await deps.agency.sendEmail({ mgtKey: receipt.agencyKey, corpNum: receipt.corpNum, email });
  } catch (e) {
    if (e instanceof AgencyError) throw new DomainError('AGENCY_EMAIL_FAILED', { data: { code: e.code, message: e.message } });
    throw e;
  }
}

/** The receipt e-mail a buyer gets: the amount with its supply cost and VAT, the kind, the confirmation number. */
function receiptEmailText(r: CashReceipt): { subject: string; text: string } {
  const kind = RECEIPT_PURPOSE[r.type];
  return {
    subject: `현금영수증 ${r.kind === 'CANCELLATION' ? '취소 ' : ''}(${kind}, ${won(r.amount)}, 승인번호 ${r.ntsConfirmNum})`,
    text: [`현금영수증 (${kind})`, '', `승인번호: ${r.ntsConfirmNum}`, `거래 금액: ${won(r.amount)}`, `공급가액: ${won(r.supplyCost)}`, `부가세: ${won(r.tax)}`, `사업자등록번호: ${r.corpNum}`].join('\n'),
  };
}

/**
 * What the simulated agency "sends" (README: The simulated cash-receipt agency): the receipt e-mail a real agency would
 * send the buyer goes through the service's own e-mail instead (the local outbox, listed by the `emails` query, or
 * SMTP), so a merchant trying the service sees what the buyer gets.
 */
export async function mailReceiptThroughService(deps: Deps, mail: { mgtKey: string; email: string }): Promise<void> {
  const receipt = await deps.prisma.cashReceipt.findUnique({ where: { agencyKey: mail.mgtKey } });
  if (!receipt) return;
  await inTransaction(deps, (tx) =>
    enqueueEmail(tx, { workspaceId: receipt.workspaceId, kind: 'cash_receipt', invoiceId: receipt.relatedInvoiceId, to: mail.email, ...receiptEmailText(receipt), now: deps.clock.now() }),
  );
}
