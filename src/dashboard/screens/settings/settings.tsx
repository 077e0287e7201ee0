/**
 * Settings: the business information cash receipts are issued under (saving links the agency), the paid e-mail to
 * buyers, and the bank accounts (renamed, taken out of use and back, and added with the onboarding's own step).
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import type { ScreenProps } from '../../screens.ts';
import { ErrorNote, refusalOf } from '../../ui.tsx';
import { RegisterBankAccount } from '../home/bank-account-step.tsx';
import { BankAccounts } from './bank-accounts.tsx';
import { corpNumShown } from './business.ts';
import { refusalWords, refusedField } from './refusals.ts';
import { w } from './words.ts';

const WorkspaceQuery = graphql(`
  query DashboardSettingsWorkspace {
    viewer {
      workspace {
        id
        paidEmailEnabled
        businessInfo { corpNum companyName representativeName agency agencyLinkedAt }
      }
    }
  }
`);

const RegisterBusinessInfoMutation = graphql(`
  mutation DashboardRegisterBusinessInfo($input: RegisterBusinessInfoInput!) {
    registerBusinessInfo(input: $input) {
      workspace { id businessInfo { corpNum companyName representativeName agency agencyLinkedAt } }
    }
  }
`);

const PaidEmailMutation = graphql(`
  mutation DashboardPaidEmail($input: WorkspaceSettingsInput!) {
    updateWorkspaceSettings(input: $input) {
      __typename
      ... on DomainError { code message field }
      ... on WorkspacePayload { workspace { id paidEmailEnabled } }
    }
  }
`);

type BusinessInfo = { corpNum: string; companyName: string; representativeName: string; agency: string; agencyLinkedAt: string | null };

function Business({ lang, info, onSaved }: { lang: Lang; info: BusinessInfo | null; onSaved: () => void }) {
  const [saving, save] = useMutation(RegisterBusinessInfoMutation);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const input = { corpNum: String(form.get('corpNum') ?? ''), companyName: String(form.get('companyName') ?? ''), representativeName: String(form.get('representativeName') ?? '') };
    setSaved(false);
    const r = await save({ input });
    const refusal = refusalOf(r);
    const field = refusedField(r, 'registerBusinessInfo');
    setError(refusal && refusalWords(refusal, field, { corpNum: w(lang, 'badCorpNum'), companyName: w(lang, 'badCompanyName'), representativeName: w(lang, 'badRepresentativeName') }));
    if (refusal) return;
    setSaved(true);
    onSaved();
  };
  return (
    <section aria-labelledby="business-title">
      <h3 id="business-title">{w(lang, 'businessInfo')}</h3>
      <p class="hint">{w(lang, 'businessInfoHint')}</p>
      {info ? (
        <dl class="settings-facts" aria-label={w(lang, 'businessInfo')}>
          <dt>{w(lang, 'corpNum')}</dt>
          <dd data-field="corpNum">{corpNumShown(info.corpNum)}</dd>
          <dt>{w(lang, 'companyName')}</dt>
          <dd data-field="companyName">{info.companyName}</dd>
          <dt>{w(lang, 'representativeName')}</dt>
          <dd data-field="representativeName">{info.representativeName}</dd>
          <dt>{w(lang, 'agency')}</dt>
          <dd data-field="agency">{info.agencyLinkedAt ? `${info.agency} · ${w(lang, 'linkedAt')} ${kst(info.agencyLinkedAt)}` : w(lang, 'notLinked')}</dd>
        </dl>
      ) : (
        <p>{w(lang, 'noBusinessInfo')}</p>
      )}
      {/* Keyed by what is stored: after a save the fields start again from the saved values. */}
      <form key={info ? `${info.corpNum}|${info.companyName}|${info.representativeName}` : 'none'} class="inline" onSubmit={submit} aria-label={w(lang, info ? 'changeBusinessInfo' : 'registerBusinessInfo')}>
        <label>
          {w(lang, 'corpNum')}
          <input name="corpNum" required inputMode="numeric" autocomplete="off" placeholder="123-45-67890" defaultValue={info ? corpNumShown(info.corpNum) : ''} />
        </label>
        <label>
          {w(lang, 'companyName')}
          <input name="companyName" required autocomplete="organization" defaultValue={info?.companyName ?? ''} />
        </label>
        <label>
          {w(lang, 'representativeName')}
          <input name="representativeName" required autocomplete="name" defaultValue={info?.representativeName ?? ''} />
        </label>
        <button type="submit" disabled={saving.fetching}>
          {w(lang, info ? 'changeBusinessInfo' : 'registerBusinessInfo')}
        </button>
      </form>
      <ErrorNote lang={lang} refusal={error} prefix={w(lang, 'businessFailed')} />
      {saved && !error && <p role="status">{w(lang, 'businessSaved')}</p>}
    </section>
  );
}

function PaidEmail({ lang, enabled, onSaved }: { lang: Lang; enabled: boolean; onSaved: () => void }) {
  const [saving, save] = useMutation(PaidEmailMutation);
  const [error, setError] = useState<string | null>(null);
  // What the last change saved (the status line says it), null before any.
  const [savedAs, setSavedAs] = useState<boolean | null>(null);
  const toggle = async (next: boolean) => {
    setSavedAs(null);
    const r = await save({ input: { paidEmailEnabled: next } });
    const refusal = refusalOf(r, 'updateWorkspaceSettings');
    setError(refusal && refusalWords(refusal, null, {}));
    if (refusal) return;
    setSavedAs(next);
    onSaved();
  };
  return (
    <section aria-labelledby="paid-email-title">
      <h3 id="paid-email-title">{w(lang, 'paidEmail')}</h3>
      <label class="check">
        <input type="checkbox" checked={enabled} disabled={saving.fetching} onChange={(e) => toggle((e.currentTarget as HTMLInputElement).checked)} />
        {w(lang, 'paidEmailLabel')}
      </label>
      <p class="hint">{w(lang, 'paidEmailHint')}</p>
      <ErrorNote lang={lang} refusal={error} prefix={w(lang, 'paidEmailFailed')} />
      {savedAs !== null && <p role="status">{w(lang, savedAs ? 'paidEmailOn' : 'paidEmailOff')}</p>}
    </section>
  );
}

export default function SettingsScreen({ lang }: ScreenProps) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: WorkspaceQuery });
  // Bumped when an account is added: the list reads the accounts again.
  const [added, setAdded] = useState(0);
  const workspace = data?.viewer.workspace;
  return (
    <section aria-labelledby="screen-title">
      <h2 id="screen-title">{t(lang, 'settings')}</h2>
      {!workspace && fetching && <p>{t(lang, 'loading')}</p>}
      <ErrorNote lang={lang} refusal={refusalOf({ error })} />
      {workspace && (
        <>
          <Business lang={lang} info={workspace.businessInfo ?? null} onSaved={() => refetch({ requestPolicy: 'network-only' })} />
          <PaidEmail lang={lang} enabled={workspace.paidEmailEnabled} onSaved={() => refetch({ requestPolicy: 'network-only' })} />
        </>
      )}
      <BankAccounts lang={lang} reload={added} />
      <section aria-labelledby="add-account-title">
        <h3 id="add-account-title">{w(lang, 'addBankAccount')}</h3>
        <RegisterBankAccount lang={lang} onRegistered={() => setAdded((n) => n + 1)} />
      </section>
    </section>
  );
}
