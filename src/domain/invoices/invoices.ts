/**
 * Invoices (spec: Invoice object, States, POST/GET/DELETE /v1/invoices, mark-as-paid, v2 cancel): creation with the
 * conflict check, reads and lists with the key's account scope, mark-as-paid, v1 delete (= cancel, hidden from v1)
 * and v2 cancel. Every state change writes its history line and its outbox event in the same transaction.
 */
import type { Invoice } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { actorOf, assertCanWrite, assertReceivingAccountsInScope, invoiceInScope, requirePrincipal } from '../auth/rules.ts';
import { holdUsableReceivingAccounts } from '../bank-accounts/bank-accounts.ts';
import { parseKstRange } from '../dates.ts';
import { inRawTransaction, inTransaction, noteEventsWritten, type Deps, type RawQuery, type Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents, type NewEvent } from '../events/outbox.ts';
import { invoiceNameColumns, normalizeName } from '../deposits/depositor-name.ts';
import { newId } from '../ids.ts';
import { parseOffsetPage } from '../paging.ts';
import { findInWorkspace, inRange, pageOfIds, searchTerm, type LookupRefusals } from '../workspace-rows.ts';
import { SqlWhere, likeContains } from '../sql.ts';
import { shortSearchGram } from '../search-grams.ts';
import { searchNormalize } from '../validation.ts';
import { invoiceSearchText, parseCancelInvoiceRequest, parseCreateInvoiceInput, type CreateInvoiceInput } from './invoice-input.ts';
import { applyInvoiceTransition, effectiveStatus, expirySql, statusSql, transitionFromSql } from './invoice-state.ts';
import { autoIssueForPaidInvoice } from '../cash-receipts/issue.ts';
import { addHistory } from './history.ts';
import { queueShopConfirmation } from '../shops/confirmation-queue.ts';

export { addHistory } from './history.ts';

/** The invoice as stored in event payloads: every field, timestamps as ISO strings (JSON-safe). */
export function invoiceSnapshot(i: Invoice, now: Date) {
  return {
    id: i.id,
    workspaceId: i.workspaceId,
    number: i.number,
    issuerId: i.issuerId,
    status: effectiveStatus(i, now),
    bankAccountIds: i.bankAccountIds,
    customer: { name: i.customerName, email: i.customerEmail, phoneNumber: i.customerPhoneNumber },
    cashReceipt: i.cashReceiptType ? { type: i.cashReceiptType, identifier: i.cashReceiptIdentifier } : null,
    amount: i.amount,
    metadata: i.metadata ?? null,
    expiresAt: i.expiresAt?.toISOString() ?? null,
    paidAt: i.paidAt?.toISOString() ?? null,
    paidTrigger: i.paidTrigger,
    canceledAt: i.canceledAt?.toISOString() ?? null,
    cancelReason: i.cancelReason,
    canceledBy: i.canceledBy ?? null,
    guideEmailSentAt: i.guideEmailSentAt?.toISOString() ?? null,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

const INVOICE_TIMESTAMPS = ['expiresAt', 'paidAt', 'canceledAt', 'guideEmailSentAt', 'createdAt', 'updatedAt'] as const satisfies readonly (keyof Invoice)[];

/** An invoice row from its JSON (PostgreSQL `to_jsonb` of the row, e.g. carried on the event bus): timestamps back to Dates. */
export function invoiceFromJson(row: Record<string, unknown>): Invoice {
  const out: Record<string, unknown> = { ...row };
  for (const f of INVOICE_TIMESTAMPS) if (typeof out[f] === 'string') out[f] = new Date(out[f] as string);
  return out as unknown as Invoice;
}

export function invoiceEvent(type: NewEvent['type'], i: Invoice, now: Date, extra: Record<string, unknown> = {}): NewEvent {
  return {
    workspaceId: i.workspaceId,
    type,
    invoiceId: i.id,
    bankAccountIds: i.bankAccountIds,
    data: { invoice: invoiceSnapshot(i, now), ...extra },
    createdAt: now,
  };
}

/** The conflict check's lookup ($2 the normalised name; index Invoice_name_prefix_idx). Exported for the plan test. */
export const CONFLICTING_INVOICE_SQL = `SELECT id, number FROM "Invoice"
      WHERE "workspaceId" = $1 AND "customerNameKey" = $2 AND amount = $3 AND ${transitionFromSql('DEPOSIT_MATCH', '$4::timestamptz')}
        AND id <> $5
        AND (cardinality("bankAccountIds") = 0 OR cardinality($6::text[]) = 0 OR "bankAccountIds" && $6::text[])
      LIMIT 1`;

/**
 * The conflict check (spec: 409 INVOICE_ALREADY_EXISTS): no two payable invoices of the same normalised name and
 * amount on overlapping accounts (empty = all), since a deposit would hit both and could pay neither.
 */
export async function findConflictingInvoice(
  q: RawQuery,
  args: { workspaceId: string; customerName: string; amount: number; bankAccountIds: readonly string[]; excludeId?: string; now: Date },
): Promise<{ id: string; number: number } | null> {
  const name = normalizeName(args.customerName);
  // A transaction-scoped lock on (workspace, name, amount) serialises exactly the creates and updates that could conflict.
  await q(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))::text AS locked`, [`${args.workspaceId}\u0001${name}\u0001${args.amount}`], { prepare: true });
  const rows = await q<{ id: string; number: number }>(
    CONFLICTING_INVOICE_SQL,
    [args.workspaceId, name, args.amount, args.now.toISOString(), args.excludeId ?? '', [...args.bankAccountIds]],
    { prepare: true },
  );
  return rows[0] ? { id: rows[0].id, number: Number(rows[0].number) } : null;
}

/**
 * Stores a new invoice in one statement: the workspace's next number and event sequence, the invoice, its `created`
 * history line and `invoice.created` event. Raw SQL because POST /v1/invoices is a hot path: one round trip.
 */
async function insertNewInvoice(
  q: RawQuery,
  i: {
    id: string;
    workspaceId: string;
    issuerId: string;
    createdByApiKeyId: string | null;
    bankAccountIds: readonly string[];
    customerName: string;
    customerEmail: string | null;
    customerPhoneNumber: string | null;
    cashReceiptType: string | null;
    cashReceiptIdentifier: string | null;
    amount: number;
    metadata: Record<string, string> | null;
    searchText: string;
    expiresAt: Date | null;
    now: Date;
  },
  history: { id: string; actor: unknown },
  event: { id: string },
): Promise<Invoice> {
  const names = invoiceNameColumns(i.customerName);
  // The event's invoice snapshot is complete but for the number, which the statement fills in.
  const draft = invoiceSnapshot(
    {
      ...i,
      bankAccountIds: [...i.bankAccountIds],
      number: 0,
      status: 'PENDING',
      ...names,
      cashReceiptType: i.cashReceiptType as Invoice['cashReceiptType'],
      metadata: i.metadata,
      paidAt: null,
      paidTrigger: null,
      canceledAt: null,
      cancelReason: null,
      canceledBy: null,
      deletedViaV1: false,
      guideEmailSentAt: null,
      createdAt: i.now,
      updatedAt: i.now,
    } as Invoice,
    i.now,
  );
  noteEventsWritten(q);
  const rows = await q<Invoice>(
    `WITH seq AS (
       UPDATE "Workspace" SET "invoiceSeq" = "invoiceSeq" + 1, "eventSeq" = "eventSeq" + 1 WHERE id = $2 RETURNING "invoiceSeq", "eventSeq"
     ), inv AS (
       INSERT INTO "Invoice" (id, "workspaceId", number, "issuerId", "createdByApiKeyId", "bankAccountIds", "customerName", "customerNameBare",
                              "customerEmail", "customerPhoneNumber", "cashReceiptType", "cashReceiptIdentifier", amount, metadata, "searchText",
                              "expiresAt", "createdAt", "updatedAt", "customerNameKey")
       SELECT $1, $2, seq."invoiceSeq", $3, $4, $5::text[], $6, $7, $8, $9, $10::"CashReceiptType", $11, $12::int, $13::jsonb, $14,
              $15::timestamptz, $16::timestamptz, $16::timestamptz, $21
         FROM seq
       RETURNING *
     ), history AS (
       INSERT INTO "InvoiceHistoryEntry" (id, "invoiceId", type, actor, data, "createdAt")
       SELECT $17, inv.id, 'created', $18::jsonb, NULL, $16::timestamptz FROM inv
     ), event AS (
       INSERT INTO "Event" (id, "workspaceId", sequence, type, "invoiceId", "cashReceiptId", "bankAccountIds", data, "createdAt")
       SELECT $19, $2, seq."eventSeq", 'invoice.created', $1, NULL, $5::text[], jsonb_set($20::jsonb, '{invoice,number}', to_jsonb(seq."invoiceSeq")), $16::timestamptz
         FROM seq
     )
     SELECT * FROM inv`,
    [
    i.id,
    i.workspaceId,
    i.issuerId,
    i.createdByApiKeyId,
    [...i.bankAccountIds],
    i.customerName,
    names.customerNameBare,
    i.customerEmail,
    i.customerPhoneNumber,
    i.cashReceiptType,
    i.cashReceiptIdentifier,
    i.amount,
    i.metadata === null ? null : JSON.stringify(i.metadata),
    i.searchText,
    i.expiresAt?.toISOString() ?? null,
    i.now.toISOString(),
    history.id,
    history.actor === null || history.actor === undefined ? null : JSON.stringify(history.actor),
    event.id,
    JSON.stringify({ invoice: draft }),
    names.customerNameKey,
    ],
    { prepare: true },
  );
  if (!rows[0]) throw new Error(`workspace ${i.workspaceId} vanished`);
  return rows[0];
}

/** createInvoice (POST /v1/invoices): validates, checks scope, accounts and conflicts, stores, emits invoice.created. */
export async function createInvoice(deps: Deps, principal: Principal | null, raw: unknown): Promise<Invoice> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const input = parseCreateInvoiceInput(raw);
  assertReceivingAccountsInScope(p, input.bankAccountIds);
  return inRawTransaction(deps, (q) =>
    insertCheckedInvoice(q, { workspaceId: p.workspaceId, issuerId: p.accountId ?? p.workspaceOwnerId, createdByApiKeyId: p.apiKeyId, actor: actorOf(p) }, input, deps.clock.now()),
  );
}

/** Who creates an invoice: the workspace, the issuing account, the API key (if any) and the history line's actor. */
export interface InvoiceCreator {
  workspaceId: string;
  issuerId: string;
  createdByApiKeyId: string | null;
  actor: unknown;
}

/**
 * Stores a parsed invoice in the caller's transaction after the order conflict check (INVOICE_ALREADY_EXISTS): the
 * one way an invoice is created, by a request or by a shop order's import.
 */
export async function insertCheckedInvoice(q: RawQuery, who: InvoiceCreator, input: CreateInvoiceInput, now: Date): Promise<Invoice> {
  await holdUsableReceivingAccounts(q, who.workspaceId, input.bankAccountIds);
  const conflict = await findConflictingInvoice(q, {
    workspaceId: who.workspaceId,
    customerName: input.customer.name,
    amount: input.amount,
    bankAccountIds: input.bankAccountIds,
    now,
  });
  if (conflict) throw new DomainError('INVOICE_ALREADY_EXISTS', { data: { invoiceId: conflict.id, number: conflict.number } });
  const fields = {
    customerName: input.customer.name,
    customerEmail: input.customer.email,
    customerPhoneNumber: input.customer.phoneNumber,
    cashReceiptIdentifier: input.cashReceipt?.identifier ?? null,
  };
  return insertNewInvoice(
    q,
    {
      id: newId('invoice'),
      workspaceId: who.workspaceId,
      issuerId: who.issuerId,
      createdByApiKeyId: who.createdByApiKeyId,
      bankAccountIds: input.bankAccountIds,
      ...fields,
      cashReceiptType: input.cashReceipt?.type ?? null,
      amount: input.amount,
      metadata: input.metadata,
      searchText: invoiceSearchText(fields),
      expiresAt: input.expiresAt ?? (input.expireAfterMs === null ? null : new Date(now.getTime() + input.expireAfterMs)),
      now,
    },
    { id: newId('history'), actor: who.actor },
    { id: newId('event') },
  );
}

/**
 * Loads an invoice the principal may handle: INVALID_INVOICE_ID, INVOICE_NOT_FOUND, FOREIGN_INVOICE (v1 403), or
 * OUT_OF_SCOPE for an account-limited key; canceled with `hideCanceled` (v1) → INVOICE_NOT_FOUND.
 */
export async function loadInvoiceFor(
  db: Tx | Deps['prisma'],
  p: Principal,
  id: unknown,
  opts: { hideCanceled?: boolean } = {},
): Promise<Invoice> {
  const invoice = await findInWorkspace(p, 'invoice', id, INVOICE_REFUSALS, (id) => db.invoice.findUnique({ where: { id } }));
  if (opts.hideCanceled && invoice.status === 'CANCELED') throw new DomainError('INVOICE_NOT_FOUND');
  if (!invoiceInScope(p, invoice.bankAccountIds)) throw new DomainError('OUT_OF_SCOPE');
  return invoice;
}

const INVOICE_REFUSALS: LookupRefusals = { invalid: 'INVALID_INVOICE_ID', notFound: 'INVOICE_NOT_FOUND', foreign: 'FOREIGN_INVOICE' };

/** getInvoice (GET /v1/invoices/{id}). */
export async function getInvoice(deps: Deps, principal: Principal | null, id: unknown, opts: { hideCanceled?: boolean } = {}) {
  return loadInvoiceFor(deps.prisma, requirePrincipal(principal), id, opts);
}

export interface InvoiceListFilter {
  offset: unknown;
  limit: unknown;
  search?: string | null;
  paid?: boolean | null;
  expired?: boolean | null;
  /** Effective statuses to include (GraphQL/v2); absent = all but CANCELED when hideCanceled. */
  statuses?: ('PENDING' | 'EXPIRED' | 'PAID' | 'CANCELED')[] | null;
  dateAfter?: string | null;
  dateBefore?: string | null;
  hideCanceled?: boolean;
}

/** listInvoices (GET /v1/invoices): filters, key scope, newest first; returns the page's ids in order and the total. */
export async function listInvoiceIds(deps: Deps, principal: Principal | null, f: InvoiceListFilter): Promise<{ ids: string[]; total: number }> {
  const p = requirePrincipal(principal);
  const page = parseOffsetPage(f.offset, f.limit);
  const range = parseKstRange(f.dateAfter, f.dateBefore);
  const now = deps.clock.now();
  const w = new SqlWhere();
  w.and((v) => `"workspaceId" = ${v(p.workspaceId)}`);
  if (f.hideCanceled) w.and(`status <> 'CANCELED'`);
  if (p.bankAccountIds !== null) {
    w.and((v) => `cardinality("bankAccountIds") > 0 AND "bankAccountIds" <@ ${v(p.bankAccountIds, '::text[]')}`);
  }
  const nowSql = (v: (value: unknown, cast?: string) => string) => () => v(now.toISOString(), '::timestamptz');
  if (f.paid != null) w.and((v) => statusSql(f.paid ? ['PAID'] : ['PENDING', 'EXPIRED'], nowSql(v)));
  if (f.expired != null) w.and((v) => expirySql(f.expired!, nowSql(v)()));
  if (f.statuses && f.statuses.length > 0) w.and((v) => statusSql(f.statuses!, nowSql(v)));
  inRange(w, 'createdAt', range);
  const raw = searchTerm(f.search);
  const term = searchNormalize(raw);
  // A term of one or two characters (never an id: those are 28) is looked up in the invoices' n-grams; when nothing
  // else but canceled and the date limits the list, the page and the count read the grams' key alone.
  const gram = shortSearchGram(term);
  if (gram && p.bankAccountIds === null && f.paid == null && f.expired == null && !f.statuses?.length) {
    const g = new SqlWhere();
    g.and((v) => `"workspaceId" = ${v(p.workspaceId)} AND gram = ${v(gram)}`);
    if (f.hideCanceled) g.and(`NOT canceled`);
    inRange(g, 'createdAt', range);
    return pageOfIds(deps, 'InvoiceSearchGram', g, '"createdAt" DESC, number DESC', page, { counted: false, now });
  }
  if (gram) w.and((v) => `id IN (SELECT id FROM "InvoiceSearchGram" WHERE "workspaceId" = ${v(p.workspaceId)} AND gram = ${v(gram)})`);
  else if (term) w.and((v) => `id = ${v(raw)} OR "searchText" LIKE ${v(likeContains(term))}`);
  // Counted from ListCount unless a filter names a column it does not keep (search, dates).
  const counted = !term && !range.from && !range.until;
  return pageOfIds(deps, 'Invoice', w, '"createdAt" DESC, number DESC', page, { counted, now });
}

/** markInvoicePaid (POST /v1/invoices/{id}/mark-as-paid): pending or expired → paid, trigger API_CALL. */
export async function markInvoicePaid(deps: Deps, principal: Principal | null, id: unknown, opts: { hideCanceled?: boolean } = {}) {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  return inTransaction(deps, async (tx) => {
    const invoice = await loadInvoiceFor(tx, p, id, opts);
    const now = deps.clock.now();
    const paid = await applyInvoiceTransition(tx, invoice, 'MARK_AS_PAID', now, { paidAt: now, paidTrigger: 'API_CALL' });
    await addHistory(tx, paid.id, 'paid', now, actorOf(p), { trigger: 'API_CALL' });
    await autoIssueForPaidInvoice(tx, paid, now);
    // Spec: "linked shop order marked deposit-confirmed" (by the shop.confirm job, after this commits).
    await queueShopConfirmation(tx, paid, now);
    await recordEvents(tx, p.workspaceId, [invoiceEvent('invoice.paid', paid, now, { trigger: 'API_CALL', transaction: null })]);
    return paid;
  });
}

/** deleteInvoice (DELETE /v1/invoices/{id}): an unpaid invoice becomes canceled and invisible to v1; invoice.deleted. */
export async function deleteInvoice(deps: Deps, principal: Principal | null, id: unknown) {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  return inTransaction(deps, async (tx) => {
    const invoice = await loadInvoiceFor(tx, p, id, { hideCanceled: true });
    const now = deps.clock.now();
    const actor = actorOf(p);
    const canceled = await applyInvoiceTransition(tx, invoice, 'DELETE_V1', now, { canceledAt: now, canceledBy: actor, deletedViaV1: true });
    await addHistory(tx, canceled.id, 'deleted', now, actor);
    await recordEvents(tx, p.workspaceId, [invoiceEvent('invoice.deleted', canceled, now)]);
    return canceled;
  });
}

/** cancelInvoice (POST /v2/invoices/{id}/cancel): pending or expired → canceled with reason and who; invoice.canceled. */
export async function cancelInvoice(deps: Deps, principal: Principal | null, id: unknown, raw: unknown) {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const { reason } = parseCancelInvoiceRequest(raw);
  return inTransaction(deps, async (tx) => {
    const invoice = await loadInvoiceFor(tx, p, id);
    const now = deps.clock.now();
    const actor = actorOf(p);
    const canceled = await applyInvoiceTransition(tx, invoice, 'CANCEL', now, {
      canceledAt: now,
      canceledBy: actor,
      cancelReason: reason,
    });
    await addHistory(tx, canceled.id, 'canceled', now, actor, { reason });
    await recordEvents(tx, p.workspaceId, [invoiceEvent('invoice.canceled', canceled, now, { reason })]);
    return canceled;
  });
}
