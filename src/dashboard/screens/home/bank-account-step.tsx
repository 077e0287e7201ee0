/**
 * Registering a receiving bank account and watching its 1-won verification: the form (bank from `bankProviders`,
 * number, type, alias), then the notification token shown once and the code to send as the depositor name of a 1-won
 * transfer. The account's `verifiedAt` is read again every VERIFICATION_POLL_MS until the verification deposit has
 * arrived, so the page says "verified" on its own. The home checklist and the Settings screen both use it.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, type Lang } from '../../i18n.ts';
import { ErrorNote, refusalOf, SecretOnce, type Refusal } from '../../ui.tsx';
import { w } from './words.ts';

/** How often an unverified account is read again: the verification shows within about this long of the deposit. */
export const VERIFICATION_POLL_MS = 1500;

const ProvidersQuery = graphql(`
  query DashboardBankProviders {
    bankProviders { id displayName }
  }
`);

const RegisterMutation = graphql(`
  mutation DashboardRegisterBankAccount($input: RegisterBankAccountInput!) {
    registerBankAccount(input: $input) {
      verificationCode
      notificationToken
      bankAccount { id alias provider number verifiedAt }
    }
  }
`);

export const BankAccountsQuery = graphql(`
  query DashboardBankAccounts {
    bankAccounts { id alias provider number type verifiedAt verificationCode }
  }
`);

/** What registering answered: the account, its verification code and its notification token (shown once). */
export type Registration = ResultOf<typeof RegisterMutation>['registerBankAccount'];

/**
 * Reads the workspace's bank accounts again every VERIFICATION_POLL_MS while `watching`: what the step's "verified"
 * comes from (a reload reads the same state).
 */
export function useBankAccounts(watching: boolean) {
  const [result, reexecute] = useQuery({ query: BankAccountsQuery, requestPolicy: 'network-only' });
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(() => reexecute({ requestPolicy: 'network-only' }), VERIFICATION_POLL_MS);
    return () => clearInterval(timer);
  }, [watching, reexecute]);
  return result;
}

/** The 1-won transfer to make, and whether it has arrived (the account's verifiedAt, polled). */
export function VerificationWatch({ lang, accountId, code }: { lang: Lang; accountId: string; code: string | null }) {
  const [verifiedAt, setVerifiedAt] = useState<string | null>(null);
  const accounts = useBankAccounts(verifiedAt === null);
  const account = accounts.data?.bankAccounts.find((a) => a.id === accountId);
  useEffect(() => {
    if (account?.verifiedAt) setVerifiedAt(account.verifiedAt);
  }, [account?.verifiedAt]);
  const shownCode = code ?? account?.verificationCode ?? null;
  return (
    <div class="verification">
      {verifiedAt ? (
        <p role="status" class="done">
          {w(lang, 'verifiedAt')} {kst(verifiedAt)}
        </p>
      ) : (
        <>
          {shownCode && (
            <p>
              {w(lang, 'sendOneWon')} <code class="code">{shownCode}</code>
            </p>
          )}
          <p class="hint">{w(lang, 'verificationHint')}</p>
          <p role="status" class="hint">
            {w(lang, 'waitingForVerification')}
          </p>
        </>
      )}
      <ErrorNote lang={lang} refusal={refusalOf(accounts)} />
    </div>
  );
}

/**
 * The registration form; once registered, the token (shown once) and the verification watch. `onRegistered` tells the
 * screen holding it that an account was added (it may read its list again, or keep the token for this visit).
 */
export function RegisterBankAccount({ lang, onRegistered }: { lang: Lang; onRegistered?: (registration: Registration) => void }) {
  const [providers] = useQuery({ query: ProvidersQuery });
  const [registering, register] = useMutation(RegisterMutation);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [registered, setRegistered] = useState<Registration | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const input = {
      provider: String(form.get('provider') ?? ''),
      type: form.get('type') === 'CORPORATE' ? ('CORPORATE' as const) : ('PERSONAL' as const),
      number: String(form.get('number') ?? ''),
      alias: String(form.get('alias') ?? ''),
    };
    const r = await register({ input });
    const failed = refusalOf(r);
    setRefusal(failed);
    if (failed || !r.data) return;
    setRegistered(r.data.registerBankAccount);
    onRegistered?.(r.data.registerBankAccount);
  };

  if (registered) {
    return (
      <div class="registered">
        <p role="status">
          {w(lang, 'registered')}: {registered.bankAccount.alias} ({registered.bankAccount.number})
        </p>
        <SecretOnce lang={lang} label={w(lang, 'notificationToken')} secret={registered.notificationToken}>
          <p class="hint">{w(lang, 'notificationTokenHint')}</p>
        </SecretOnce>
        <VerificationWatch lang={lang} accountId={registered.bankAccount.id} code={registered.verificationCode} />
        <button type="button" class="link" onClick={() => setRegistered(null)}>
          {w(lang, 'registerAnother')}
        </button>
      </div>
    );
  }

  return (
    <form class="inline" onSubmit={submit} aria-label={w(lang, 'registerBankAccount')}>
      <label>
        {w(lang, 'bank')}
        <select name="provider" required>
          {(providers.data?.bankProviders ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.displayName}
            </option>
          ))}
        </select>
      </label>
      <label>
        {w(lang, 'accountNumber')}
        <input name="number" inputMode="numeric" required pattern="[0-9\- ]{10,20}" placeholder="110-123-456789" />
      </label>
      <label>
        {w(lang, 'accountType')}
        <select name="type">
          <option value="PERSONAL">{w(lang, 'PERSONAL')}</option>
          <option value="CORPORATE">{w(lang, 'CORPORATE')}</option>
        </select>
      </label>
      <label>
        {w(lang, 'alias')}
        <input name="alias" required maxLength={50} />
      </label>
      <button type="submit" disabled={registering.fetching || !providers.data}>
        {w(lang, 'register')}
      </button>
      <ErrorNote lang={lang} refusal={refusal ?? refusalOf(providers)} prefix={w(lang, 'registerFailed')} />
    </form>
  );
}
