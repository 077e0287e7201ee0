/**
 * The workspace's bank accounts: each with its bank, number, type, 1-won verification (the code still to send, when
 * awaited) and whether it is in use; renamed, and taken out of use (after a confirmation saying what that means) and
 * back, through updateBankAccount.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import { ErrorNote, refusalOf } from '../../ui.tsx';
import { refusalWords, refusedField } from './refusals.ts';
import { w } from './words.ts';

const AccountsQuery = graphql(`
  query DashboardSettingsBankAccounts {
    bankAccounts { id alias provider number type active verifiedAt verificationCode }
    bankProviders { id displayName }
  }
`);

const UpdateMutation = graphql(`
  mutation DashboardUpdateBankAccount($input: UpdateBankAccountInput!) {
    updateBankAccount(input: $input) {
      __typename
      ... on DomainError { code message field }
      ... on BankAccountPayload { bankAccount { id alias active } }
    }
  }
`);

type Account = ResultOf<typeof AccountsQuery>['bankAccounts'][number];
/** What a row is doing: showing, renaming, or asking before deactivating. */
type Mode = 'view' | 'rename' | 'confirm';

function AccountRow({ lang, account, bankName, onChanged }: { lang: Lang; account: Account; bankName: string; onChanged: () => void }) {
  const [mode, setMode] = useState<Mode>('view');
  const [updating, update] = useMutation(UpdateMutation);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  const change = async (input: { alias?: string; active?: boolean }) => {
    setSaved(false);
    const r = await update({ input: { bankAccountId: account.id, ...input } });
    const refusal = refusalOf(r, 'updateBankAccount');
    setError(refusal && refusalWords(refusal, refusedField(r, 'updateBankAccount'), { alias: w(lang, 'badAlias') }));
    if (refusal) return;
    setMode('view');
    setSaved(true);
    onChanged();
  };
  const rename = (e: Event) => {
    e.preventDefault();
    void change({ alias: String(new FormData(e.currentTarget as HTMLFormElement).get('alias') ?? '') });
  };
  /** Another step of the row: what the last one said (refused, saved) no longer applies. */
  const step = (next: Mode) => {
    setMode(next);
    setError(null);
    setSaved(false);
  };

  return (
    <tr data-bank-account-id={account.id} data-active={account.active ? 'true' : 'false'}>
      <td>
        {mode === 'rename' ? (
          <form class="inline" onSubmit={rename} aria-label={`${w(lang, 'rename')}: ${account.alias}`}>
            <label>
              {w(lang, 'newAlias')}
              <input name="alias" required defaultValue={account.alias} />
            </label>
            <button type="submit" disabled={updating.fetching}>
              {t(lang, 'save')}
            </button>
            <button type="button" class="link" onClick={() => step('view')}>
              {t(lang, 'cancel')}
            </button>
          </form>
        ) : (
          account.alias
        )}
      </td>
      <td>{bankName}</td>
      <td>{account.number}</td>
      <td>{w(lang, account.type)}</td>
      <td>
        {account.verifiedAt ? (
          `${w(lang, 'verified')} ${kst(account.verifiedAt)}`
        ) : (
          <>
            {w(lang, 'notVerified')}
            {account.verificationCode && (
              <>
                {' '}
                ({w(lang, 'sendOneWon')} <code class="code">{account.verificationCode}</code>)
              </>
            )}
          </>
        )}
      </td>
      <td data-in-use>{w(lang, account.active ? 'active' : 'inactive')}</td>
      <td>
        {mode === 'view' && (
          <div class="candidates">
            <button type="button" aria-label={`${w(lang, 'rename')}: ${account.alias}`} onClick={() => step('rename')}>
              {w(lang, 'rename')}
            </button>
            {account.active ? (
              <button type="button" aria-label={`${w(lang, 'deactivate')}: ${account.alias}`} onClick={() => step('confirm')}>
                {w(lang, 'deactivate')}
              </button>
            ) : (
              <button type="button" disabled={updating.fetching} aria-label={`${w(lang, 'reactivate')}: ${account.alias}`} onClick={() => change({ active: true })}>
                {w(lang, 'reactivate')}
              </button>
            )}
          </div>
        )}
        {mode === 'confirm' && (
          <div role="group" aria-label={`${w(lang, 'deactivate')}: ${account.alias}`} class="candidates">
            <p class="hint">{w(lang, 'deactivateQuestion')}</p>
            <button type="button" disabled={updating.fetching} onClick={() => change({ active: false })}>
              {w(lang, 'confirmDeactivate')}
            </button>
            <button type="button" class="link" onClick={() => step('view')}>
              {t(lang, 'cancel')}
            </button>
          </div>
        )}
        <ErrorNote lang={lang} refusal={error} prefix={w(lang, mode === 'rename' ? 'renameFailed' : 'changeFailed')} />
        {saved && <p role="status">{w(lang, 'accountSaved')}</p>}
      </td>
    </tr>
  );
}

/** The list; `reload` changes when an account was added elsewhere on the page (the list reads the accounts again). */
export function BankAccounts({ lang, reload }: { lang: Lang; reload: number }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: AccountsQuery });
  const again = () => refetch({ requestPolicy: 'network-only' });
  useEffect(() => {
    if (reload > 0) again();
  }, [reload]);
  const banks = new Map((data?.bankProviders ?? []).map((p) => [p.id, p.displayName]));
  const accounts = data?.bankAccounts;
  return (
    <section aria-labelledby="bank-accounts-title">
      <h3 id="bank-accounts-title">{w(lang, 'bankAccounts')}</h3>
      <p class="hint">{w(lang, 'bankAccountsHint')}</p>
      <ErrorNote lang={lang} refusal={refusalOf({ error })} />
      {!accounts && fetching && <p>{t(lang, 'loading')}</p>}
      {accounts && accounts.length === 0 && <p>{w(lang, 'noBankAccounts')}</p>}
      {accounts && accounts.length > 0 && (
        <table aria-labelledby="bank-accounts-title">
          <thead>
            <tr>
              <th scope="col">{w(lang, 'alias')}</th>
              <th scope="col">{w(lang, 'bank')}</th>
              <th scope="col">{w(lang, 'accountNumber')}</th>
              <th scope="col">{w(lang, 'accountType')}</th>
              <th scope="col">{w(lang, 'verification')}</th>
              <th scope="col">{w(lang, 'inUse')}</th>
              <th scope="col">{w(lang, 'actions')}</th>
            </tr>
          </thead>
          <tbody>
            {accounts.map((a) => (
              <AccountRow key={a.id} lang={lang} account={a} bankName={banks.get(a.provider) ?? a.provider} onChanged={again} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
