/**
 * A shop order's life here (README, "Shop integrations"; the states are ShopOrderState in the schema):
 *
 *   import ─┬─ LINKED ──(invoice paid)──> CONFIRMING ──(shop said yes)──> CONFIRMED
 *           │     │   ^                      │  ^  │                          │ (invoice un-matched: attention)
 *           │     │   │                      │  │  └─(un-matched; the shop has it paid: attention)──┘
 *           │     │   └──(un-matched; not told, or not paid at the shop)
 *           │     │                          │  └──(paid again / retried)── FAILED
 *           │     │                          └──(shop said no / retries ran out / amount not the order's)──┘
 *           │     ├──(canceled, or missing at two checks in a row, in the shop; invoice unpaid)──> CANCELED_IN_SHOP
 *           │     └──(paid in the shop itself, invoice unpaid)──> PAID_IN_SHOP (the invoice canceled)
 *           ├─ WAITING (another unpaid invoice has the same name and amount) ──(next sync, no conflict)──> LINKED
 *           │     ├──(canceled, or missing at two checks in a row, in the shop)──> CANCELED_IN_SHOP
 *           │     └──(paid in the shop)──> PAID_IN_SHOP
 *           └─ REFUSED (its data cannot make an invoice: the name, the amount, a date, a deadline too close)
 *
 * Importing is idempotent (one row per connection and order id, one invoice per row). What a shop sends is not
 * trusted: every field is checked before it is stored (storableOrder), and each order is imported, and each open order
 * checked, on its own, so one bad order never stops a sync. A new invoice is paid at once by a deposit that arrived
 * before it (the buyer paid before the sync imported the order), when that deposit's own matching picks it. A payment
 * of a linked invoice — by a deposit, mark-as-paid or a dashboard match — moves its order to CONFIRMING and queues a
 * `shop.confirm` job in the payment's own transaction; the job tells the shop after the commit, at least once (the
 * shop call is idempotent), with retries and backoff. Canceling the invoice leaves the shop's order alone (spec: v2
 * cancel).
 */
import type { BankAccount, Invoice, PrismaClient, ShopConnection, ShopOrder, Transaction } from '../../generated/prisma/client.ts';
import type { Principal } from '../auth/principal.ts';
import { assertCanWrite, invoiceInScope, requirePrincipal } from '../auth/rules.ts';
import { assertUsableReceivingAccounts } from '../bank-accounts/bank-accounts.ts';
import { truncationOf } from '../deposits/deposit-row.ts';
import { matchDeposit } from '../deposits/match-deposit.ts';
import { AUTO_MATCH_METHODS, namesMatch } from '../deposits/name-matching.ts';
import { asRaw, inRawTransaction, inTransaction, poolQuery, type Deps, type RawQuery, type Sql } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { addHistory } from '../invoices/history.ts';
import { parseCreateInvoiceInput } from '../invoices/invoice-input.ts';
import { applyInvoiceTransition, effectiveStatus } from '../invoices/invoice-state.ts';
import { insertCheckedInvoice, invoiceEvent } from '../invoices/invoices.ts';
import { MAX_EXPIRY_MS } from '../duration.ts';
import { newId } from '../ids.ts';
import { isDatabaseUnavailable } from '../prisma-errors.ts';
import { MAX_WON, storableText } from '../validation.ts';
import { findInWorkspace } from '../workspace-rows.ts';
import { assertWholeWorkspace, callShop, ShopNotConnected } from './connections.ts';
import { queueShopConfirmation } from './confirmation-queue.ts';
import { isShopLinked, shopLinkMetadata } from './reserved-metadata.ts';
import { ShopApiError, type ShopOrderStatus } from './shop-port.ts';

/** Who acts for a shop integration in history lines and `canceledBy`. */
export function shopActor(c: Pick<ShopConnection, 'id' | 'platform' | 'shopId'>) {
  return { type: 'SHOP_INTEGRATION', accountId: null, apiKeyId: null, name: `${c.platform === 'CAFE24' ? 'Cafe24' : 'Simulated shop'} ${c.shopId}`, connectionId: c.id };
}

/** The order as events and the GraphQL API show it. */
export function shopOrderSnapshot(o: ShopOrder, platform: string) {
  return {
    id: o.id,
    platform,
    connectionId: o.connectionId,
    orderId: o.orderId,
    invoiceId: o.invoiceId,
    state: o.state,
    attention: o.attention,
    confirmAttempts: o.confirmAttempts,
    error: o.confirmErrorCode ? { code: o.confirmErrorCode, message: o.confirmErrorMessage } : null,
    confirmedAt: o.confirmedAt?.toISOString() ?? null,
  };
}

// ───────────────────────────── What a shop sends ─────────────────────────────

/** Longest shop order id kept (Cafe24's are 16 characters). */
const ORDER_ID_MAX = 64;
/** Longest depositor name kept (an invoice takes at most 16; a longer one is stored to show why it was REFUSED). */
const NAME_MAX = 64;
const EMAIL_MAX = 255;
const PHONE_DIGITS_MAX = 20;
/** An order id: 1-64 printable characters (no control, format, unassigned or private-use character, no line break). */
const ORDER_ID_RE = /^(?=.*\S)[^\p{C}\p{Zl}\p{Zp}]{1,64}$/u;
/** Characters a shop's text may carry that the service drops (storableText): control, format, lone surrogates. */
const HAS_DROPPED_CHAR = /[\p{Cc}\p{Cf}\p{Cs}]/u;
/** The dates a shop may give (anything else is a broken date, which the database could not store either). */
const EARLIEST_DATE = Date.UTC(1970, 0, 1);
const LATEST_DATE = Date.UTC(9999, 11, 31);

/** An order as it is stored: every field checked; `refusal` when it cannot make an invoice (stored REFUSED with it). */
export interface StorableOrder {
  orderId: string;
  depositorName: string;
  amount: number;
  orderedAt: Date;
  payBy: Date | null;
  buyerEmail: string | null;
  buyerPhone: string | null;
  refusal: string | null;
}

const isDate = (v: unknown): v is Date => v instanceof Date && v.getTime() >= EARLIEST_DATE && v.getTime() <= LATEST_DATE;

/**
 * An order a shop listed, as it can be stored (README, Shop integrations: "What a shop sends"), or why it cannot be
 * stored at all (`skip`: an order id the service cannot keep). Names lose control and format characters and are cut at
 * 64 characters; an e-mail over 255 characters, a phone number of more than 20 digits are dropped; an amount that is not
 * a whole number of won from 1 to MAX_WON, a broken order date or deadline make the order REFUSED (stored with amount 0,
 * the import time, no deadline in place of what could not be stored).
 */
export function storableOrder(raw: unknown, now: Date): StorableOrder | { skip: string } {
  if (typeof raw !== 'object' || raw === null) return { skip: 'not an order' };
  const o = raw as Record<string, unknown>;
  if (typeof o.orderId !== 'string' || !ORDER_ID_RE.test(o.orderId)) return { skip: `order id not 1-${ORDER_ID_MAX} printable characters` };
  const amountOk = typeof o.amount === 'number' && Number.isInteger(o.amount) && o.amount >= 1 && o.amount <= MAX_WON;
  const orderedAtOk = isDate(o.orderedAt);
  const payByOk = o.payBy === null || o.payBy === undefined || isDate(o.payBy);
  const email = typeof o.buyerEmail === 'string' ? o.buyerEmail.trim() : '';
  const phone = typeof o.buyerPhone === 'string' ? o.buyerPhone.replace(/\D/g, '') : '';
  return {
    orderId: o.orderId,
    depositorName: storableText(o.depositorName, NAME_MAX),
    amount: amountOk ? (o.amount as number) : 0,
    orderedAt: orderedAtOk ? (o.orderedAt as Date) : now,
    payBy: payByOk && o.payBy ? (o.payBy as Date) : null,
    buyerEmail: email && email.length <= EMAIL_MAX && !HAS_DROPPED_CHAR.test(email) ? email : null,
    buyerPhone: phone && phone.length <= PHONE_DIGITS_MAX ? phone : null,
    refusal: !amountOk ? 'INVALID_AMOUNT' : !orderedAtOk ? 'INVALID_ORDERED_AT' : !payByOk ? 'INVALID_PAY_BY' : null,
  };
}

// ───────────────────────────── Import ─────────────────────────────

export type ImportOutcome = 'IMPORTED' | 'IMPORTED_PAID' | 'ALREADY_IMPORTED' | 'WAITING' | 'REFUSED';

/**
 * How long before the shop's deadline (payBy) an imported invoice expires: a deposit in the last minutes would
 * otherwise pay an order the shop cancels a moment later. An order with less than this left is REFUSED (PAY_BY_PASSED).
 */
export const PAY_BY_MARGIN_MS = 10 * 60_000;

/** The invoice request an order makes (INVALID_* DomainErrors refuse the order). Spaces are not part of a depositor name. */
function invoiceInputOf(c: ShopConnection, o: Pick<ShopOrder, 'depositorName' | 'amount' | 'buyerEmail' | 'buyerPhone' | 'payBy' | 'orderId'>, now: Date) {
  const customer = { name: o.depositorName.replace(/\s+/gu, '') } as Record<string, unknown>;
  const input = parseCreateInvoiceInput({ bankAccountIds: c.bankAccountIds, customer, amount: o.amount });
  // The buyer's e-mail and phone are kept when they are valid, dropped (never refusing the order) when not.
  for (const [field, value] of [['email', o.buyerEmail], ['phoneNumber', o.buyerPhone]] as const) {
    if (!value) continue;
    try {
      const withField = parseCreateInvoiceInput({ bankAccountIds: [], customer: { ...customer, [field]: value }, amount: o.amount });
      input.customer = { ...input.customer, [field]: withField.customer[field] };
    } catch {
      // not a valid address or number: left out
    }
  }
  if (o.payBy) {
    const expiresAt = o.payBy.getTime() - PAY_BY_MARGIN_MS;
    if (expiresAt <= now.getTime()) throw new DomainError('VALIDATION_FAILED', { message: 'PAY_BY_PASSED' });
    input.expiresAt = new Date(Math.min(expiresAt, now.getTime() + MAX_EXPIRY_MS));
  }
  input.metadata = shopLinkMetadata(c.platform, c.id, o.orderId);
  return input;
}

/**
 * Links a WAITING (or new) order to a new invoice in the caller's transaction, the order row locked: LINKED (paid at
 * once by a deposit that came first: IMPORTED_PAID), or WAITING with the conflicting invoice's id, or REFUSED with
 * the reason.
 */
async function linkOrder(q: RawQuery, c: ShopConnection, order: ShopOrder, ownerId: string, now: Date): Promise<ImportOutcome> {
  let input;
  try {
    input = invoiceInputOf(c, order, now);
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const reason = e.message === 'PAY_BY_PASSED' ? 'PAY_BY_PASSED' : e.code;
    await q(`UPDATE "ShopOrder" SET state = 'REFUSED', reason = $2, "updatedAt" = $3::timestamptz WHERE id = $1`, [order.id, reason, now.toISOString()]);
    return 'REFUSED';
  }
  let invoice: Invoice;
  try {
    invoice = await insertCheckedInvoice(q, { workspaceId: c.workspaceId, issuerId: ownerId, createdByApiKeyId: null, actor: shopActor(c) }, input, now);
  } catch (e) {
    if (!(e instanceof DomainError) || e.code !== 'INVOICE_ALREADY_EXISTS') throw e;
    // Rule (README): the second order of a buyer for the same amount waits until the first one's invoice is paid,
    // canceled or expired; a deposit can then only ever be matched to one of them.
    await q(`UPDATE "ShopOrder" SET state = 'WAITING', reason = $2, "updatedAt" = $3::timestamptz WHERE id = $1`, [order.id, String(e.data?.invoiceId ?? ''), now.toISOString()]);
    return 'WAITING';
  }
  await q(`UPDATE "ShopOrder" SET state = 'LINKED', "invoiceId" = $2, reason = NULL, "updatedAt" = $3::timestamptz WHERE id = $1`, [order.id, invoice.id, now.toISOString()]);
  return (await payFromEarlierDeposit(q, order, invoice, now)) ? 'IMPORTED_PAID' : 'IMPORTED';
}

/** How long before its order a deposit may have arrived and still pay it (a buyer who pays as they order; clocks). */
export const DEPOSIT_BEFORE_ORDER_MS = 10 * 60_000;
/** The furthest back a deposit is looked for, whatever the order's date. */
const DEPOSIT_LOOK_BACK_MS = 14 * 86_400_000;
/** The most earlier deposits of the amount read for one new invoice (oldest first). */
const DEPOSIT_LOOK_BACK_ROWS = 200;

/**
 * A deposit that arrived before its order became an invoice (orders are imported up to SHOP_SYNC_INTERVAL_MS after
 * they are placed; a buyer pays within minutes; a WAITING order's buyer may send the second transfer while it waits):
 * in the invoice's creating transaction, the workspace's unmatched, visible deposits of the amount on the invoice's
 * receiving accounts, received since the order was placed (less DEPOSIT_BEFORE_ORDER_MS; 14 days at most), oldest
 * first, are each matched again by the deposit rules (matchDeposit: its candidates and its decision, as when it
 * arrived; an ambiguous decision matches nothing). The first whose decision is this invoice pays it, exactly as it
 * would have had the invoice existed (history, receipt, e-mail, the shop confirmation, invoice.paid).
 */
async function payFromEarlierDeposit(q: RawQuery, order: Pick<ShopOrder, 'orderedAt'>, invoice: Invoice, now: Date): Promise<boolean> {
  const deposits = await earlierDeposits(q, order, invoice, now);
  if (deposits.length === 0) return false;
  const accounts = new Map(
    (await q<BankAccount>(`SELECT * FROM "BankAccount" WHERE id = ANY($1::text[])`, [[...new Set(deposits.map((d) => d.bankAccountId))]])).map((a) => [a.id, a]),
  );
  for (const deposit of deposits) {
    const account = accounts.get(deposit.bankAccountId);
    if (!account) continue;
    const truncation = truncationOf(account);
    // Only a deposit whose name this invoice's could match can decide for it (the rest are not matched again).
    if (!AUTO_MATCH_METHODS.some((method) => namesMatch(method, deposit.description, invoice.customerName, truncation))) continue;
    // Locked and read again: a dashboard match of it at this moment is waited for, and then it is left alone.
    const [locked] = await q<Transaction>(`SELECT * FROM "Transaction" WHERE id = $1 AND "matchedInvoiceId" IS NULL AND NOT hidden AND "deletedAt" IS NULL FOR UPDATE`, [deposit.id]);
    if (!locked) continue;
    const after = await matchDeposit(q, locked, truncation, now, undefined, { onlyInvoiceId: invoice.id });
    if (after.matchedInvoiceId === invoice.id) return true;
  }
  return false;
}

/** The deposits payFromEarlierDeposit reads for a new invoice: unmatched, visible, of its amount, on its accounts, since its order. */
function earlierDeposits(q: RawQuery, order: Pick<ShopOrder, 'orderedAt'>, invoice: Invoice, now: Date): Promise<Transaction[]> {
  const since = new Date(Math.max(order.orderedAt.getTime() - DEPOSIT_BEFORE_ORDER_MS, now.getTime() - DEPOSIT_LOOK_BACK_MS)).toISOString();
  return q<Transaction>(
    `SELECT t.* FROM "Transaction" t JOIN "BankAccount" a ON a.id = t."bankAccountId"
      WHERE t."workspaceId" = $1 AND t.amount = $2::int AND t."matchedInvoiceId" IS NULL AND NOT t.hidden AND NOT t.verification AND t."deletedAt" IS NULL
        AND t."createdAt" >= $3::timestamptz AND t."receivedAt" >= $3::timestamptz
        AND (cardinality($4::text[]) = 0 OR t."bankAccountId" = ANY($4::text[]))
        AND a."verifiedAt" IS NOT NULL AND a.active AND a."deletedAt" IS NULL
      ORDER BY t."receivedAt", t.id LIMIT ${DEPOSIT_LOOK_BACK_ROWS}`,
    [invoice.workspaceId, invoice.amount, since, [...invoice.bankAccountIds]],
  );
}

/**
 * The look-back once more, after the import's commit, in a short transaction of its own (README, "a deposit that came
 * first"): a deposit whose intake ran while the import's transaction was open neither saw the new invoice (not
 * committed yet) nor was seen by the import's own look-back (itself not committed yet); both committed, it would stay
 * unmatched. Here it pays the invoice if its own matching decision is this invoice, as in the import. A deposit
 * committing later sees the invoice by its own matching. One read when there is no such deposit (the common case);
 * else the invoice is locked first, as a dashboard match locks it (the invoice, then the deposit), so the two wait for
 * each other rather than deadlock. True when it paid the invoice.
 */
async function payFromDepositCommittedMeanwhile(deps: Deps, shopOrderId: string): Promise<boolean> {
  const now = deps.clock.now();
  const [seen] = await deps.sql.query<Invoice & { shopOrderedAt: Date }>(
    `SELECT i.*, o."orderedAt" AS "shopOrderedAt" FROM "ShopOrder" o JOIN "Invoice" i ON i.id = o."invoiceId" WHERE o.id = $1 AND o.state = 'LINKED' AND i.status = 'PENDING'`,
    [shopOrderId],
  );
  if (!seen || (await earlierDeposits(poolQuery(deps), { orderedAt: new Date(seen.shopOrderedAt) }, seen, now)).length === 0) return false;
  return inRawTransaction(deps, async (q) => {
    const [invoice] = await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1 AND status = 'PENDING' FOR NO KEY UPDATE`, [seen.id]);
    const [order] = invoice ? await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 AND state = 'LINKED' AND "invoiceId" = $2`, [shopOrderId, invoice.id]) : [];
    return order ? payFromEarlierDeposit(q, order, invoice!, deps.clock.now()) : false;
  });
}

/**
 * An import's outcome, with the look-back run again after its commit (payFromDepositCommittedMeanwhile). The import
 * stands whatever happens here: an error is logged and the outcome is the import's (the deposit stays for its own
 * matching or the merchant's), but a database that cannot be reached ends the sync as anywhere else.
 */
async function afterImportCommitted(deps: Deps, shopOrderId: string | null, outcome: ImportOutcome): Promise<ImportOutcome> {
  if (outcome !== 'IMPORTED' || !shopOrderId) return outcome;
  try {
    return (await payFromDepositCommittedMeanwhile(deps, shopOrderId)) ? 'IMPORTED_PAID' : outcome;
  } catch (e) {
    if (isDatabaseUnavailable(e)) throw e;
    deps.log.error({ err: e, shopOrder: shopOrderId }, 'shop order look-back after the import failed');
    return outcome;
  }
}

/**
 * Imports one order (checked: storableOrder): a new row and its invoice (or REFUSED), or a WAITING one tried again;
 * anything else is left as it is.
 */
export async function importShopOrder(deps: Deps, c: ShopConnection, o: StorableOrder, ownerId: string): Promise<ImportOutcome> {
  let shopOrderId: string | null = null;
  const outcome = await inRawTransaction(deps, async (q): Promise<ImportOutcome> => {
    const now = deps.clock.now();
    const [inserted] = await q<ShopOrder>(
      `INSERT INTO "ShopOrder" (id, "workspaceId", "connectionId", "orderId", state, reason, "depositorName", amount, "orderedAt", "payBy", "buyerEmail", "buyerPhone", "createdAt", "updatedAt")
       VALUES ($1, $2, $3, $4, $5::"ShopOrderState", $6, $7, $8::int, $9::timestamptz, $10::timestamptz, $11, $12, $13::timestamptz, $13::timestamptz)
       ON CONFLICT ("connectionId", "orderId") DO NOTHING RETURNING *`,
      [
        newId('shopOrder'), c.workspaceId, c.id, o.orderId, o.refusal ? 'REFUSED' : 'WAITING', o.refusal, o.depositorName, o.amount,
        o.orderedAt.toISOString(), o.payBy?.toISOString() ?? null, o.buyerEmail, o.buyerPhone, now.toISOString(),
      ],
    );
    if (inserted?.state === 'REFUSED') return 'REFUSED';
    const order = inserted ?? (await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE "connectionId" = $1 AND "orderId" = $2 FOR UPDATE`, [c.id, o.orderId]))[0];
    if (!order) throw new Error(`shop order ${o.orderId} vanished`);
    if (!inserted && order.state !== 'WAITING') return 'ALREADY_IMPORTED';
    shopOrderId = order.id;
    return linkOrder(q, c, order, ownerId, now);
  });
  return afterImportCommitted(deps, shopOrderId, outcome);
}

// ───────────────────────────── Sync ─────────────────────────────

export interface SyncResult {
  imported: number;
  waiting: number;
  refused: number;
  canceledInShop: number;
  /** Orders found paid in the shop itself (their unpaid invoices canceled). */
  paidInShop: number;
  /** Of `imported`: invoices paid at once by a deposit that had arrived before them. */
  paidOnImport: number;
  /** Orders left alone: an order id the service cannot store, or a DomainError met on the order (logged at warn). */
  skipped: number;
  /** Orders an unexpected error stopped (logged at error; tried again at the next sync). */
  failed: number;
  /** More new orders wait than one sync imports: the next sync is due at once. */
  more: boolean;
  /**
   * Why the open orders' states could not be read (the shop's error, or "an internal error"), or null. The sync still
   * succeeds (its imports stand); the connection's lastSyncError notes it.
   */
  statusCheckError: string | null;
}

/**
 * A sync's bounds (README, Shop integrations). Tests lower them; nothing else changes them.
 * - `newOrders`: new orders imported per sync (the rest by the next sync, due at once);
 * - `statusChecks`: open orders (WAITING, LINKED with an unpaid invoice) whose state at the shop is asked for per
 *   sync, the least recently asked first, so every open order is asked about over successive syncs.
 */
export const SHOP_SYNC_LIMITS = { newOrders: 500, statusChecks: 500 };

/** How far back a first sync looks for orders awaiting their deposit (and any sync, after a reconnection). */
const FIRST_SYNC_DAYS = 14;
/** A later sync looks back this far before the last one (orders the shop listed late); importing twice changes nothing. */
const SYNC_OVERLAP_MS = 24 * 3600_000;

/** Where a sync's listing starts: a day before the last complete sync, but never before the connection's 14 days. */
export function syncWindowStart(c: Pick<ShopConnection, 'lastSyncAt' | 'connectedAt'>, now: Date): Date {
  const earliest = (c.connectedAt ?? now).getTime() - FIRST_SYNC_DAYS * 86_400_000;
  return new Date(c.lastSyncAt ? Math.max(c.lastSyncAt.getTime() - SYNC_OVERLAP_MS, earliest) : earliest);
}

/**
 * Status checks in a row that must find an open order missing (NOT_FOUND) before it is closed as deleted in the shop
 * (ShopOrder.missingChecks counts them; a check that finds it, or a listing that lists it, sets it back to 0): one
 * search that missed it — a platform's hiccup, a window edge — must not close an order whose buyer is about to pay.
 */
const MISSING_CHECKS_TO_CLOSE = 2;

/** What an order's state at the shop does to an open order (the rest leave it alone). */
const CLOSED_IN_SHOP: Partial<Record<ShopOrderStatus, Closing>> = {
  CANCELED: { state: 'CANCELED_IN_SHOP', reason: null, invoiceReason: 'Canceled in the shop.' },
  NOT_FOUND: { state: 'CANCELED_IN_SHOP', reason: 'NOT_FOUND', invoiceReason: 'Deleted in the shop.' },
  PAID: { state: 'PAID_IN_SHOP', reason: null, invoiceReason: 'Paid in the shop.' },
};

interface Closing {
  state: 'CANCELED_IN_SHOP' | 'PAID_IN_SHOP';
  /** ShopOrder.reason. */
  reason: string | null;
  /** The invoice's cancel reason. */
  invoiceReason: string;
}

/**
 * The connection's receiving accounts can no longer receive (deleted, unverified, deactivated, moved away): its orders are not
 * imported, and the sync fails with this (lastSyncError).
 */
async function unusableAccounts(deps: Deps, c: ShopConnection): Promise<DomainError | null> {
  try {
    await assertUsableReceivingAccounts(deps.prisma, c.workspaceId, c.bankAccountIds);
    return null;
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    const which = typeof e.data?.bankAccountId === 'string' ? `bank account ${e.data.bankAccountId}` : 'a bank account';
    const what = e.code === 'BANK_ACCOUNT_NOT_VERIFIED' ? 'is not verified' : e.code === 'BANK_ACCOUNT_INACTIVE' ? 'is deactivated' : 'no longer exists in this workspace';
    return new DomainError(e.code, {
      data: e.data,
      message: `The shop's receiving ${which} ${what}: no order is imported until the shop is installed again with receiving accounts that can receive (startShopInstall with bankAccountIds).`,
    });
  }
}

/**
 * One sync of a connected shop: new orders awaiting their deposit become invoices, WAITING orders are tried again, and
 * open orders canceled, deleted or paid in the shop cancel their unpaid invoices. Each order on its own: an order that
 * fails is logged and counted, and the others go on. The caller holds the connection's sync lease.
 */
export async function syncShopOrders(deps: Deps, c: ShopConnection): Promise<SyncResult> {
  const now = deps.clock.now();
  const result: SyncResult = { imported: 0, waiting: 0, refused: 0, canceledInShop: 0, paidInShop: 0, paidOnImport: 0, skipped: 0, failed: 0, more: false, statusCheckError: null };
  const [ws] = await deps.sql.query<{ ownerId: string }>(`SELECT "ownerId" FROM "Workspace" WHERE id = $1`, [c.workspaceId]);
  if (!ws) return result;
  const refused = await unusableAccounts(deps, c);
  let tried = new Set<string>();
  if (!refused) {
    const listed = await callShop(deps, c, (shop, session) => shop.listAwaitingOrders(session, syncWindowStart(c, now), now));
    tried = await importListed(deps, c, ws.ownerId, Array.isArray(listed) ? listed : [], result);
  }
  await checkOpenOrders(deps, c, ws.ownerId, tried, result, { relink: !refused });
  if (refused) throw refused;
  return result;
}

/** Counts an import's outcome. */
function count(result: SyncResult, outcome: ImportOutcome | null): void {
  switch (outcome) {
    case 'IMPORTED_PAID':
      result.paidOnImport++;
      result.imported++;
      break;
    case 'IMPORTED':
      result.imported++;
      break;
    case 'WAITING':
      result.waiting++;
      break;
    case 'REFUSED':
      result.refused++;
      break;
  }
}

/**
 * The listed orders: checked (storableOrder); the ones already imported skipped together (one read of the listed
 * ids); new ones imported, oldest first, at most SHOP_SYNC_LIMITS.newOrders (`more` when others wait), and listed
 * WAITING ones tried again. Returns the order ids tried.
 */
async function importListed(deps: Deps, c: ShopConnection, ownerId: string, listed: readonly unknown[], result: SyncResult): Promise<Set<string>> {
  const now = deps.clock.now();
  const orders = new Map<string, StorableOrder>();
  for (const raw of listed) {
    const o = storableOrder(raw, now);
    if ('skip' in o) {
      result.skipped++;
      deps.log.warn({ shopConnection: c.id, why: o.skip }, 'shop order skipped: it cannot be stored');
    } else if (!orders.has(o.orderId)) orders.set(o.orderId, o);
  }
  if (orders.size === 0) return new Set();
  const known = await deps.sql.query<{ orderId: string; state: string; missingChecks: number }>(
    `SELECT "orderId", state::text AS state, "missingChecks" FROM "ShopOrder" WHERE "connectionId" = $1 AND "orderId" = ANY($2::text[])`,
    [c.id, [...orders.keys()]],
  );
  const states = new Map(known.map((r) => [r.orderId, r.state]));
  // Listed by the shop: found, so a miss counted by an earlier status check no longer counts (MISSING_CHECKS_TO_CLOSE).
  const found = known.filter((r) => r.missingChecks > 0).map((r) => r.orderId);
  if (found.length > 0) await deps.sql.query(`UPDATE "ShopOrder" SET "missingChecks" = 0 WHERE "connectionId" = $1 AND "orderId" = ANY($2::text[])`, [c.id, found]);
  const byDate = (a: StorableOrder, b: StorableOrder) => a.orderedAt.getTime() - b.orderedAt.getTime() || (a.orderId < b.orderId ? -1 : 1);
  const fresh = [...orders.values()].filter((o) => !states.has(o.orderId)).sort(byDate);
  const waiting = [...orders.values()].filter((o) => states.get(o.orderId) === 'WAITING').sort(byDate);
  const limit = SHOP_SYNC_LIMITS.newOrders;
  if (fresh.length > limit) result.more = true;
  // New orders first; WAITING ones are tried again within the same bound (the others at a later sync, never `more`:
  // orders that keep waiting must not keep the shop syncing).
  const batch = [...fresh.slice(0, limit), ...waiting.slice(0, Math.max(0, limit - Math.min(fresh.length, limit)))];
  for (const o of batch) count(result, await perOrder(deps, c, o.orderId, 'import', result, () => importShopOrder(deps, c, o, ownerId)));
  return new Set(batch.map((o) => o.orderId));
}

/**
 * The open orders (WAITING, and LINKED with an unpaid invoice) least recently asked about, at most
 * SHOP_SYNC_LIMITS.statusChecks, but those `tried` by this sync: their state at the shop is asked for (statusCheckedAt
 * set, whatever the answer, so the rotation moves on). Canceled or paid in the shop: closed (closeForShop); missing
 * (NOT_FOUND) at MISSING_CHECKS_TO_CLOSE checks in a row: closed as deleted there; a WAITING one still awaiting its
 * deposit is tried again (`relink`). A state the answer leaves out is unknown (a search the shop could not answer):
 * nothing is done to that order.
 *
 * A status search that fails does not fail the sync (its imports are committed and stand): it is logged (warn; an
 * unexpected error at error) and noted in `statusCheckError`, and the orders asked about go to the back of the
 * rotation like the others — a search that fails every time for some orders (a date range the shop no longer serves)
 * must not stop the rotation for all of them. A shop no longer connected, or a database that cannot be reached, still
 * ends the sync.
 */
async function checkOpenOrders(deps: Deps, c: ShopConnection, ownerId: string, tried: Set<string>, result: SyncResult, opts: { relink: boolean }): Promise<void> {
  const open = await deps.sql.query<ShopOrder>(
    `SELECT o.* FROM "ShopOrder" o LEFT JOIN "Invoice" i ON i.id = o."invoiceId"
      WHERE o."connectionId" = $1 AND (o.state = 'WAITING' OR (o.state = 'LINKED' AND i.status = 'PENDING')) AND NOT (o."orderId" = ANY($2::text[]))
      ORDER BY o."statusCheckedAt" ASC NULLS FIRST, o."createdAt", o.id LIMIT ${Math.max(1, SHOP_SYNC_LIMITS.statusChecks)}`,
    [c.id, [...tried]],
  );
  if (open.length === 0) return;
  let statuses = new Map<string, ShopOrderStatus>();
  try {
    const answer = await callShop(deps, c, (shop, session) => shop.orderStatuses(session, open.map((o) => o.orderId)));
    if (answer instanceof Map) statuses = answer;
  } catch (e) {
    if (e instanceof ShopNotConnected || isDatabaseUnavailable(e)) throw e;
    if (e instanceof ShopApiError) {
      result.statusCheckError = `${e.code}: ${e.message}`;
      deps.log.warn({ shopConnection: c.id, code: e.code, error: e.message, orders: open.length }, 'shop order status check failed');
    } else {
      result.statusCheckError = 'an internal error, logged by the service';
      deps.log.error({ err: e, shopConnection: c.id, orders: open.length }, 'shop order status check failed');
    }
  }
  await deps.sql.query(`UPDATE "ShopOrder" SET "statusCheckedAt" = $2::timestamptz WHERE id = ANY($1::text[])`, [open.map((o) => o.id), deps.clock.now().toISOString()]);
  for (const order of open) {
    const status = statuses.get(order.orderId);
    if (status === undefined) continue;
    if (status === 'NOT_FOUND') {
      const [counted] = await deps.sql.query<{ missingChecks: number }>(
        `UPDATE "ShopOrder" SET "missingChecks" = "missingChecks" + 1 WHERE id = $1 AND state IN ('WAITING', 'LINKED') RETURNING "missingChecks"`,
        [order.id],
      );
      if (!counted || counted.missingChecks < MISSING_CHECKS_TO_CLOSE) continue;
    } else if (order.missingChecks > 0) {
      await deps.sql.query(`UPDATE "ShopOrder" SET "missingChecks" = 0 WHERE id = $1`, [order.id]);
    }
    const closing = CLOSED_IN_SHOP[status];
    if (closing) {
      if (await perOrder(deps, c, order.orderId, 'closing', result, () => closeForShop(deps, c, order.id, closing))) {
        if (closing.state === 'PAID_IN_SHOP') result.paidInShop++;
        else result.canceledInShop++;
      }
    } else if (opts.relink && order.state === 'WAITING' && status === 'AWAITING_DEPOSIT') {
      const outcome = await perOrder(deps, c, order.orderId, 'import', result, async () =>
        afterImportCommitted(
          deps,
          order.id,
          await inRawTransaction(deps, async (q) => {
            const [locked] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 FOR UPDATE`, [order.id]);
            return locked?.state === 'WAITING' ? linkOrder(q, c, locked, ownerId, deps.clock.now()) : 'ALREADY_IMPORTED';
          }),
        ),
      );
      if (outcome !== 'WAITING') count(result, outcome);
    }
  }
}

/**
 * Runs one order's step on its own: a DomainError met (an invoice paid or changed meanwhile, say) skips the order
 * (warn); any other error is logged (error) and counted in `failed`, and the sync goes on with the next order. A
 * database that cannot be reached ends the sync (every order would fail alike).
 */
async function perOrder<T>(deps: Deps, c: ShopConnection, orderId: string, step: string, result: SyncResult, fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (e) {
    if (isDatabaseUnavailable(e)) throw e;
    if (e instanceof DomainError) {
      result.skipped++;
      deps.log.warn({ shopConnection: c.id, orderId, code: e.code, error: e.message }, `shop order ${step} skipped`);
    } else {
      result.failed++;
      deps.log.error({ err: e, shopConnection: c.id, orderId }, `shop order ${step} failed`);
    }
    return null;
  }
}

/**
 * An open order canceled, deleted or paid in the shop: CANCELED_IN_SHOP or PAID_IN_SHOP, and its invoice canceled if
 * still unpaid (by the integration; a buyer's later transfer must not pay an order the shop has closed). Locks are
 * taken in the order a payment takes them — the invoice, then its shop order — so a deposit or mark-as-paid of the
 * invoice at this moment waits for this or this for it, never each for the other (a deadlock). False when there was
 * nothing to do (paid here meanwhile: the payment wins, its confirmation tells the merchant).
 */
async function closeForShop(deps: Deps, c: ShopConnection, orderId: string, closing: Closing): Promise<boolean> {
  return inTransaction(deps, async (tx) => {
    const q = asRaw(tx);
    const now = deps.clock.now();
    const [seen] = await q<{ invoiceId: string | null }>(`SELECT "invoiceId" FROM "ShopOrder" WHERE id = $1`, [orderId]);
    if (!seen) return false;
    if (seen.invoiceId) await q(`SELECT id FROM "Invoice" WHERE id = $1 FOR NO KEY UPDATE`, [seen.invoiceId]);
    const [order] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 AND state IN ('WAITING', 'LINKED') FOR UPDATE`, [orderId]);
    // Gone, or linked to an invoice meanwhile (a WAITING order imported by another sync): the next sync decides.
    if (!order || order.invoiceId !== seen.invoiceId) return false;
    if (order.invoiceId) {
      const invoice = await tx.invoice.findUnique({ where: { id: order.invoiceId } });
      // Paid meanwhile: the payment wins (its confirmation will fail at the shop, or find it paid, for the merchant).
      if (!invoice || invoice.status !== 'PENDING') return false;
      const actor = shopActor(c);
      const reason = closing.invoiceReason;
      const canceled = await applyInvoiceTransition(tx, invoice, 'CANCEL', now, { canceledAt: now, canceledBy: actor, cancelReason: reason });
      await addHistory(tx, canceled.id, 'canceled', now, actor, { reason });
      await recordEvents(tx, canceled.workspaceId, [invoiceEvent('invoice.canceled', canceled, now, { reason })]);
    }
    await q(`UPDATE "ShopOrder" SET state = $2::"ShopOrderState", reason = $3, "updatedAt" = $4::timestamptz WHERE id = $1`, [order.id, closing.state, closing.reason, now.toISOString()]);
    return true;
  });
}

// ───────────────────────────── Confirmation ─────────────────────────────

export { queueShopConfirmation } from './confirmation-queue.ts';

/**
 * In the transaction that makes a paid invoice unpaid again (the dashboard's un-match): a shop order already told, or
 * being told, that it was paid needs the merchant's attention (PAYMENT_WITHDRAWN) — the shop order is never
 * un-confirmed. A FAILED one simply goes back to LINKED, its confirmation error cleared (nothing is being confirmed).
 */
export async function noteShopPaymentWithdrawn(db: Sql, invoice: Invoice, now: Date): Promise<void> {
  if (!isShopLinked(invoice.metadata)) return;
  const q = asRaw(db);
  const [order] = await q<ShopOrder & { platform: string }>(
    `UPDATE "ShopOrder" o SET attention = CASE WHEN o.state IN ('CONFIRMING', 'CONFIRMED') THEN 'PAYMENT_WITHDRAWN' END,
            "attentionAt" = CASE WHEN o.state IN ('CONFIRMING', 'CONFIRMED') THEN $2::timestamptz END,
            state = CASE WHEN o.state = 'FAILED' THEN 'LINKED'::"ShopOrderState" ELSE o.state END,
            "confirmErrorCode" = CASE WHEN o.state = 'FAILED' THEN NULL ELSE o."confirmErrorCode" END,
            "confirmErrorMessage" = CASE WHEN o.state = 'FAILED' THEN NULL ELSE o."confirmErrorMessage" END, "updatedAt" = $2::timestamptz
       FROM "ShopConnection" c
      WHERE o."invoiceId" = $1 AND c.id = o."connectionId" AND o.state IN ('CONFIRMING', 'CONFIRMED', 'FAILED')
     RETURNING o.*, c.platform::text AS platform`,
    [invoice.id, now.toISOString()],
  );
  // A CONFIRMING order's job decides (settleUnpaid): never called → back to LINKED quietly; called, and paid at the
  // shop → CONFIRMED with the attention event; not paid there → back to LINKED.
  if (order?.state === 'CONFIRMED') await attentionNeeded(q, order, invoice, now);
}

async function attentionNeeded(q: RawQuery, order: ShopOrder & { platform: string }, invoice: Invoice, now: Date) {
  await addHistory(q, invoice.id, 'shop_order_needs_attention', now, null, { shopOrderId: order.id, attention: order.attention });
  await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.attention_needed', invoice, order, now)]);
}

/**
 * The job's give-up, a refusal by the shop, or a payment the shop must not be told of: FAILED with the error, a history
 * line and the event; `attention` also asks the merchant to look at the order (AMOUNT_MISMATCH).
 */
async function markConfirmationFailed(deps: Deps, shopOrderId: string, code: string, message: string, attention: string | null = null): Promise<void> {
  await inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [order] = await q<ShopOrder & { platform: string }>(
      `UPDATE "ShopOrder" o SET state = 'FAILED', "confirmErrorCode" = $2, "confirmErrorMessage" = $3, "updatedAt" = $4::timestamptz,
              attention = COALESCE($5, o.attention), "attentionAt" = CASE WHEN $5::text IS NULL THEN o."attentionAt" ELSE $4::timestamptz END
         FROM "ShopConnection" c WHERE o.id = $1 AND c.id = o."connectionId" AND o.state = 'CONFIRMING' RETURNING o.*, c.platform::text AS platform`,
      [shopOrderId, code.slice(0, 100), message.slice(0, 1000), now.toISOString(), attention],
    );
    if (!order?.invoiceId) return;
    const [invoice] = await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1`, [order.invoiceId]);
    if (!invoice) return;
    await addHistory(q, invoice.id, 'shop_order_confirmation_failed', now, null, { shopOrderId: order.id, error: { code, message } });
    await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.confirmation_failed', invoice, order, now)]);
  });
}

function shopOrderEvent(type: 'shop_order.confirmed' | 'shop_order.confirmation_failed' | 'shop_order.attention_needed', invoice: Invoice, order: ShopOrder & { platform: string }, now: Date) {
  const base = invoiceEvent(type, invoice, now);
  return { ...base, data: { ...base.data, shopOrder: shopOrderSnapshot(order, order.platform) } };
}

/** A retryable failure of the `shop.confirm` job (the job runner backs off and tries again). */
export class ShopConfirmationPending extends Error {}

type ConfirmationRow = ShopOrder & { invoiceStatus: string; invoiceAmount: number; platform: ShopConnection['platform']; connectionState: string };

const won = (n: number) => n.toLocaleString('en-US');

/**
 * The `shop.confirm` job: tells the shop that a CONFIRMING order was paid, then records CONFIRMED (once: a conditional
 * update; a repeated job finds it done). A refusal by the shop records FAILED with the shop's error; a failure that
 * may pass (timeout, 429, 5xx, re-authorization needed) is thrown for the job runner's backoff. An invoice paid for
 * another amount than the order's (changed before such edits were refused, or by hand in the database) is not told to
 * the shop: FAILED AMOUNT_MISMATCH with attention. An invoice no longer paid (un-matched meanwhile): settleUnpaid.
 */
export async function confirmShopOrder(deps: Deps, shopOrderId: string): Promise<void> {
  const [row] = await deps.sql.query<ConfirmationRow>(
    `SELECT o.*, i.status::text AS "invoiceStatus", i.amount AS "invoiceAmount", c.platform, c.state::text AS "connectionState"
       FROM "ShopOrder" o JOIN "Invoice" i ON i.id = o."invoiceId" JOIN "ShopConnection" c ON c.id = o."connectionId" WHERE o.id = $1`,
    [shopOrderId],
  );
  if (!row || row.state !== 'CONFIRMING') return;
  if (row.invoiceStatus !== 'PAID') return settleUnpaid(deps, row);
  if (row.invoiceAmount !== row.amount) {
    return markConfirmationFailed(
      deps,
      shopOrderId,
      'AMOUNT_MISMATCH',
      `The invoice was paid ${won(row.invoiceAmount)} won but the shop order is for ${won(row.amount)} won: the shop was not told. Look at the order in the shop.`,
      'AMOUNT_MISMATCH',
    );
  }
  if (row.connectionState === 'DISCONNECTED') return markConfirmationFailed(deps, shopOrderId, 'SHOP_DISCONNECTED', 'The shop was disconnected before the payment could be confirmed there.');
  await deps.sql.query(`UPDATE "ShopOrder" SET "confirmAttempts" = "confirmAttempts" + 1, "updatedAt" = $2::timestamptz WHERE id = $1`, [shopOrderId, deps.clock.now().toISOString()]);
  try {
    await callShop(deps, { id: row.connectionId, platform: row.platform }, (shop, session) => shop.confirmDeposit(session, row.orderId));
  } catch (e) {
    const refused = e instanceof ShopApiError && !e.retryable && !e.authExpired;
    const code = e instanceof ShopApiError ? e.code : e instanceof ShopNotConnected ? 'SHOP_NOT_CONNECTED' : 'ERROR';
    const message = e instanceof Error ? e.message : String(e);
    if (refused) return markConfirmationFailed(deps, shopOrderId, code, message);
    await deps.sql.query(`UPDATE "ShopOrder" SET "confirmErrorCode" = $2, "confirmErrorMessage" = $3, "updatedAt" = $4::timestamptz WHERE id = $1 AND state = 'CONFIRMING'`, [
      shopOrderId,
      code.slice(0, 100),
      message.slice(0, 1000),
      deps.clock.now().toISOString(),
    ]);
    throw new ShopConfirmationPending(`${code}: ${message}`);
  }
  await inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [done] = await q<ShopOrder & { platform: string }>(
      `UPDATE "ShopOrder" o SET state = 'CONFIRMED', "confirmedAt" = $2::timestamptz, "confirmErrorCode" = NULL, "confirmErrorMessage" = NULL, "updatedAt" = $2::timestamptz
         FROM "ShopConnection" c WHERE o.id = $1 AND c.id = o."connectionId" AND o.state = 'CONFIRMING' RETURNING o.*, c.platform::text AS platform`,
      [shopOrderId, now.toISOString()],
    );
    if (!done?.invoiceId) return;
    const [invoice] = await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1`, [done.invoiceId]);
    if (!invoice) return;
    await addHistory(q, invoice.id, 'shop_order_confirmed', now, null, { shopOrderId: done.id });
    await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.confirmed', invoice, done, now)]);
    // Un-matched while the shop was being told: the shop has it paid, the invoice does not.
    if (done.attention) await attentionNeeded(q, done, invoice, now);
  });
}

/**
 * The job found its invoice no longer paid (un-matched while the order was CONFIRMING). Never called (confirmAttempts
 * 0): the shop was not told; back to LINKED quietly. Called before: that call may have reached the shop with its
 * answer lost, so the shop is asked (orderStatuses). Paid there: CONFIRMED, with attention PAYMENT_WITHDRAWN and the
 * events of both (the merchant looks at the order in the shop; a later status check would otherwise close it as
 * PAID_IN_SHOP and cancel the invoice without a word). Known and not paid there: back to LINKED. The shop could not
 * say (its error, or the order left out of its answer): tried again by the job's backoff. The shop no longer connected:
 * back to LINKED with the un-match's attention kept (nobody can ask it). Written under the invoice's lock, taken
 * first as a payment takes it: paid again meanwhile, the new payment's confirmation decides and nothing is written.
 */
async function settleUnpaid(deps: Deps, row: ConfirmationRow): Promise<void> {
  let paidAtShop = false;
  let keepAttention = false;
  if (row.confirmAttempts > 0) {
    try {
      const answer = await callShop(deps, { id: row.connectionId, platform: row.platform }, (shop, session) => shop.orderStatuses(session, [row.orderId]));
      const status = answer instanceof Map ? answer.get(row.orderId) : undefined;
      if (status === undefined) throw new ShopApiError('STATUS_UNKNOWN', `The shop did not say what state order ${row.orderId} is in.`, { retryable: true });
      paidAtShop = status === 'PAID';
    } catch (e) {
      if (!(e instanceof ShopNotConnected)) {
        const code = e instanceof ShopApiError ? e.code : 'ERROR';
        const message = e instanceof Error ? e.message : String(e);
        await deps.sql.query(`UPDATE "ShopOrder" SET "confirmErrorCode" = $2, "confirmErrorMessage" = $3, "updatedAt" = $4::timestamptz WHERE id = $1 AND state = 'CONFIRMING'`, [
          row.id,
          code.slice(0, 100),
          message.slice(0, 1000),
          deps.clock.now().toISOString(),
        ]);
        throw new ShopConfirmationPending(`${code}: ${message}`);
      }
      keepAttention = true;
    }
  }
  await inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [invoice] = await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1 FOR NO KEY UPDATE`, [row.invoiceId!]);
    if (!invoice || invoice.status === 'PAID') return;
    if (!paidAtShop) {
      await q(
        `UPDATE "ShopOrder" SET state = 'LINKED', attention = CASE WHEN $3::boolean THEN attention END, "attentionAt" = CASE WHEN $3::boolean THEN "attentionAt" END,
                "confirmErrorCode" = NULL, "confirmErrorMessage" = NULL, "updatedAt" = $2::timestamptz
          WHERE id = $1 AND state = 'CONFIRMING'`,
        [row.id, now.toISOString(), keepAttention],
      );
      return;
    }
    const [done] = await q<ShopOrder & { platform: string }>(
      `UPDATE "ShopOrder" o SET state = 'CONFIRMED', "confirmedAt" = $2::timestamptz, attention = 'PAYMENT_WITHDRAWN', "attentionAt" = COALESCE(o."attentionAt", $2::timestamptz),
              "confirmErrorCode" = NULL, "confirmErrorMessage" = NULL, "updatedAt" = $2::timestamptz
         FROM "ShopConnection" c WHERE o.id = $1 AND c.id = o."connectionId" AND o.state = 'CONFIRMING' RETURNING o.*, c.platform::text AS platform`,
      [row.id, now.toISOString()],
    );
    if (!done) return;
    await addHistory(q, invoice.id, 'shop_order_confirmed', now, null, { shopOrderId: done.id });
    await recordEvents(q, invoice.workspaceId, [shopOrderEvent('shop_order.confirmed', invoice, done, now)]);
    await attentionNeeded(q, done, invoice, now);
  });
}

/** The job gave up (retries ran out): FAILED with the last error. */
export async function giveUpShopConfirmation(deps: Deps, shopOrderId: string, error: unknown): Promise<void> {
  const [row] = await deps.sql.query<{ confirmErrorCode: string | null; confirmErrorMessage: string | null }>(`SELECT "confirmErrorCode", "confirmErrorMessage" FROM "ShopOrder" WHERE id = $1`, [shopOrderId]);
  await markConfirmationFailed(deps, shopOrderId, row?.confirmErrorCode ?? 'RETRIES_EXHAUSTED', row?.confirmErrorMessage ?? (error instanceof Error ? error.message : 'The shop could not be reached.'));
}

/**
 * retryShopOrderConfirmation: a FAILED order of a paid invoice is confirmed again (CONFIRMING and a new job); one
 * already CONFIRMING is returned as it is (retrying twice queues one confirmation).
 */
export async function retryShopOrderConfirmation(deps: Deps, principal: Principal | null, id: unknown): Promise<ShopOrder> {
  const p = requirePrincipal(principal);
  assertCanWrite(p);
  const order = await loadShopOrderFor(deps, p, id);
  return inRawTransaction(deps, async (q) => {
    const now = deps.clock.now();
    const [invoice] = order.invoiceId ? await q<Invoice>(`SELECT * FROM "Invoice" WHERE id = $1 FOR NO KEY UPDATE`, [order.invoiceId]) : [];
    const [current] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1 FOR UPDATE`, [order.id]);
    if (!invoice || !current || (current.state !== 'FAILED' && current.state !== 'CONFIRMING') || effectiveStatus(invoice, now) !== 'PAID') {
      throw new DomainError('SHOP_ORDER_NOT_RETRYABLE');
    }
    // Already being confirmed (a retry a moment ago, a payment): nothing more to queue; the same answer as that retry's.
    if (current.state === 'CONFIRMING') return current;
    await queueShopConfirmation(q, invoice, now);
    const [after] = await q<ShopOrder>(`SELECT * FROM "ShopOrder" WHERE id = $1`, [order.id]);
    return after!;
  });
}

/**
 * ShopOrder.invoice (GraphQL): the order's invoice, for a principal of its workspace whose scope covers it (an
 * account-limited key: every receiving account of the invoice its own), else null — as Transaction.matchedInvoice.
 * Defence in depth: a limited key reaches no shop order today (assertWholeWorkspace). `query`: the GraphQL selection.
 */
export async function shopOrderInvoice(prisma: PrismaClient, p: Principal | null, query: object, invoiceId: string | null): Promise<Invoice | null> {
  if (!p || !invoiceId) return null;
  const seen = await prisma.invoice.findUnique({ where: { id: invoiceId }, select: { workspaceId: true, bankAccountIds: true } });
  if (!seen || seen.workspaceId !== p.workspaceId || !invoiceInScope(p, seen.bankAccountIds)) return null;
  return prisma.invoice.findUnique({ ...(query as Record<string, never>), where: { id: invoiceId } });
}

/** An order of the principal's workspace (SHOP_ORDER_NOT_FOUND for a missing or foreign id). */
export async function loadShopOrderFor(deps: Deps, p: Principal, id: unknown): Promise<ShopOrder> {
  assertWholeWorkspace(p);
  return findInWorkspace(p, 'shopOrder', id, { invalid: 'SHOP_ORDER_NOT_FOUND', notFound: 'SHOP_ORDER_NOT_FOUND', foreign: 'SHOP_ORDER_NOT_FOUND' }, (id) =>
    deps.prisma.shopOrder.findUnique({ where: { id } }),
  );
}
