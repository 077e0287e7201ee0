/**
 * The CSV exports: invoices, deposits and cash receipts of a range of Korean days, read from the API's paged lists
 * (invoicePage, transactionPage, cashReceiptPage with their dateAfter/dateBefore filters: what every API key holder can
 * read the same way) and written by csv.ts.
 *
 * Choices:
 * - Headers in the page's language (the merchant opens the file); values as the API gives them (ids, statuses, match
 *   methods), so that a file reads the same to a program whichever language made it. Amounts are whole won, times KST.
 * - Each list's own date filter: invoices by creation day, deposits by the day the service recorded them, cash receipts
 *   by the day of the issuance request (the page says so).
 * - Bounded: at most MAX_EXPORT_DAYS days and MAX_EXPORT_ROWS rows per file (read 100 at a time: 200 requests at most),
 *   so a browser tab never holds an unbounded file; beyond that the merchant is asked for a shorter range.
 */
import { graphql, type ResultOf } from '../../graphql.ts';
import type { Lang } from '../../i18n.ts';
import { businessNumberText, csvDocument, kstDateTime, phoneText, type Cell } from './csv.ts';
import { daysBetween, isDay } from './days.ts';
import { w, type ReconciliationWord } from './words.ts';

export const MAX_EXPORT_DAYS = 366;
export const MAX_EXPORT_ROWS = 20_000;
/** The lists' largest page. */
export const EXPORT_PAGE = 100;

export const InvoicesPage = graphql(`
  query DashboardExportInvoices($offset: Int!, $limit: Int!, $filter: InvoiceFilter) {
    invoicePage(offset: $offset, limit: $limit, filter: $filter) {
      totalItems
      items { id number status amount createdAt expiresAt paidAt canceledAt cancelReason customer { name email phoneNumber } }
    }
  }
`);

export const DepositsPage = graphql(`
  query DashboardExportDeposits($offset: Int!, $limit: Int!, $filter: TransactionFilter) {
    transactionPage(offset: $offset, limit: $limit, filter: $filter) {
      totalItems
      items { id receivedAt createdAt description amount bankAccountId bankAccount { alias number } source matchedInvoiceId matchMethod hidden }
    }
  }
`);

export const ReceiptsPage = graphql(`
  query DashboardExportReceipts($offset: Int!, $limit: Int!, $filter: CashReceiptFilter) {
    cashReceiptPage(offset: $offset, limit: $limit, filter: $filter) {
      totalItems
      items { id kind status type issuedAt identifier amount supplyCost tax canceledAmount relatedInvoiceId originalId ntsConfirmNum }
    }
  }
`);

type Invoice = ResultOf<typeof InvoicesPage>['invoicePage']['items'][number];
type Deposit = ResultOf<typeof DepositsPage>['transactionPage']['items'][number];
type Receipt = ResultOf<typeof ReceiptsPage>['cashReceiptPage']['items'][number];

/** A column: its header's word and its cell. */
export type Column<T> = readonly [ReconciliationWord, (row: T) => Cell];

const yesNo = (v: boolean) => (v ? 'Y' : 'N');

export const INVOICE_COLUMNS: readonly Column<Invoice>[] = [
  ['hId', (i) => i.id],
  ['hNumber', (i) => i.number],
  ['hStatus', (i) => i.status],
  ['hCustomer', (i) => i.customer.name],
  ['hEmail', (i) => i.customer.email],
  ['hPhone', (i) => phoneText(i.customer.phoneNumber)],
  ['hAmount', (i) => i.amount],
  ['hCreatedAt', (i) => kstDateTime(i.createdAt)],
  ['hExpiresAt', (i) => kstDateTime(i.expiresAt)],
  ['hPaidAt', (i) => kstDateTime(i.paidAt)],
  ['hCanceledAt', (i) => kstDateTime(i.canceledAt)],
  ['hCancelReason', (i) => i.cancelReason],
];

export const DEPOSIT_COLUMNS: readonly Column<Deposit>[] = [
  ['hId', (d) => d.id],
  ['hReceivedAt', (d) => kstDateTime(d.receivedAt)],
  ['hRecordedAt', (d) => kstDateTime(d.createdAt)],
  ['hCustomer', (d) => d.description],
  ['hAmount', (d) => d.amount],
  ['hAccountId', (d) => d.bankAccountId],
  ['hAccountAlias', (d) => d.bankAccount.alias],
  ['hAccountNumber', (d) => ({ digits: d.bankAccount.number })],
  ['hSource', (d) => d.source],
  ['hMatchedInvoice', (d) => d.matchedInvoiceId],
  ['hMatchMethod', (d) => d.matchMethod],
  ['hHidden', (d) => yesNo(d.hidden)],
];

export const RECEIPT_COLUMNS: readonly Column<Receipt>[] = [
  ['hId', (r) => r.id],
  ['hKind', (r) => r.kind],
  ['hStatus', (r) => r.status],
  ['hType', (r) => r.type],
  ['hIssuedAt', (r) => kstDateTime(r.issuedAt)],
  ['hIdentifier', (r) => (r.type === 'CORPORATE' ? businessNumberText(r.identifier) : phoneText(r.identifier))],
  ['hAmount', (r) => r.amount],
  ['hSupplyCost', (r) => r.supplyCost],
  ['hTax', (r) => r.tax],
  ['hCanceledAmount', (r) => r.canceledAmount],
  ['hRelatedInvoice', (r) => r.relatedInvoiceId],
  ['hOriginal', (r) => r.originalId],
  ['hConfirmNum', (r) => r.ntsConfirmNum],
];

/** The file of `rows` with `columns`, headers in `lang`. */
export function exportCsv<T>(lang: Lang, columns: readonly Column<T>[], rows: readonly T[]): string {
  return csvDocument(
    columns.map(([word]) => w(lang, word)),
    rows.map((row) => columns.map(([, cell]) => cell(row))),
  );
}

/** What is wrong with a range the merchant typed, as a word to show; null when it can be exported. */
export function rangeProblem(from: string, to: string): ReconciliationWord | null {
  if (!isDay(from) || !isDay(to)) return 'badDate';
  if (daysBetween(from, to) === 0) return 'badOrder';
  if (daysBetween(from, to) > MAX_EXPORT_DAYS) return 'tooLong';
  return null;
}

/** One page of a list: its rows and how many the filter matches in all. */
export interface ListPage<T> {
  items: readonly T[];
  totalItems: number;
}

export type ReadAll<T> =
  | { ok: true; rows: T[] }
  | { ok: false; reason: 'tooMany'; total: number }
  | { ok: false; reason: 'stopped' };

/**
 * Every row of a list, a page at a time (`readPage(offset)`), reporting progress after each page. Refuses before
 * reading further when the list has more than `maxRows`; stops when `stopped()` says so.
 *
 * The lists are newest first and paged by offset: a row created while the export runs pushes the older ones one place
 * down, so a row may come twice at a page boundary (kept once, by id) but none is skipped.
 */
export async function readAllPages<T extends { id: string }>(
  readPage: (offset: number) => Promise<ListPage<T>>,
  onProgress: (read: number, total: number) => void,
  stopped: () => boolean,
  maxRows = MAX_EXPORT_ROWS,
): Promise<ReadAll<T>> {
  const rows = new Map<string, T>();
  let offset = 0;
  for (;;) {
    const page = await readPage(offset);
    if (page.totalItems > maxRows) return { ok: false, reason: 'tooMany', total: page.totalItems };
    for (const row of page.items) if (!rows.has(row.id)) rows.set(row.id, row);
    offset += page.items.length;
    onProgress(rows.size, Math.max(page.totalItems, rows.size));
    if (page.items.length === 0 || offset >= page.totalItems) return { ok: true, rows: [...rows.values()] };
    if (stopped()) return { ok: false, reason: 'stopped' };
  }
}
