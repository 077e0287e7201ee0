/**
 * The bank texts no parser understood, or that named another bank or account (README, "Bank texts"): each read by the
 * merchant and entered by hand as the deposit it announces (on the text's account, matched like any deposit), or
 * dismissed. Only the open ones are listed: a text once entered or dismissed is done.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { fromKstLocal, kst, t, toKstLocal, won, type Lang } from '../../i18n.ts';
import { refusalOf } from '../../ui.tsx';
import { AccountsQuery, accountLabel } from './accounts.ts';
import { fill, w } from './words.ts';

const OpenTextsQuery = graphql(`
  query DashboardOpenBankTexts {
    bankTexts(open: true, first: 100) { id bankAccountId text channel sender receivedAt outcome reason }
  }
`);

const EnterMutation = graphql(`
  mutation DashboardEnterBankText($input: EnterBankTextDepositInput!) {
    enterBankTextDeposit(input: $input) {
      __typename
      ... on BankTextDepositPayload { transaction { id amount matchedInvoice { number } } }
      ... on DomainError { code message field }
    }
  }
`);

const DismissMutation = graphql(`
  mutation DashboardDismissBankText($id: ID!) {
    dismissBankText(id: $id) {
      __typename
      ... on BankTextPayload { bankText { id resolution } }
      ... on DomainError { code message }
    }
  }
`);

type Text = ResultOf<typeof OpenTextsQuery>['bankTexts'][number];

/** One open text: what it says, and the form that enters its deposit or dismisses it. */
function OpenText({ lang, text, account, onDone }: { lang: Lang; text: Text; account: string; onDone: (message: string) => void }) {
  const [, enter] = useMutation(EnterMutation);
  const [, dismiss] = useMutation(DismissMutation);
  const [problem, setProblem] = useState<string | null>(null);
  const titleId = `btx-${text.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const amount = String(form.get('amount') ?? '').replace(/[,\s원₩]/g, '');
    const depositorName = String(form.get('depositorName') ?? '').trim();
    const time = String(form.get('receivedAt') ?? '');
    const balance = String(form.get('balanceAfter') ?? '').replace(/[,\s원₩]/g, '');
    const at = time ? fromKstLocal(time) : null;
    if (!/^\d{1,15}$/.test(amount) || Number(amount) < 1 || !depositorName || (at && Number.isNaN(at.getTime())) || (balance && !/^-?\d{1,15}$/.test(balance))) {
      setProblem(w(lang, 'badText'));
      return;
    }
    const r = await enter({
      input: { bankTextId: text.id, amount: Number(amount), depositorName, ...(at ? { receivedAt: at.toISOString() } : {}), ...(balance ? { balanceAfter: Number(balance) } : {}) },
    });
    const refusal = refusalOf(r, 'enterBankTextDeposit');
    if (refusal) return setProblem(`${w(lang, 'textFailed')}: ${refusal.message} (${refusal.code})`);
    const result = r.data?.enterBankTextDeposit;
    if (result?.__typename !== 'BankTextDepositPayload') return;
    const paid = result.transaction.matchedInvoice;
    onDone(`${won(lang, result.transaction.amount)}: ${paid ? fill(w(lang, 'enteredPaid'), { number: paid.number }) : w(lang, 'enteredUnmatched')}`);
  };
  const dismissIt = async () => {
    const refusal = refusalOf(await dismiss({ id: text.id }), 'dismissBankText');
    if (refusal) return setProblem(`${w(lang, 'textFailed')}: ${refusal.message} (${refusal.code})`);
    onDone(w(lang, 'dismissed'));
  };
  return (
    <article aria-labelledby={titleId} class="bank-text">
      <h4 id={titleId}>
        {w(lang, 'textReceived')}: {kst(text.receivedAt)} · {account}
      </h4>
      <pre>{text.text}</pre>
      <p class="hint">
        {w(lang, 'channel')}: {text.channel}
        {text.sender && ` · ${w(lang, 'sender')}: ${text.sender}`}
        {text.reason && ` · ${w(lang, 'why')}: ${text.reason}`}
      </p>
      {problem && (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      <form class="inline" aria-label={`${w(lang, 'enter')}: ${kst(text.receivedAt)}`} onSubmit={submit}>
        <label>
          {w(lang, 'amount')}
          <input name="amount" inputMode="numeric" required />
        </label>
        <label>
          {w(lang, 'depositorName')}
          <input name="depositorName" required maxLength={100} />
        </label>
        <label>
          {w(lang, 'bookedAt')}
          <input name="receivedAt" type="datetime-local" defaultValue={toKstLocal(text.receivedAt)} />
        </label>
        <label>
          {w(lang, 'balanceAfter')}
          <input name="balanceAfter" inputMode="numeric" />
        </label>
        <button type="submit">{w(lang, 'enter')}</button>
        <button type="button" onClick={dismissIt}>
          {w(lang, 'dismiss')}
        </button>
      </form>
    </article>
  );
}

export default function BankTexts({ lang }: { lang: Lang }) {
  const [{ data, fetching }, refetch] = useQuery({ query: OpenTextsQuery, requestPolicy: 'cache-and-network' });
  const [{ data: accounts }] = useQuery({ query: AccountsQuery });
  const [done, setDone] = useState<string | null>(null);
  const after = (message: string) => {
    setDone(message);
    refetch({ requestPolicy: 'network-only' });
  };
  const texts = data?.bankTexts;
  return (
    <section aria-labelledby="bank-texts-title">
      <h3 id="bank-texts-title">{w(lang, 'texts')}</h3>
      <p class="hint">{w(lang, 'textsIntro')}</p>
      {done && <p role="status">{done}</p>}
      {!texts && fetching && <p>{t(lang, 'loading')}</p>}
      {texts && texts.length === 0 && <p>{w(lang, 'noTexts')}</p>}
      {texts?.map((text) => (
        <OpenText key={text.id} lang={lang} text={text} account={accountLabel(accounts?.bankAccounts, text.bankAccountId)} onDone={after} />
      ))}
    </section>
  );
}
