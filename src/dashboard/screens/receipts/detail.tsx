/**
 * One cash receipt (/dashboard/receipts/crt_...): its amount split into supply amount and VAT, what is canceled and
 * what remains, its cancellation receipts; cancel all or part of it, reissue a failed one, have the agency e-mail it.
 * While it (or one of its cancellations) waits for the tax authority the page reads it again every two seconds, so
 * the agency's answer shows without a reload.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { navigate, onLink } from '../../router.ts';
import { ErrorNote, refusalOf } from '../../ui.tsx';
import { digitsOf, InvoiceLink, LIST, ReceiptLink } from './parts.tsx';
import { RefusalNote, receiptRefusalOf, type ReceiptRefusal } from './refusal.tsx';
import { w } from './words.ts';

const ReceiptQuery = graphql(`
  query DashboardReceipt($id: ID!) {
    cashReceipt(id: $id) {
      id status kind type identifier amount supplyCost tax canceledAmount remainingAmount partial selfIssued corpNum
      relatedInvoiceId originalId reissuedFromId reissuedToId cancelReason ntsConfirmNum ntsResultCode failureReason
      issuedAt confirmedAt
      cancellations { id status amount supplyCost tax partial cancelReason issuedAt }
    }
  }
`);

const CancelMutation = graphql(`
  mutation DashboardCancelReceipt($id: ID!, $input: CancelCashReceiptInput!) {
    cancelCashReceipt(id: $id, input: $input) {
      __typename
      ... on CashReceiptPayload { cashReceipt { id amount } }
      ... on DomainError { code message data }
    }
  }
`);

const ReissueMutation = graphql(`
  mutation DashboardReissueReceipt($id: ID!, $input: ReissueCashReceiptInput!) {
    reissueCashReceipt(id: $id, input: $input) {
      __typename
      ... on CashReceiptPayload { cashReceipt { id } }
      ... on DomainError { code message data }
    }
  }
`);

const EmailMutation = graphql(`
  mutation DashboardEmailReceipt($id: ID!, $email: String!) {
    sendCashReceiptEmail(id: $id, email: $email) {
      __typename
      ... on SendCashReceiptEmailPayload { cashReceiptId }
      ... on DomainError { code message data }
    }
  }
`);

type Receipt = NonNullable<ResultOf<typeof ReceiptQuery>['cashReceipt']>;

/** How often a receipt waiting for the tax authority is read again. */
const POLL_MS = 2000;

function Facts({ lang, r }: { lang: Lang; r: Receipt }) {
  return (
    <dl class="receipt-facts">
      <dt>{t(lang, 'status')}</dt>
      <dd data-status={r.status}>{w(lang, r.status)}</dd>
      <dt>{w(lang, 'kind')}</dt>
      <dd data-kind={r.kind}>
        {w(lang, r.kind)}
        {r.partial && ` (${w(lang, 'partialNote')})`}
      </dd>
      <dt>{w(lang, 'purpose')}</dt>
      <dd>
        {w(lang, r.type)} {r.identifier}
        {r.selfIssued && ` (${w(lang, 'selfIssued')})`}
      </dd>
      <dt>{t(lang, 'amount')}</dt>
      <dd data-amount={r.amount}>{won(lang, r.amount)}</dd>
      <dt>{w(lang, 'supplyCost')}</dt>
      <dd data-supply-cost={r.supplyCost}>{won(lang, r.supplyCost)}</dd>
      <dt>{w(lang, 'vat')}</dt>
      <dd data-tax={r.tax}>{won(lang, r.tax)}</dd>
      {r.kind === 'ORIGINAL' && (
        <>
          <dt>{w(lang, 'canceledAmount')}</dt>
          <dd data-canceled-amount={r.canceledAmount}>{won(lang, r.canceledAmount)}</dd>
          <dt>{w(lang, 'remainingAmount')}</dt>
          <dd data-remaining-amount={r.remainingAmount}>{won(lang, r.remainingAmount)}</dd>
        </>
      )}
      {r.relatedInvoiceId && (
        <>
          <dt>{w(lang, 'invoice')}</dt>
          <dd>
            <InvoiceLink id={r.relatedInvoiceId} />
          </dd>
        </>
      )}
      {r.originalId && (
        <>
          <dt>{w(lang, 'original')}</dt>
          <dd>
            <ReceiptLink id={r.originalId} />
          </dd>
        </>
      )}
      {r.reissuedFromId && (
        <>
          <dt>{w(lang, 'reissuedFrom')}</dt>
          <dd>
            <ReceiptLink id={r.reissuedFromId} />
          </dd>
        </>
      )}
      {r.reissuedToId && (
        <>
          <dt>{w(lang, 'reissuedTo')}</dt>
          <dd>
            <ReceiptLink id={r.reissuedToId} />
          </dd>
        </>
      )}
      {r.cancelReason && (
        <>
          <dt>{w(lang, 'cancelReason')}</dt>
          <dd>{r.cancelReason}</dd>
        </>
      )}
      <dt>{w(lang, 'confirmNum')}</dt>
      <dd>{r.ntsConfirmNum ?? '—'}</dd>
      {r.ntsResultCode && (
        <>
          <dt>{w(lang, 'resultCode')}</dt>
          <dd>{r.ntsResultCode}</dd>
        </>
      )}
      {r.failureReason && (
        <>
          <dt>{w(lang, 'failureReason')}</dt>
          <dd>{r.failureReason}</dd>
        </>
      )}
      <dt>{w(lang, 'corpNumIssuer')}</dt>
      <dd>{r.corpNum}</dd>
      <dt>{w(lang, 'requestedAt')}</dt>
      <dd>{kst(r.issuedAt)}</dd>
      {r.confirmedAt && (
        <>
          <dt>{w(lang, 'confirmedAt')}</dt>
          <dd>{kst(r.confirmedAt)}</dd>
        </>
      )}
    </dl>
  );
}

function Cancellations({ lang, r }: { lang: Lang; r: Receipt }) {
  return (
    <section aria-labelledby="cancellations-title">
      <h3 id="cancellations-title">{w(lang, 'cancellations')}</h3>
      {r.cancellations.length === 0 ? (
        <p>{w(lang, 'noCancellations')}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{w(lang, 'receipt')}</th>
              <th scope="col">{t(lang, 'status')}</th>
              <th scope="col" class="num">
                {t(lang, 'amount')}
              </th>
              <th scope="col" class="num">
                {w(lang, 'supplyCost')}
              </th>
              <th scope="col" class="num">
                {w(lang, 'vat')}
              </th>
              <th scope="col">{w(lang, 'cancelReason')}</th>
              <th scope="col">{w(lang, 'requestedAt')}</th>
            </tr>
          </thead>
          <tbody>
            {r.cancellations.map((c) => (
              <tr key={c.id} data-receipt-id={c.id}>
                <th scope="row">
                  <ReceiptLink id={c.id} />
                </th>
                <td data-status={c.status}>{w(lang, c.status)}</td>
                <td class="num">{won(lang, c.amount)}</td>
                <td class="num">{won(lang, c.supplyCost)}</td>
                <td class="num">{won(lang, c.tax)}</td>
                <td>{c.cancelReason}</td>
                <td>{kst(c.issuedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Cancel all that remains, or part of it: a cancellation receipt for that amount. */
function CancelForm({ lang, r, onDone }: { lang: Lang; r: Receipt; onDone: () => void }) {
  const [part, setPart] = useState(false);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [refusal, setRefusal] = useState<ReceiptRefusal | null>(null);
  const [done, setDone] = useState<{ id: string; amount: number } | null>(null);
  const [{ fetching }, cancel] = useMutation(CancelMutation);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    setDone(null);
    const value = Number(amount.replace(/[\s,]/g, ''));
    // A part must be a whole number of won: anything else is refused here, in the API's words for it.
    if (part && !Number.isSafeInteger(value)) return setRefusal({ code: 'INVALID_CASH_RECEIPT_AMOUNT', message: '', data: null });
    const result = await cancel({ id: r.id, input: { reason, ...(part ? { amount: value } : {}) } });
    const refused = receiptRefusalOf(result, 'cancelCashReceipt');
    if (refused) return setRefusal(refused);
    const c = result.data?.cancelCashReceipt;
    if (c?.__typename === 'CashReceiptPayload') {
      setDone(c.cashReceipt);
      setAmount('');
      setReason('');
      onDone();
    }
  };
  return (
    <form class="receipt-panel" aria-labelledby="cancel-title" onSubmit={submit}>
      <h3 id="cancel-title">{w(lang, 'cancelTitle')}</h3>
      <p>
        {w(lang, 'remainingAmount')}: <strong>{won(lang, r.remainingAmount)}</strong>
      </p>
      <fieldset>
        <legend>{w(lang, 'cancelTitle')}</legend>
        <label class="check">
          <input type="radio" name="cancel-scope" checked={!part} onChange={() => setPart(false)} />
          {w(lang, 'cancelAll')} ({won(lang, r.remainingAmount)})
        </label>
        <label class="check">
          <input type="radio" name="cancel-scope" checked={part} onChange={() => setPart(true)} />
          {w(lang, 'cancelPart')}
        </label>
      </fieldset>
      {part && (
        <label>
          {w(lang, 'cancelAmount')}
          <input required inputMode="numeric" autoComplete="off" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
        </label>
      )}
      <label>
        {w(lang, 'reason')}
        <input required maxLength={100} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={fetching}>
        {w(lang, 'cancelSubmit')}
      </button>
      <RefusalNote lang={lang} prefix={w(lang, 'cancelFailed')} refusal={refusal} />
      {done && (
        <p role="status">
          {w(lang, 'canceled')}: <ReceiptLink id={done.id} /> ({won(lang, done.amount)})
        </p>
      )}
    </form>
  );
}

/** Reissue a failed receipt once: the number corrected, or self-issued (income deduction only). */
function ReissueForm({ lang, r }: { lang: Lang; r: Receipt }) {
  const [type, setType] = useState(r.type);
  const [identifier, setIdentifier] = useState(r.identifier);
  const [self, setSelf] = useState(false);
  const [refusal, setRefusal] = useState<ReceiptRefusal | null>(null);
  const [{ fetching }, reissue] = useMutation(ReissueMutation);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    const result = await reissue({ id: r.id, input: self ? { selfIssued: true, type } : { type, identifier: digitsOf(identifier) } });
    const refused = receiptRefusalOf(result, 'reissueCashReceipt');
    if (refused) return setRefusal(refused);
    const x = result.data?.reissueCashReceipt;
    if (x?.__typename === 'CashReceiptPayload') navigate(`${LIST}/${x.cashReceipt.id}`);
  };
  return (
    <form class="receipt-panel" aria-labelledby="reissue-title" onSubmit={submit}>
      <h3 id="reissue-title">{w(lang, 'reissueTitle')}</h3>
      <p class="hint">{w(lang, 'reissueHint')}</p>
      <fieldset>
        <legend>{w(lang, 'purpose')}</legend>
        {(['PERSONAL', 'CORPORATE'] as const).map((x) => (
          <label key={x} class="check">
            <input type="radio" name="reissue-type" checked={type === x} onChange={() => setType(x)} />
            {w(lang, x)}
          </label>
        ))}
      </fieldset>
      <label class="check">
        <input type="checkbox" checked={self} onChange={(e) => setSelf(e.currentTarget.checked)} />
        {w(lang, 'reissueSelf')}
      </label>
      {!self && (
        <label>
          {w(lang, type === 'PERSONAL' ? 'phone' : 'corpNum')}
          <input required inputMode="numeric" autoComplete="off" value={identifier} onInput={(e) => setIdentifier(e.currentTarget.value)} />
        </label>
      )}
      <button type="submit" disabled={fetching}>
        {w(lang, 'reissueSubmit')}
      </button>
      <RefusalNote lang={lang} prefix={w(lang, 'reissueFailed')} refusal={refusal} />
    </form>
  );
}

/** Have the agency e-mail the receipt (one with a tax-authority confirmation number). */
function EmailForm({ lang, r }: { lang: Lang; r: Receipt }) {
  const [email, setEmail] = useState('');
  const [refusal, setRefusal] = useState<ReceiptRefusal | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [{ fetching }, send] = useMutation(EmailMutation);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    setSentTo(null);
    const to = email.trim();
    const result = await send({ id: r.id, email: to });
    const refused = receiptRefusalOf(result, 'sendCashReceiptEmail');
    if (refused) return setRefusal(refused);
    if (result.data?.sendCashReceiptEmail.__typename === 'SendCashReceiptEmailPayload') setSentTo(to);
  };
  return (
    <form class="receipt-panel" aria-labelledby="email-title" onSubmit={submit}>
      <h3 id="email-title">{w(lang, 'emailTitle')}</h3>
      <label>
        {w(lang, 'emailAddress')}
        <input required type="email" maxLength={100} autoComplete="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={fetching}>
        {w(lang, 'send')}
      </button>
      <RefusalNote lang={lang} prefix={w(lang, 'sendFailed')} refusal={refusal} />
      {sentTo && (
        <p role="status">
          {w(lang, 'sent')}: {sentTo}
        </p>
      )}
    </form>
  );
}

export function ReceiptDetail({ lang, id }: { lang: Lang; id: string }) {
  const [result, reread] = useQuery({ query: ReceiptQuery, variables: { id } });
  const r = result.data?.cashReceipt;
  const waiting = !!r && (r.status === 'PENDING' || r.cancellations.some((c) => c.status === 'PENDING'));
  // Waiting for the tax authority: read again in a while, until it answers (each answer schedules the next read).
  useEffect(() => {
    if (!waiting || result.fetching) return;
    const timer = setTimeout(() => reread({ requestPolicy: 'network-only' }), POLL_MS);
    return () => clearTimeout(timer);
  }, [waiting, result.fetching, result.data]);
  const refusal = refusalOf(result);
  const missing = refusal?.code === 'CASH_RECEIPT_NOT_FOUND' || refusal?.code === 'INVALID_CASH_RECEIPT_ID';
  return (
    <section aria-labelledby="receipt-title" class="receipts-screen">
      <p>
        <a href={LIST} onClick={onLink(LIST)}>
          ← {w(lang, 'back')}
        </a>
      </p>
      <h2 id="receipt-title">
        {w(lang, 'detailTitle')} {id}
      </h2>
      {refusal && <ErrorNote lang={lang} refusal={missing ? w(lang, 'notFound') : refusal} />}
      {!r && result.fetching && <p>{t(lang, 'loading')}</p>}
      {r && (
        <>
          {waiting && (
            <p role="status" class="hint">
              {w(lang, 'waiting')}
            </p>
          )}
          <Facts lang={lang} r={r} />
          {r.kind === 'ORIGINAL' && <Cancellations lang={lang} r={r} />}
          <div class="receipt-actions">
            {r.kind === 'ORIGINAL' && r.status === 'ISSUED' && r.remainingAmount > 0 && (
              <CancelForm lang={lang} r={r} onDone={() => reread({ requestPolicy: 'network-only' })} />
            )}
            {r.kind === 'ORIGINAL' && r.status === 'FAILED' && !r.reissuedToId && <ReissueForm lang={lang} r={r} />}
            {r.status !== 'FAILED' && r.ntsConfirmNum && <EmailForm lang={lang} r={r} />}
          </div>
        </>
      )}
    </section>
  );
}
