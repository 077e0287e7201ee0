/**
 * Cash receipts (spec: Cash receipt object and state table; v1 /v1/cash-receipts*; v2 cancel, reissue, send-email).
 * A receipt is registered with the agency by a durable job (`receipt.issue`) and settled by another (`receipt.settle`)
 * when the tax authority answers; API calls that must report an agency failure run the first job inline.
 */
import type { CashReceipt, CashReceiptStatus } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, requirePrincipal } from '../auth/rules.ts';
import { linkedBusinessInfo } from '../business/business-info.ts';
import { addHistory } from '../invoices/history.ts';
import { parseKstRange } from '../dates.ts';
import { asRaw, inTransaction, noteJobsQueued, type Deps, type Sql, type Tx } from '../deps.ts';
import { z } from 'zod';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { absentBodyIsEmpty, codePoints, fail, parseRequest } from '../request-schema.ts';
import { isId, newId } from '../ids.ts';
import { parseOffsetPage } from '../paging.ts';
import { SqlWhere, likeContains } from '../sql.ts';
import { EMAIL_RE, MAX_WON, searchNormalize } from '../validation.ts';
import { AgencyError } from './agency.ts';
import { CASH_RECEIPT_TYPES, identifierFits, isCashReceiptType, type CashReceiptTypeName } from './identifier.ts';
import { splitCancellation, splitVat } from './vat.ts';

/** The tax authority's number for self-issued income-deduction receipts (010-000-1234). */
export const SELF_ISSUE_IDENTIFIER = '0100001234';
export const CANCEL_REASON_MAX = 100;
export const RECEIPT_EMAIL_MAX = 100;
/** An inline agency call owns its job for this long before the job runner may take it over (after a crash). */
const INLINE_LEASE_MS = 60_000;

function receiptSearchText(identifier: string, corpNum: string): string {
  return [identifier, corpNum].map(searchNormalize).join('\u0001');
}

/** The receipt as event payloads carry it (JSON-safe). */
export function receiptSnapshot(r: CashReceipt) {
  return {
    ...r,
    issuedAt: r.issuedAt.toISOString(),
    confirmedAt: r.confirmedAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
    canceledAt: r.canceledAt?.toISOString() ?? null,
    deletedAt: r.deletedAt?.toISOString() ?? null,
    updatedAt: r.updatedAt.toISOString(),
  };
}

interface NewReceipt {
  workspaceId: string;
  issuerId: string;
  corpNum: string;
  type: CashReceiptTypeName;
  identifier: string;
  amount: number;
  supplyCost: number;
  tax: number;
  kind?: 'ORIGINAL' | 'CANCELLATION';
  relatedInvoiceId?: string | null;
  originalId?: string | null;
  partial?: boolean;
  cancelReason?: string | null;
  reissuedFromId?: string | null;
  selfIssued?: boolean;
}

/** Creates a PENDING receipt and its `receipt.issue` job in the caller's transaction (one statement). */
async function createReceipt(db: Sql, r: NewReceipt, now: Date, opts: { inline: boolean }): Promise<CashReceipt> {
  const q = asRaw(db);
  const id = newId('cashReceipt');
  noteJobsQueued(q);
  const rows = await q<CashReceipt>(
    `WITH receipt AS (
       INSERT INTO "CashReceipt" (id, "workspaceId", "issuerId", status, kind, "corpNum", type, identifier, amount, "supplyCost", tax,
                                  "relatedInvoiceId", "originalId", partial, "cancelReason", "canceledAmount", "remainingAmount",
                                  "reissuedFromId", "selfIssued", "agencyKey", "searchText", "issuedAt", "updatedAt")
       VALUES ($1, $2, $3, 'PENDING', $4::"CashReceiptKind", $5, $6::"CashReceiptType", $7, $8::int, $9::int, $10::int,
               $11, $12, $13::boolean, $14, 0, $8::int, $15, $16::boolean, $1, $17, $18::timestamptz, $18::timestamptz)
       RETURNING *
     ), job AS (
       INSERT INTO "Job" (id, kind, payload, "runAt", "createdAt", "updatedAt")
       SELECT $19, 'receipt.issue', jsonb_build_object('receiptId', receipt.id), $20::timestamptz, $18::timestamptz, $18::timestamptz FROM receipt
     )
     SELECT * FROM receipt`,
    [
      id,
      r.workspaceId,
      r.issuerId,
      r.kind ?? 'ORIGINAL',
      r.corpNum,
      r.type,
      r.identifier,
      r.amount,
      r.supplyCost,
      r.tax,
      r.relatedInvoiceId ?? null,
      r.originalId ?? null,
      r.partial ?? false,
      r.cancelReason ?? null,
      r.reissuedFromId ?? null,
      r.selfIssued ?? false,
      receiptSearchText(r.identifier, r.corpNum),
      now.toISOString(),
      newId('job'),
      (opts.inline ? new Date(now.getTime() + INLINE_LEASE_MS) : now).toISOString(),
    ],
  );
  if (!rows[0]) throw new Error('cash receipt insert returned nothing');
  return rows[0];
}

/**
 * Registers a PENDING receipt with the agency (the `receipt.issue` job). On an agency failure the receipt becomes
 * FAILED (and a cancellation gives its amount back to the original); on success the result is settled later.
 * Returns the failure, if any. Safe to run twice (the agency is keyed by the receipt's management key).
 */
export async function registerWithAgency(deps: Deps, receiptId: string): Promise<{ receipt: CashReceipt; failure: AgencyError | null }> {
  const receipt = await deps.prisma.cashReceipt.findUniqueOrThrow({ where: { id: receiptId } });
  if (receipt.status !== 'PENDING') return { receipt, failure: null };
  const original = receipt.originalId ? await deps.prisma.cashReceipt.findUnique({ where: { id: receipt.originalId } }) : null;
  try {
    await deps.agency.issue({
      mgtKey: receipt.agencyKey,
      corpNum: receipt.corpNum,
      tradeType: receipt.kind === 'CANCELLATION' ? 'CANCEL' : 'APPROVAL',
      type: receipt.type,
      identifier: receipt.identifier,
      amount: receipt.amount,
      supplyCost: receipt.supplyCost,
      tax: receipt.tax,
      original: original ? { mgtKey: original.agencyKey, ntsConfirmNum: original.ntsConfirmNum } : undefined,
      requestedAt: receipt.issuedAt,
    });
  } catch (e) {
    if (!(e instanceof AgencyError)) throw e;
    const failed = await inTransaction(deps, async (tx) => {
      const now = deps.clock.now();
      const f = await tx.cashReceipt.update({
        where: { id: receipt.id },
        data: { status: 'FAILED', failureReason: `AGENCY_API_FAILED ${e.code}: ${e.message}`.slice(0, 500), updatedAt: now },
      });
      if (receipt.kind === 'CANCELLATION' && receipt.originalId) {
        // The cancellation did not happen: the original gets its amount back and its state before the cancel.
        await tx.cashReceipt.update({
          where: { id: receipt.originalId },
          data: { canceledAmount: { decrement: receipt.amount }, remainingAmount: { increment: receipt.amount }, status: 'ISSUED', canceledAt: null, revokedAt: null, updatedAt: now },
        });
      }
      await markIssueJobDone(tx, receipt.id, now);
      await recordEvents(tx, receipt.workspaceId, [receiptEvent('receipt.failed', f, now)]);
      return f;
    });
    return { receipt: failed, failure: e };
  }
  await inTransaction(deps, async (tx) => {
    const now = deps.clock.now();
    await markIssueJobDone(tx, receipt.id, now);
    noteJobsQueued(tx);
    await tx.job.create({
      data: { id: newId('job'), kind: 'receipt.settle', payload: { receiptId: receipt.id }, runAt: new Date(now.getTime() + deps.agencyResultDelayMs), createdAt: now, updatedAt: now },
    });
  });
  return { receipt, failure: null };
}

async function markIssueJobDone(tx: Tx, receiptId: string, now: Date) {
  await tx.$executeRawUnsafe(
    `UPDATE "Job" SET status = 'DONE', "lockedUntil" = NULL, "updatedAt" = $2::timestamptz WHERE kind = 'receipt.issue' AND status = 'PENDING' AND payload->>'receiptId' = $1`,
    receiptId,
    now.toISOString(),
  );
}

function receiptEvent(type: 'receipt.issued' | 'receipt.failed', r: CashReceipt, now: Date) {
  return { workspaceId: r.workspaceId, type, cashReceiptId: r.id, invoiceId: r.relatedInvoiceId, data: { cashReceipt: receiptSnapshot(r) }, createdAt: now };
}

/**
 * Settles a registered receipt with the tax authority's result (the `receipt.settle` job): PENDING → ISSUED (with the
 * confirmation number and result code) or FAILED. Returns false while the result is not known yet.
 */
export async function settleReceipt(deps: Deps, receiptId: string): Promise<boolean> {
  const receipt = await deps.prisma.cashReceipt.findUniqueOrThrow({ where: { id: receiptId } });
  if (receipt.ntsResultCode !== null || receipt.failureReason !== null) return true;
  const result = await deps.agency.queryResult({ mgtKey: receipt.agencyKey, corpNum: receipt.corpNum, identifier: receipt.identifier, requestedAt: receipt.issuedAt });
  if (result.state === 'PENDING') return false;
  await inTransaction(deps, async (tx) => {
    const now = deps.clock.now();
    const issued = result.state === 'ISSUED';
    // The original may already be canceled or revoked by the time its result arrives: only PENDING changes status.
    const res = await tx.cashReceipt.updateMany({
      where: { id: receipt.id, ntsResultCode: null },
      data: issued
        ? { ntsConfirmNum: result.ntsConfirmNum, ntsResultCode: result.ntsResultCode, confirmedAt: now, updatedAt: now }
        : { ntsResultCode: result.ntsResultCode, failureReason: result.message, updatedAt: now },
    });
    if (res.count === 0) return;
    await tx.cashReceipt.updateMany({ where: { id: receipt.id, status: 'PENDING' }, data: { status: issued ? 'ISSUED' : 'FAILED' } });
    if (!issued && receipt.kind === 'CANCELLATION' && receipt.originalId) {
      // The tax authority refused the cancellation: it did not happen, the original gets its amount back.
      await tx.cashReceipt.update({
        where: { id: receipt.originalId },
        data: { canceledAmount: { decrement: receipt.amount }, remainingAmount: { increment: receipt.amount }, status: 'ISSUED', canceledAt: null, revokedAt: null, updatedAt: now },
      });
    }
    const settled = await tx.cashReceipt.findUniqueOrThrow({ where: { id: receipt.id } });
    await recordEvents(tx, settled.workspaceId, [receiptEvent(issued ? 'receipt.issued' : 'receipt.failed', settled, now)]);
  });
  return true;
}

/** Runs a just-created receipt's agency registration now; an agency failure becomes `code` with the receipt in data. */
async function registerInline(deps: Deps, receipt: CashReceipt, code: 'AGENCY_API_FAILED'): Promise<CashReceipt> {
  const { receipt: after, failure } = await registerWithAgency(deps, receipt.id);
  if (failure) throw new DomainError(code, { data: { receipt: after, agency: { code: failure.code, message: failure.message } } });
  return after;
}

// ───────────────────────────── Issue ─────────────────────────────

/** The issue body (spec: POST /v1/cash-receipts): type in the enum (else BAD_REQUEST), identifier fit for the type, amount > 0. */
export const issueRequestSchema = z
  .object(
    {
      type: z.enum(CASH_RECEIPT_TYPES, { error: fail('INVALID_CASH_RECEIPT_TYPE') }),
      identifier: z
        .string({ error: fail('INVALID_CASH_RECEIPT_IDENTIFIER') })
        .meta({ description: 'PERSONAL: phone number (10-11 digits); CORPORATE: business registration number (10 digits); no hyphens.', pattern: '^\\d{10,11}$' }),
      // A whole number by refinement, not .int(): zod's int check aborts the object, which would skip the identifier check.
      amount: z
        .number({ error: fail('INVALID_CASH_RECEIPT_AMOUNT') })
        .refine(Number.isSafeInteger)
        .min(1)
        .max(MAX_WON)
        .meta({ type: 'integer', description: 'Won, VAT included, greater than 0.' }),
    },
    { error: fail('BAD_REQUEST') },
  )
  // Judged as soon as type and identifier are known, and reported at identifier (before amount, in the spec's order).
  .refine((r) => identifierFits(r.type, r.identifier), {
    error: fail('INVALID_CASH_RECEIPT_IDENTIFIER'),
    path: ['identifier'],
    when: (p) => !p.issues.some((i) => !i.path?.length || i.path[0] === 'type' || i.path[0] === 'identifier'),
  });

/** Parses an issue request: type in the enum (else BAD_REQUEST), identifier fit for the type, amount > 0. */
export function parseIssueRequest(raw: unknown): { type: CashReceiptTypeName; identifier: string; amount: number } {
  return parseRequest(issueRequestSchema, raw);
}

/** issueCashReceipt (POST /v1/cash-receipts): a PENDING receipt registered with the agency now. */
export async function issueCashReceipt(deps: Deps, principal: Principal | null, raw: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const input = parseIssueRequest(raw);
  const business = await linkedBusinessInfo(deps.prisma, p.workspaceId);
  if (!business) throw new DomainError('BUSINESS_INFO_NOT_REGISTERED');
  const receipt = await inTransaction(deps, async (tx) =>
    createReceipt(tx, { workspaceId: p.workspaceId, issuerId: p.accountId ?? p.workspaceOwnerId, corpNum: business.corpNum, ...input, ...splitVat(input.amount) }, deps.clock.now(), { inline: true }),
  );
  return registerInline(deps, receipt, 'AGENCY_API_FAILED');
}

/**
 * Auto-issue on payment (spec: States — invoice paid): in the payment's transaction, a PENDING receipt for the invoice's
 * `cashReceipt` (the agency is called by a job after commit), or — without business info — a history line saying why
 * none was issued.
 */
export async function autoIssueForPaidInvoice(
  db: Sql,
  invoice: { id: string; workspaceId: string; issuerId: string; amount: number; cashReceiptType: CashReceiptTypeName | null; cashReceiptIdentifier: string | null },
  now: Date,
): Promise<{ receiptId: string } | { skipped: string } | null> {
  if (!invoice.cashReceiptType || !invoice.cashReceiptIdentifier) return null;
  const q = asRaw(db);
  const [state] = await q<{ corpNum: string | null; existingId: string | null }>(
    // Linked = agencyLinkedAt set, as linkedBusinessInfo() reads it.
    `SELECT (SELECT "corpNum" FROM "BusinessInfo" WHERE "workspaceId" = $1 AND "agencyLinkedAt" IS NOT NULL) AS "corpNum",
            (SELECT id FROM "CashReceipt" WHERE "relatedInvoiceId" = $2 AND kind = 'ORIGINAL' AND status IN ('PENDING', 'ISSUED') LIMIT 1) AS "existingId"`,
    [invoice.workspaceId, invoice.id],
  );
  if (!state?.corpNum) {
    await addHistory(q, invoice.id, 'cash_receipt_skipped', now, null, { reason: 'BUSINESS_INFO_NOT_REGISTERED' });
    return { skipped: 'BUSINESS_INFO_NOT_REGISTERED' };
  }
  if (state.existingId) return { receiptId: state.existingId };
  const receipt = await createReceipt(
    q,
    {
      workspaceId: invoice.workspaceId,
      issuerId: invoice.issuerId,
      corpNum: state.corpNum,
      type: invoice.cashReceiptType,
      identifier: invoice.cashReceiptIdentifier,
      amount: invoice.amount,
      ...splitVat(invoice.amount),
      relatedInvoiceId: invoice.id,
    },
    now,
    { inline: false },
  );
  await addHistory(q, invoice.id, 'cash_receipt_requested', now, null, { cashReceiptId: receipt.id });
  return { receiptId: receipt.id };
}

// ───────────────────────────── Reads ─────────────────────────────

/** Loads a receipt of the principal's workspace (cash receipts are not limited by bank account). */
export async function loadReceiptFor(db: Tx | Deps['prisma'], p: Principal, id: unknown): Promise<CashReceipt> {
  if (!isId('cashReceipt', id)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
  const r = await db.cashReceipt.findUnique({ where: { id } });
  if (!r || r.deletedAt) throw new DomainError('CASH_RECEIPT_NOT_FOUND');
  if (r.workspaceId !== p.workspaceId) throw new DomainError('FOREIGN_CASH_RECEIPT');
  return r;
}

export async function getCashReceipt(deps: Deps, principal: Principal | null, id: unknown) {
  return loadReceiptFor(deps.prisma, requirePrincipal(principal), id);
}

export interface ReceiptListFilter {
  offset: unknown;
  limit: unknown;
  search?: string | null;
  status?: string | null;
  /** Any of these statuses (v1's REVOKED also finds v2-canceled receipts). */
  statuses?: string[] | null;
  type?: string | null;
  identifier?: string | null;
  corpNum?: string | null;
  dateAfter?: string | null;
  dateBefore?: string | null;
}

/** Every status a receipt can have (spec: Cash receipt state table); the faces read their lists from here. */
export const RECEIPT_STATUSES = ['PENDING', 'ISSUED', 'FAILED', 'REVOKED', 'CANCELED'] as const satisfies readonly CashReceiptStatus[];
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];
const isReceiptStatus = (s: string): s is ReceiptStatus => (RECEIPT_STATUSES as readonly string[]).includes(s);

/** listCashReceipts (GET /v1/cash-receipts): filters, newest first by issuance request date. */
export async function listCashReceiptIds(deps: Deps, principal: Principal | null, f: ReceiptListFilter): Promise<{ ids: string[]; total: number }> {
  const p = requirePrincipal(principal);
  const page = parseOffsetPage(f.offset, f.limit);
  const range = parseKstRange(f.dateAfter, f.dateBefore);
  if (f.status != null && !isReceiptStatus(f.status)) throw new DomainError('BAD_REQUEST', { path: ['status'], message: `status must be one of ${RECEIPT_STATUSES.join(', ')}.` });
  if (f.type != null && !isCashReceiptType(f.type)) throw new DomainError('BAD_REQUEST', { path: ['type'], message: 'type must be PERSONAL or CORPORATE.' });
  const w = new SqlWhere();
  w.and((v) => `"workspaceId" = ${v(p.workspaceId)} AND "deletedAt" IS NULL`);
  if (f.status) w.and((v) => `status::text = ${v(f.status)}`);
  if (f.statuses && f.statuses.length) {
    for (const st of f.statuses) if (!isReceiptStatus(st)) throw new DomainError('BAD_REQUEST', { path: ['statuses'] });
    w.and((v) => `status::text = ANY(${v(f.statuses, '::text[]')})`);
  }
  if (f.type) w.and((v) => `type::text = ${v(f.type)}`);
  if (f.identifier) w.and((v) => `identifier = ${v(f.identifier)}`);
  if (f.corpNum) w.and((v) => `"corpNum" = ${v(f.corpNum!.replace(/-/g, ''))}`);
  if (range.from) w.and((v) => `"issuedAt" >= ${v(range.from!.toISOString(), '::timestamptz')}`);
  if (range.until) w.and((v) => `"issuedAt" < ${v(range.until!.toISOString(), '::timestamptz')}`);
  const raw = f.search ? f.search.replace(/[\u0000-\u001f]/g, '').trim() : '';
  if (raw) {
    w.and((v) => {
      const exact = v(raw);
      return `id = ${exact} OR "relatedInvoiceId" = ${exact} OR "corpNum" = ${v(raw.replace(/-/g, ''))} OR identifier LIKE ${v(likeContains(raw.replace(/-/g, '')))}`;
    });
  }
  const where = w.toString();
  const countRows = await deps.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM "CashReceipt" WHERE ${where}`, ...w.params);
  const rows = await deps.prisma.$queryRawUnsafe<{ id: string }[]>(
    `SELECT id FROM "CashReceipt" WHERE ${where} ORDER BY "issuedAt" DESC, id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
    ...w.params,
  );
  return { ids: rows.map((r) => r.id), total: Number(countRows[0]?.n ?? 0) };
}

// ───────────────────────────── Cancel and revoke ─────────────────────────────

/** Why a receipt cannot be canceled (240006 `data.reason`), or null when it can. */
export function cancelRefusal(r: Pick<CashReceipt, 'kind' | 'status' | 'remainingAmount'>): { reason: string; message: string } | null {
  if (r.kind === 'CANCELLATION') return { reason: 'CANCELLATION_RECEIPT', message: 'A cancellation receipt cannot be canceled.' };
  if (r.status === 'PENDING') return { reason: 'NTS_PENDING', message: 'The tax authority has not processed the receipt yet (usually by 10:00 the next day).' };
  if (r.status === 'FAILED') return { reason: 'NOT_ISSUED', message: 'The receipt was not issued.' };
  if (r.status === 'CANCELED' || r.status === 'REVOKED' || r.remainingAmount <= 0) return { reason: 'FULLY_CANCELED', message: 'The receipt is already fully canceled.' };
  return null;
}

/**
 * Cancels `amount` (default: all that remains) of an ISSUED receipt: a CANCELLATION receipt (PENDING) for that amount,
 * the original's canceledAmount/remainingAmount updated in the same transaction by a conditional update (two cancels
 * at once can never cancel more than remains); the whole remainder moves the original to CANCELED (or REVOKED for
 * v1 revoke). The agency is called before returning; if it fails the original is restored.
 */
async function cancelReceipt(deps: Deps, p: Principal, id: unknown, args: { amount: number | null; reason: string | null; as: 'CANCELED' | 'REVOKED' }): Promise<CashReceipt> {
  const cancellation = await inTransaction(deps, async (tx) => {
    const original = await loadReceiptFor(tx, p, id);
    const refusal = cancelRefusal(original);
    if (refusal) throw new DomainError(args.as === 'REVOKED' ? 'RECEIPT_NOT_REVOCABLE' : 'RECEIPT_NOT_CANCELABLE', { data: refusal });
    const amount = args.amount ?? original.remainingAmount;
    if (amount > original.remainingAmount) throw new DomainError('INVALID_CASH_RECEIPT_AMOUNT', { path: ['amount'], message: 'amount is above the remaining amount.' });
    const now = deps.clock.now();
    const final = amount === original.remainingAmount;
    const claimed = await tx.cashReceipt.updateMany({
      where: { id: original.id, status: 'ISSUED', remainingAmount: { gte: amount } },
      data: {
        canceledAmount: { increment: amount },
        remainingAmount: { decrement: amount },
        ...(final ? { status: args.as, ...(args.as === 'REVOKED' ? { revokedAt: now } : { canceledAt: now }) } : {}),
        cancelReason: args.reason ?? undefined,
        updatedAt: now,
      },
    });
    if (claimed.count === 0) {
      const current = await tx.cashReceipt.findUniqueOrThrow({ where: { id: original.id } });
      const again = cancelRefusal(current);
      if (again) throw new DomainError('RECEIPT_NOT_CANCELABLE', { data: again });
      throw new DomainError('INVALID_CASH_RECEIPT_AMOUNT', { path: ['amount'], message: 'amount is above the remaining amount.' });
    }
    const previous = await tx.cashReceipt.findMany({ where: { originalId: original.id, kind: 'CANCELLATION', status: { not: 'FAILED' } }, select: { supplyCost: true, tax: true } });
    const split = splitCancellation(original, previous, amount);
    return createReceipt(
      tx,
      {
        workspaceId: original.workspaceId,
        issuerId: original.issuerId,
        corpNum: original.corpNum,
        type: original.type,
        identifier: original.identifier,
        amount,
        supplyCost: split.supplyCost,
        tax: split.tax,
        kind: 'CANCELLATION',
        relatedInvoiceId: original.relatedInvoiceId,
        originalId: original.id,
        partial: !final || original.canceledAmount > 0,
        cancelReason: args.reason,
      },
      now,
      { inline: true },
    );
  });
  return registerInline(deps, cancellation, 'AGENCY_API_FAILED');
}

/** The v2 cancel body (spec: POST /v2/cash-receipts/{id}/cancel): reason 1-100 characters (missing → BAD_REQUEST/30007), amount > 0 when given. */
export const cancelRequestSchema = z.preprocess(
  absentBodyIsEmpty,
  z.object(
    {
      reason: z
        .string({ error: (iss) => (iss.input === undefined || iss.input === null ? fail('BAD_REQUEST', 'reason is required.') : fail('RECEIPT_CANCEL_REASON_INVALID')) })
        .refine((v) => v.trim().length > 0 && codePoints(v) <= CANCEL_REASON_MAX)
        .meta({ description: 'Why the receipt is canceled, 1-100 characters.', minLength: 1, maxLength: CANCEL_REASON_MAX }),
      amount: z
        .number({ error: fail('INVALID_CASH_RECEIPT_AMOUNT') })
        .int()
        .min(1)
        .nullish()
        .transform((v) => v ?? null)
        .meta({ description: 'Won to cancel; omitted = the whole remaining amount. More than 0 and not above the remaining amount.' }),
    },
    { error: fail('BAD_REQUEST') },
  ),
);

/** v2 cancel body: reason 1-100 characters (missing → BAD_REQUEST/30007), amount > 0 when given. */
export function parseCancelRequest(raw: unknown): { reason: string; amount: number | null } {
  return parseRequest(cancelRequestSchema, raw);
}

/** cancelCashReceipt (POST /v2/cash-receipts/{id}/cancel): full or partial; returns the cancellation receipt. */
export async function cancelCashReceipt(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  if (!isId('cashReceipt', id)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
  const input = parseCancelRequest(raw);
  return cancelReceipt(deps, p, id, { amount: input.amount, reason: input.reason, as: 'CANCELED' });
}

/** revokeCashReceipt (POST /v1/cash-receipts/{id}/revoke): only ISSUED; cancels all that remains and leaves it REVOKED. */
export async function revokeCashReceipt(deps: Deps, principal: Principal | null, id: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  await cancelReceipt(deps, p, id, { amount: null, reason: 'REVOKED', as: 'REVOKED' });
  return loadReceiptFor(deps.prisma, p, id);
}

// ───────────────────────────── Reissue ─────────────────────────────

/**
 * The reissue request (spec: reissue table), as it reads without the original: type in the enum (240002), selfIssued
 * a boolean; a missing or non-text identifier reads as absent. What needs the original's type is resolveReissue's.
 */
export const reissueRequestSchema = z.preprocess(
  absentBodyIsEmpty,
  z.object(
    {
      identifier: z
        .string()
        .nullish()
        .catch(undefined)
        .meta({ description: 'Required unless selfIssued is true; same format as issuing (phone 10-11 digits or business number 10 digits).', pattern: '^\\d{10,11}$' }),
      type: z.enum(CASH_RECEIPT_TYPES, { error: fail('RECEIPT_INVALID_TYPE') }).nullish().meta({ description: 'PERSONAL or CORPORATE; omitted = the original type.' }),
      selfIssued: z.boolean({ error: fail('BAD_REQUEST') }).nullish().meta({ description: 'Reissue as self-issued (not with CORPORATE).' }),
    },
    { error: fail('BAD_REQUEST') },
  ),
);

export type ReissueRequest = z.output<typeof reissueRequestSchema>;

/** Parses a reissue request's shape (type in the enum: 240002; selfIssued a boolean); resolveReissue judges the rest. */
export function parseReissueRequest(raw: unknown): ReissueRequest {
  return parseRequest(reissueRequestSchema, raw);
}

/**
 * The receipt a reissue asks for, given the original's type (spec: reissue table): type defaults to the original's;
 * no self-issue as CORPORATE (240002); the identifier is required unless self-issued and must fit the type (240003).
 */
export function resolveReissue(r: ReissueRequest, originalType: CashReceiptTypeName): { type: CashReceiptTypeName; identifier: string; selfIssued: boolean } {
  const type = r.type ?? originalType;
  if (r.selfIssued === true) {
    if (type === 'CORPORATE') throw new DomainError('RECEIPT_INVALID_TYPE', { path: ['selfIssued'], message: 'A self-issued receipt cannot be CORPORATE.' });
    return { type, identifier: SELF_ISSUE_IDENTIFIER, selfIssued: true };
  }
  if (!identifierFits(type, r.identifier)) throw new DomainError('RECEIPT_INVALID_IDENTIFIER', { path: ['identifier'] });
  return { type, identifier: r.identifier as string, selfIssued: false };
}

/** reissueCashReceipt (POST /v2/cash-receipts/{id}/reissue): a FAILED original, once → a new ORIGINAL receipt. */
export async function reissueCashReceipt(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<CashReceipt> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  if (!isId('cashReceipt', id)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
  const original = await loadReceiptFor(deps.prisma, p, id);
  const input = resolveReissue(parseReissueRequest(raw), original.type);
  const business = await linkedBusinessInfo(deps.prisma, p.workspaceId);
  if (!business) throw new DomainError('BUSINESS_INFO_NOT_REGISTERED');
  const fresh = await inTransaction(deps, async (tx) => {
    const now = deps.clock.now();
    if (original.kind !== 'ORIGINAL' || original.status !== 'FAILED' || original.reissuedToId) {
      throw new DomainError('RECEIPT_NOT_REISSUABLE', { data: { status: original.status, reissuedToId: original.reissuedToId } });
    }
    const created = await createReceipt(
      tx,
      {
        workspaceId: original.workspaceId,
        issuerId: original.issuerId,
        corpNum: business.corpNum,
        type: input.type,
        identifier: input.identifier,
        amount: original.amount,
        ...splitVat(original.amount),
        relatedInvoiceId: original.relatedInvoiceId,
        reissuedFromId: original.id,
        selfIssued: input.selfIssued,
      },
      now,
      { inline: true },
    );
    // One reissue per original: the conditional update fails for a concurrent second reissue.
    const claimed = await tx.cashReceipt.updateMany({ where: { id: original.id, status: 'FAILED', reissuedToId: null }, data: { reissuedToId: created.id, updatedAt: now } });
    if (claimed.count === 0) throw new DomainError('RECEIPT_NOT_REISSUABLE');
    return created;
  });
  return registerInline(deps, fresh, 'AGENCY_API_FAILED');
}

// ───────────────────────────── Send e-mail ─────────────────────────────

/** The send-email request (spec: POST /v2/cash-receipts/{id}/send-email): `email` required (30007 when missing), an address of at most 100 characters (240018 otherwise). */
export const sendEmailRequestSchema = z.preprocess(
  absentBodyIsEmpty,
  z.object(
    {
      email: z
        .string({ error: (iss) => (iss.input === undefined || iss.input === null ? fail('BAD_REQUEST', 'email is required.') : fail('RECEIPT_EMAIL_INVALID')) })
        .max(RECEIPT_EMAIL_MAX)
        .regex(EMAIL_RE)
        .meta({ description: 'Where the agency sends the receipt, up to 100 characters.' }),
    },
    { error: fail('BAD_REQUEST') },
  ),
);

/** Parses a send-email request: an e-mail address of at most 100 characters. */
export function parseSendEmailRequest(raw: unknown): { email: string } {
  return parseRequest(sendEmailRequestSchema, raw);
}

/** sendCashReceiptEmail (POST /v2/cash-receipts/{id}/send-email): the agency e-mails the receipt. */
export async function sendCashReceiptEmail(deps: Deps, principal: Principal | null, id: unknown, raw: unknown): Promise<void> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  if (!isId('cashReceipt', id)) throw new DomainError('INVALID_CASH_RECEIPT_ID');
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
