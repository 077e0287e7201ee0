/** E-mailing a cash receipt (spec: POST /v2/cash-receipts/{id}/send-email): the agency sends it. */
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { AgencyError } from './agency.ts';
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
