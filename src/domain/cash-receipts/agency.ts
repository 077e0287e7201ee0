/**
 * The cash-receipt issuing agency port (Popbill-style: a management key per receipt, trade type approval or cancel,
 * the tax authority's result later). The simulated agency of the contract is the default adapter
 * (src/events/agency/simulated-agency.ts); a real agency's HTTP API is one more adapter.
 */
/** A receipt type's purpose as the tax authority names it (the agency's tradeUsage, and the receipt e-mail's words). */
export const RECEIPT_PURPOSE: Record<AgencyIssueRequest['type'], string> = { PERSONAL: '소득공제용', CORPORATE: '지출증빙용' };

export interface AgencyIssueRequest {
  /** Our management key for this receipt (idempotency key at the agency). */
  mgtKey: string;
  corpNum: string;
  tradeType: 'APPROVAL' | 'CANCEL';
  type: 'PERSONAL' | 'CORPORATE';
  identifier: string;
  amount: number;
  supplyCost: number;
  tax: number;
  /** For a cancellation: the original's management key and confirmation number. */
  original?: { mgtKey: string; ntsConfirmNum: string | null };
  requestedAt: Date;
}

export type AgencyResult =
  | { state: 'PENDING' }
  | { state: 'ISSUED'; ntsConfirmNum: string; ntsResultCode: string }
  | { state: 'FAILED'; ntsResultCode: string; message: string };

/** The agency call itself failed (not the tax authority's answer): the receipt is not registered. */
export class AgencyError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AgencyError';
  }
}

export interface CashReceiptAgency {
  readonly name: string;
  /** Registers a receipt (approval or cancellation); throws AgencyError when the call fails. */
  issue(req: AgencyIssueRequest): Promise<void>;
  /** The tax authority's result for a registered receipt, once known. */
  queryResult(req: { mgtKey: string; corpNum: string; identifier: string; requestedAt: Date }): Promise<AgencyResult>;
  /** Has the agency e-mail the receipt; throws AgencyError when it cannot. */
  sendEmail(req: { mgtKey: string; corpNum: string; email: string }): Promise<void>;
}
