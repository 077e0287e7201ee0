/**
 * A receipt's way to the tax authority (spec: Cash receipt state table). Creating a receipt queues its `receipt.issue`
 * job in the same statement; the job registers it with the agency (run inline by API calls that must report an agency
 * failure, the job being the fallback after a crash) and queues `receipt.settle`, which records the tax authority's
 * answer: PENDING → ISSUED or FAILED. A failed cancellation gives its amount back to the original.
 */
import type { CashReceipt } from '../../generated/prisma/client.ts';
import { asRaw, inTransaction, noteJobsQueued, type Deps, type Sql, type Tx } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { newId } from '../ids.ts';
import { searchNormalize } from '../validation.ts';
import { AgencyError } from './agency.ts';
import type { CashReceiptTypeName } from './identifier.ts';

/** An inline agency call owns its job for this long before the job runner may take it over (after a crash). */
const INLINE_LEASE_MS = 60_000;

function receiptSearchText(identifier: string, corpNum: string): string {
  return [identifier, corpNum].map(searchNormalize).join('\u0001');
}

/**
 * The statement of an invoice's live receipt (an ORIGINAL that is PENDING or ISSUED: one per invoice, whether issued
 * on payment or afterwards), its invoice id in the placeholder `param` ('$1').
 */
export const liveReceiptOfInvoice = (param: string) =>
  `SELECT id FROM "CashReceipt" WHERE "relatedInvoiceId" = ${param} AND kind = 'ORIGINAL' AND status IN ('PENDING', 'ISSUED') LIMIT 1`;

/**
 * The invoice's live receipt (liveReceiptOfInvoice), read after locking the invoice's
 * row: issuing for an invoice and reissuing its failed receipt take that lock first, so the second of two sees the
 * first's receipt. A statement of its own after the lock: its snapshot sees what the lock's last holder committed.
 */
export async function lockInvoiceLiveReceipt(db: Sql, invoiceId: string): Promise<{ status: string | null; liveReceiptId: string | null }> {
  const q = asRaw(db);
  const [invoice] = await q<{ status: string }>(`SELECT status::text AS status FROM "Invoice" WHERE id = $1 FOR UPDATE`, [invoiceId]);
  const [live] = await q<{ id: string }>(liveReceiptOfInvoice('$1'), [invoiceId]);
  return { status: invoice?.status ?? null, liveReceiptId: live?.id ?? null };
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

export interface NewReceipt {
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
export async function createReceipt(db: Sql, r: NewReceipt, now: Date, opts: { inline: boolean }): Promise<CashReceipt> {
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
      await undoCancellation(tx, receipt, now);
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

/** A cancellation that failed did not happen: its original gets the amount back and its state before the cancel. */
async function undoCancellation(tx: Tx, receipt: CashReceipt, now: Date) {
  if (receipt.kind !== 'CANCELLATION' || !receipt.originalId) return;
  await tx.cashReceipt.update({
    where: { id: receipt.originalId },
    data: { canceledAmount: { decrement: receipt.amount }, remainingAmount: { increment: receipt.amount }, status: 'ISSUED', canceledAt: null, revokedAt: null, updatedAt: now },
  });
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
    // The tax authority refused a cancellation: it did not happen.
    if (!issued) await undoCancellation(tx, receipt, now);
    const settled = await tx.cashReceipt.findUniqueOrThrow({ where: { id: receipt.id } });
    await recordEvents(tx, settled.workspaceId, [receiptEvent(issued ? 'receipt.issued' : 'receipt.failed', settled, now)]);
  });
  return true;
}

/** Runs a just-created receipt's agency registration now; an agency failure becomes AGENCY_API_FAILED with the receipt in data. */
export async function registerInline(deps: Deps, receipt: CashReceipt): Promise<CashReceipt> {
  const { receipt: after, failure } = await registerWithAgency(deps, receipt.id);
  if (failure) throw new DomainError('AGENCY_API_FAILED', { data: { receipt: after, agency: { code: failure.code, message: failure.message } } });
  return after;
}
