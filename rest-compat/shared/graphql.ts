/**
 * The GraphQL operations the REST faces run, in one place: their selections, their documents and the shape of their
 * results. Each face renders a result in its own wire format (v1/wire.ts, v2/wire.ts).
 */
import { ON_ERROR } from './execute.ts';

interface Customer {
  name: string;
  email: string | null;
  phoneNumber: string | null;
}
type InvoiceCashReceipt = { type: string; identifier: string } | null;

const CUSTOMER_AND_RECEIPT = 'customer { name email phoneNumber } cashReceipt { type identifier }';

/** An invoice as v1 shows it. */
export interface GqlInvoice {
  id: string;
  bankAccountIds: string[];
  customer: Customer;
  cashReceipt: InvoiceCashReceipt;
  amount: number;
  paid: boolean;
  metadata: Record<string, string> | null;
  createdAt: string;
  expiresAt: string | null;
  status: string;
}
export const V1_INVOICE_FIELDS = `id bankAccountIds ${CUSTOMER_AND_RECEIPT} amount paid metadata createdAt expiresAt status`;

/** An invoice as v2 shows it (and the webhook payloads' invoice snapshot); `history` on single reads. */
export interface InvoiceView {
  id: string;
  number: number;
  status: string;
  bankAccountIds: string[];
  customer: Customer;
  cashReceipt: InvoiceCashReceipt;
  amount: number;
  metadata: Record<string, string> | null | unknown;
  expiresAt: string | null;
  paidAt: string | null;
  canceledAt: string | null;
  cancelReason: string | null;
  canceledBy: { type: string; accountId: string | null; apiKeyId: string | null; name: string } | null | unknown;
  guideEmailSentAt: string | null;
  createdAt: string;
  updatedAt: string;
  history?: { type: string; createdAt: string; actor?: unknown; data?: unknown }[];
}
export const V2_INVOICE_FIELDS = `id number status bankAccountIds ${CUSTOMER_AND_RECEIPT} amount metadata expiresAt paidAt canceledAt cancelReason canceledBy { type accountId apiKeyId name } guideEmailSentAt createdAt updatedAt`;
const V2_INVOICE_WITH_HISTORY = `${V2_INVOICE_FIELDS} history { type actor { type accountId apiKeyId name } data createdAt }`;

/** A deposit with the receiving account as it was when it arrived. */
export interface GqlTransaction {
  id: string;
  bankAccount: { id: string; active: boolean; alias: string; provider: string; type: string; number: string; createdAt: string; verifiedAt: string | null };
  matchedInvoiceId: string | null;
  matchMethod: string | null;
  amount: number;
  description: string;
  hidden: boolean;
  receivedAt: string;
  matchedAt: string | null;
  createdAt: string;
}
const TRANSACTION_FIELDS = `id bankAccount { id active alias provider type number createdAt verifiedAt } matchedInvoiceId matchMethod amount description hidden receivedAt matchedAt createdAt`;

/** A cash receipt, every field either face shows (timestamps as GraphQL or the stored record give them). */
export interface GqlCashReceipt {
  id: string;
  status: string;
  kind: string;
  corpNum: string;
  type: string;
  identifier: string;
  amount: number;
  supplyCost: number;
  tax: number;
  relatedInvoiceId: string | null;
  originalId: string | null;
  partial: boolean;
  cancelReason: string | null;
  canceledAmount: number;
  remainingAmount: number;
  reissuedFromId: string | null;
  reissuedToId: string | null;
  selfIssued: boolean;
  ntsConfirmNum: string | null;
  ntsResultCode: string | null;
  issuedAt: string | Date;
  revokedAt: string | Date | null;
  canceledAt: string | Date | null;
  deletedAt: string | Date | null;
}
const CASH_RECEIPT_FIELDS = `id status kind corpNum type identifier amount supplyCost tax relatedInvoiceId originalId partial cancelReason canceledAmount remainingAmount reissuedFromId reissuedToId selfIssued ntsConfirmNum ntsResultCode issuedAt revokedAt canceledAt deletedAt`;

/** A page of a list: the items of the page and the number matching the filter. */
export interface Page<T> {
  totalItems: number;
  items: T[];
}

const PAGE_ARGS = '$offset: Int!, $limit: Int!';
const page = (field: string, filter: string, fields: string) =>
  `query(${PAGE_ARGS}, $filter: ${filter}) { ${field}(offset: $offset, limit: $limit, filter: $filter) { totalItems items { ${fields} } } }`;
/** A mutation answering a result union: the payload's object, or the refusal as a DomainError. */
const mutation = (args: string, call: string, payload: string, selection: string) => `mutation(${args}) { ${call} { ${ON_ERROR} ... on ${payload} { ${selection} } } }`;

/** The operations' documents, named by what they do. */
export const OPS = {
  createInvoice: mutation('$input: CreateInvoiceInput!', 'createInvoice(input: $input)', 'InvoicePayload', `invoice { ${V1_INVOICE_FIELDS} }`),
  v1Invoice: `query($id: ID!) { invoice(id: $id, includeCanceled: false) { ${V1_INVOICE_FIELDS} } }`,
  v1Invoices: page('invoicePage', 'InvoiceFilter', V1_INVOICE_FIELDS),
  markInvoicePaid: mutation('$id: ID!', 'markInvoicePaid(id: $id)', 'InvoicePayload', `invoice { ${V1_INVOICE_FIELDS} }`),
  deleteInvoice: mutation('$id: ID!', 'deleteInvoice(id: $id)', 'InvoicePayload', 'invoice { id }'),
  transaction: `query($id: ID!) { transaction(id: $id) { ${TRANSACTION_FIELDS} } }`,
  transactions: page('transactionPage', 'TransactionFilter', TRANSACTION_FIELDS),
  // A fixed-payload mutation of the dashboard contract: its refusals are GraphQL errors, not a result union.
  matchTransaction: `mutation($input: MatchTransactionInput!) { matchTransaction(input: $input) { transaction { ${TRANSACTION_FIELDS} } } }`,
  issueCashReceipt: mutation('$input: IssueCashReceiptInput!', 'issueCashReceipt(input: $input)', 'CashReceiptPayload', `cashReceipt { ${CASH_RECEIPT_FIELDS} }`),
  cashReceipt: `query($id: ID!) { cashReceipt(id: $id) { ${CASH_RECEIPT_FIELDS} } }`,
  cashReceipts: page('cashReceiptPage', 'CashReceiptFilter', CASH_RECEIPT_FIELDS),
  revokeCashReceipt: mutation('$id: ID!', 'revokeCashReceipt(id: $id)', 'CashReceiptPayload', `cashReceipt { ${CASH_RECEIPT_FIELDS} }`),
  v2Invoice: `query($id: ID!) { invoice(id: $id) { ${V2_INVOICE_WITH_HISTORY} } }`,
  v2Invoices: page('invoicePage', 'InvoiceFilter', V2_INVOICE_FIELDS),
  updateInvoice: mutation('$id: ID!, $input: UpdateInvoiceInput!', 'updateInvoice(id: $id, input: $input)', 'InvoicePayload', `invoice { ${V2_INVOICE_FIELDS} }`),
  cancelInvoice: mutation('$id: ID!, $reason: String', 'cancelInvoice(id: $id, reason: $reason)', 'InvoicePayload', `invoice { ${V2_INVOICE_FIELDS} }`),
  cancelCashReceipt: mutation('$id: ID!, $input: CancelCashReceiptInput!', 'cancelCashReceipt(id: $id, input: $input)', 'CashReceiptPayload', `cashReceipt { ${CASH_RECEIPT_FIELDS} }`),
  reissueCashReceipt: mutation('$id: ID!, $input: ReissueCashReceiptInput!', 'reissueCashReceipt(id: $id, input: $input)', 'CashReceiptPayload', `cashReceipt { ${CASH_RECEIPT_FIELDS} }`),
  sendCashReceiptEmail: mutation('$id: ID!, $email: String!', 'sendCashReceiptEmail(id: $id, email: $email)', 'SendCashReceiptEmailPayload', 'cashReceiptId'),
} as const;
