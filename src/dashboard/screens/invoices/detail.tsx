/**
 * One invoice at /dashboard/invoices/<id>: its fields, its history, the deposit that paid it, its cash receipt; live
 * (an event of this invoice reads it again). The actions the state machine allows from its status: mark paid and
 * cancel (pending or expired), edit (pending). A form already open stays open when the invoice changes underneath,
 * and its refusal is shown in words with its code.
 */
import { useMutation, useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { followInvoiceEvents, useRereadOn } from '../../live.ts';
import { onLink } from '../../router.ts';
import { EditInvoice } from './edit.tsx';
import { accountName, BankAccountsQuery, INVOICES_PATH, invoiceRefusalOf, RefusalNote, type InvoiceRefusal } from './parts.tsx';
import { w } from './words.ts';

const InvoiceQuery = graphql(`
  query DashboardInvoice($id: ID!, $receiptsOf: String!) {
    invoice(id: $id) {
      id number status amount bankAccountIds metadata
      createdAt updatedAt expiresAt paidAt paidTrigger guideEmailSentAt
      canceledAt cancelReason canceledBy { type name }
      customer { name email phoneNumber }
      cashReceipt { type identifier }
      history { id type createdAt data actor { type name } }
      transactions { id amount description receivedAt matchedAt matchMethod bankAccount { alias number provider } }
    }
    # Its receipts: the search of the receipt list finds a related invoice's id exactly.
    cashReceiptPage(offset: 0, limit: 20, filter: { search: $receiptsOf }) {
      items { id kind status amount supplyCost tax type identifier issuedAt ntsConfirmNum failureReason }
    }
  }
`);

const MarkPaidMutation = graphql(`
  mutation DashboardMarkInvoicePaid($id: ID!) {
    markInvoicePaid(id: $id) {
      __typename
      ... on InvoicePayload { invoice { id status } }
      ... on DomainError { code message field data }
    }
  }
`);

const CancelMutation = graphql(`
  mutation DashboardCancelInvoice($id: ID!, $reason: String) {
    cancelInvoice(id: $id, reason: $reason) {
      __typename
      ... on InvoicePayload { invoice { id status } }
      ... on DomainError { code message field data }
    }
  }
`);

type Invoice = ResultOf<typeof InvoiceQuery>['invoice'];
type HistoryLine = Invoice['history'][number];

const HISTORY_TYPES = ['created', 'paid', 'updated', 'canceled', 'deleted', 'unmatched', 'guide_email_sent', 'cash_receipt_requested', 'cash_receipt_skipped'] as const;

/** A history line's details in a few words: the fields changed, the reason, the deposit, the address written to. */
function historyDetails(line: HistoryLine): string {
  const data = line.data as Record<string, unknown> | null;
  if (!data) return '';
  if (Array.isArray(data.fields)) return data.fields.join(', ');
  return Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined && v !== '')
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}

function historyType(lang: Lang, type: string): string {
  return (HISTORY_TYPES as readonly string[]).includes(type) ? w(lang, `h_${type as (typeof HISTORY_TYPES)[number]}`) : type;
}

/** The mark-paid and cancel actions, each confirmed in a second step. */
function Actions({ lang, invoice, onChanged, onEdit, editing }: { lang: Lang; invoice: Invoice; onChanged: () => void; onEdit: () => void; editing: boolean }) {
  const [step, setStep] = useState<'markPaid' | 'cancel' | null>(null);
  const [refusal, setRefusal] = useState<InvoiceRefusal | null>(null);
  const [done, setDone] = useState(false);
  const [{ fetching: marking }, markPaid] = useMutation(MarkPaidMutation);
  const [{ fetching: canceling }, cancel] = useMutation(CancelMutation);
  const outcome = (refused: InvoiceRefusal | null) => {
    setRefusal(refused);
    setDone(!refused);
    if (!refused) setStep(null);
    onChanged();
  };
  const open = (s: typeof step) => () => {
    setRefusal(null);
    setDone(false);
    setStep(s);
  };
  const payable = invoice.status === 'PENDING' || invoice.status === 'EXPIRED';
  return (
    <div class="actions" role="group" aria-label={w(lang, 'actions')}>
      {payable && step === null && (
        <button type="button" onClick={open('markPaid')}>
          {w(lang, 'markPaid')}
        </button>
      )}
      {payable && step === null && (
        <button type="button" onClick={open('cancel')}>
          {w(lang, 'cancelInvoice')}
        </button>
      )}
      {invoice.status === 'PENDING' && !editing && step === null && (
        <button type="button" onClick={onEdit}>
          {w(lang, 'edit')}
        </button>
      )}
      {step === 'markPaid' && (
        <div class="panel" role="group" aria-label={w(lang, 'markPaid')}>
          <p>{w(lang, 'markPaidConfirm')}</p>
          <div class="actions">
            <button type="button" disabled={marking} onClick={async () => outcome(invoiceRefusalOf(await markPaid({ id: invoice.id }), 'markInvoicePaid'))}>
              {w(lang, 'markPaidYes')}
            </button>
            <button type="button" class="secondary" onClick={open(null)}>
              {w(lang, 'keep')}
            </button>
          </div>
        </div>
      )}
      {step === 'cancel' && (
        <form
          class="panel"
          aria-label={w(lang, 'cancelInvoice')}
          onSubmit={async (e) => {
            e.preventDefault();
            const reason = String(new FormData(e.currentTarget).get('reason') ?? '').trim();
            outcome(invoiceRefusalOf(await cancel({ id: invoice.id, reason: reason || null }), 'cancelInvoice'));
          }}
        >
          <label>
            {w(lang, 'cancelReasonLabel')}
            <textarea name="reason" maxLength={200} rows={2} />
          </label>
          <div class="actions">
            <button type="submit" disabled={canceling}>
              {w(lang, 'cancelYes')}
            </button>
            <button type="button" class="secondary" onClick={open(null)}>
              {w(lang, 'keep')}
            </button>
          </div>
        </form>
      )}
      <RefusalNote lang={lang} refusal={refusal} />
      {done && <p role="status">{w(lang, 'done')}</p>}
    </div>
  );
}

function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

export function InvoiceDetail({ lang, id }: { lang: Lang; id: string }) {
  const [result, refetch] = useQuery({ query: InvoiceQuery, variables: { id, receiptsOf: id } });
  const [{ data: accountsData }] = useQuery({ query: BankAccountsQuery });
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  // Live: an event of this invoice (paid by a deposit, changed elsewhere) reads it again, and so does every
  // (re)connection, for what changed before the subscription was in place.
  useRereadOn((again) => followInvoiceEvents((e) => e.invoice.id === id && again(), again), refetch, result.fetching, [id]);
  const refusal = invoiceRefusalOf(result, 'invoice');
  const invoice = refusal ? undefined : result.data?.invoice;
  const receipts = result.data?.cashReceiptPage.items ?? [];
  const accounts = accountsData?.bankAccounts ?? [];
  const readAgain = () => refetch({ requestPolicy: 'network-only' });
  return (
    <section aria-labelledby="invoice-title" class="invoices-screen">
      <p>
        <a href={INVOICES_PATH} onClick={onLink(INVOICES_PATH)}>
          {w(lang, 'backToList')}
        </a>
      </p>
      <h2 id="invoice-title">
        {w(lang, 'invoice')}
        {invoice ? ` #${invoice.number} · ${invoice.customer.name} · ${won(lang, invoice.amount)}` : ''}
      </h2>
      <RefusalNote lang={lang} refusal={refusal} />
      {!invoice && !refusal && <p>{t(lang, 'loading')}</p>}
      {invoice && (
        <>
          <p>
            {t(lang, 'status')}: <strong data-invoice-status={invoice.status}>{t(lang, invoice.status)}</strong>
          </p>
          <Actions
            lang={lang}
            invoice={invoice}
            editing={editing}
            onChanged={readAgain}
            onEdit={() => {
              setSaved(false);
              setEditing(true);
            }}
          />
          {editing && invoice.status !== 'PENDING' && (
            <p role="alert" class="error">
              {w(lang, 'notPendingNote')}
            </p>
          )}
          {editing && (
            <EditInvoice
              lang={lang}
              invoice={invoice}
              accounts={accounts}
              onClose={() => setEditing(false)}
              onDone={() => {
                setEditing(false);
                setSaved(true);
                readAgain();
              }}
            />
          )}
          {saved && <p role="status">{w(lang, 'done')}</p>}

          <h3>{w(lang, 'details')}</h3>
          <dl class="fields">
            <Field label={w(lang, 'id')}>
              <code>{invoice.id}</code>
            </Field>
            <Field label={t(lang, 'depositor')}>{invoice.customer.name}</Field>
            <Field label={t(lang, 'amount')}>{won(lang, invoice.amount)}</Field>
            <Field label={w(lang, 'buyer')}>{[invoice.customer.email, invoice.customer.phoneNumber].filter(Boolean).join(' · ') || '—'}</Field>
            <Field label={w(lang, 'receivingAccounts')}>
              {invoice.bankAccountIds.length === 0
                ? w(lang, 'allAccounts')
                : invoice.bankAccountIds.map((a) => {
                    const known = accounts.find((x) => x.id === a);
                    return known ? accountName(known) : a;
                  }).join(', ')}
            </Field>
            <Field label={t(lang, 'createdAt')}>{kst(invoice.createdAt)}</Field>
            <Field label={w(lang, 'expiresAt')}>{invoice.expiresAt ? kst(invoice.expiresAt) : w(lang, 'never')}</Field>
            <Field label={w(lang, 'updatedAt')}>{kst(invoice.updatedAt)}</Field>
            {invoice.paidAt && <Field label={w(lang, 'paidAt')}>{kst(invoice.paidAt)}</Field>}
            {invoice.paidTrigger && <Field label={w(lang, 'paidTrigger')}>{w(lang, invoice.paidTrigger)}</Field>}
            {invoice.canceledAt && <Field label={w(lang, 'canceledAt')}>{kst(invoice.canceledAt)}</Field>}
            {invoice.canceledAt && <Field label={w(lang, 'cancelReason')}>{invoice.cancelReason || '—'}</Field>}
            {invoice.canceledBy && <Field label={w(lang, 'canceledBy')}>{invoice.canceledBy.name}</Field>}
            <Field label={w(lang, 'guideEmailSentAt')}>{invoice.guideEmailSentAt ? kst(invoice.guideEmailSentAt) : '—'}</Field>
            {invoice.metadata != null && (
              <Field label={w(lang, 'metadata')}>
                <code>{JSON.stringify(invoice.metadata)}</code>
              </Field>
            )}
          </dl>

          <h3 id="invoice-deposits-title">{w(lang, 'depositsTitle')}</h3>
          {invoice.transactions.length === 0 ? (
            <p>{w(lang, 'noDeposit')}</p>
          ) : (
            <table aria-labelledby="invoice-deposits-title">
              <thead>
                <tr>
                  <th scope="col">{t(lang, 'receivedAt')}</th>
                  <th scope="col">{t(lang, 'depositor')}</th>
                  <th scope="col" class="num">
                    {t(lang, 'amount')}
                  </th>
                  <th scope="col">{w(lang, 'account')}</th>
                  <th scope="col">{w(lang, 'matchMethod')}</th>
                </tr>
              </thead>
              <tbody>
                {invoice.transactions.map((d) => (
                  <tr key={d.id} data-transaction-id={d.id}>
                    <td>{kst(d.receivedAt)}</td>
                    <td>{d.description}</td>
                    <td class="num">{won(lang, d.amount)}</td>
                    <td>{accountName(d.bankAccount)}</td>
                    <td>{d.matchMethod ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h3 id="invoice-receipt-title">{w(lang, 'receiptTitle')}</h3>
          {invoice.cashReceipt && (
            <p>
              {w(lang, 'receiptRequested')} {w(lang, invoice.cashReceipt.type)} {invoice.cashReceipt.identifier}
            </p>
          )}
          {receipts.length === 0 ? (
            <p>{w(lang, 'noReceipt')}</p>
          ) : (
            <table aria-labelledby="invoice-receipt-title">
              <thead>
                <tr>
                  <th scope="col">{w(lang, 'issuedAt')}</th>
                  <th scope="col">{w(lang, 'receiptKind')}</th>
                  <th scope="col">{t(lang, 'status')}</th>
                  <th scope="col" class="num">
                    {t(lang, 'amount')}
                  </th>
                  <th scope="col" class="num">
                    {w(lang, 'supplyCost')}
                  </th>
                  <th scope="col" class="num">
                    {w(lang, 'tax')}
                  </th>
                  <th scope="col">{w(lang, 'ntsConfirmNum')}</th>
                </tr>
              </thead>
              <tbody>
                {receipts.map((r) => (
                  <tr key={r.id} data-receipt-id={r.id}>
                    <td>{kst(r.issuedAt)}</td>
                    <td>
                      {r.kind} · {w(lang, r.type)} {r.identifier}
                    </td>
                    <td>
                      {r.status}
                      {r.failureReason ? ` (${r.failureReason})` : ''}
                    </td>
                    <td class="num">{won(lang, r.amount)}</td>
                    <td class="num">{won(lang, r.supplyCost)}</td>
                    <td class="num">{won(lang, r.tax)}</td>
                    <td>{r.ntsConfirmNum ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h3 id="invoice-history-title">{w(lang, 'history')}</h3>
          <table aria-labelledby="invoice-history-title">
            <thead>
              <tr>
                <th scope="col">{w(lang, 'when')}</th>
                <th scope="col">{w(lang, 'what')}</th>
                <th scope="col">{w(lang, 'who')}</th>
                <th scope="col">{w(lang, 'details')}</th>
              </tr>
            </thead>
            <tbody>
              {invoice.history.map((h) => (
                <tr key={h.id} data-history-type={h.type}>
                  <td>{kst(h.createdAt)}</td>
                  <td>{historyType(lang, h.type)}</td>
                  <td>{h.actor ? h.actor.name : w(lang, 'system')}</td>
                  <td>{historyDetails(h)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
