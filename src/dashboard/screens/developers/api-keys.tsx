/**
 * API keys: a new key with the options the API has (read-only, limited to chosen bank accounts, an expiry date), its
 * secret shown once; the list with each key's state, last use and expiry; disable, delete (asked first).
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import { ErrorNote, refusalOf, SecretOnce, type Refusal } from '../../ui.tsx';
import { ConfirmDelete } from './confirm-delete.tsx';
import { expiryAfterKstDay, keyStateOf } from './keys.ts';
import { w } from './words.ts';

const ApiKeysQuery = graphql(`
  query DashboardApiKeys {
    apiKeys { id name secretHint readOnly bankAccountIds createdAt expiresAt disabledAt lastUsedAt }
    bankAccounts { id alias provider number }
  }
`);

const CreateApiKey = graphql(`
  mutation DashboardCreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) { secret apiKey { id name } }
  }
`);

const DisableApiKey = graphql(`
  mutation DashboardDisableApiKey($id: ID!) {
    disableApiKey(id: $id) { apiKey { id disabledAt } }
  }
`);

const DeleteApiKey = graphql(`
  mutation DashboardDeleteApiKey($id: ID!) {
    deleteApiKey(id: $id) { apiKey { id deletedAt } }
  }
`);

type Account = ResultOf<typeof ApiKeysQuery>['bankAccounts'][number];

const accountName = (a: Account) => `${a.alias || a.provider} (${a.number})`;

function CreateKeyForm({ lang, accounts, onCreated }: { lang: Lang; accounts: readonly Account[]; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [limited, setLimited] = useState(false);
  const [chosen, setChosen] = useState<readonly string[]>([]);
  const [expiry, setExpiry] = useState('');
  const [refusal, setRefusal] = useState<Refusal | string | null>(null);
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  const [{ fetching }, create] = useMutation(CreateApiKey);

  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    if (limited && chosen.length === 0) return setRefusal(w(lang, 'noAccountChosen'));
    const expiresAt = expiry ? expiryAfterKstDay(expiry) : null;
    if (expiry && !expiresAt) return setRefusal(`${w(lang, 'expiry')}: ${expiry}`);
    const r = await create({ input: { name, readOnly, bankAccountIds: limited ? [...chosen] : null, expiresAt } });
    const refused = refusalOf(r, 'createApiKey');
    if (refused || !r.data) return setRefusal(refused ?? t(lang, 'failed'));
    setCreated({ name: r.data.createApiKey.apiKey.name, secret: r.data.createApiKey.secret });
    setName('');
    setReadOnly(false);
    setLimited(false);
    setChosen([]);
    setExpiry('');
    onCreated();
  };

  const toggle = (id: string, on: boolean) => setChosen((c) => (on ? [...c, id] : c.filter((x) => x !== id)));

  return (
    <>
      {created && (
        <SecretOnce lang={lang} label={`${w(lang, 'keySecret')} (${created.name})`} secret={created.secret}>
          <button type="button" class="link" onClick={() => setCreated(null)}>
            {t(lang, 'close')}
          </button>
        </SecretOnce>
      )}
      <form class="dev-form" onSubmit={submit} aria-labelledby="new-key-title">
        <h4 id="new-key-title">{w(lang, 'newApiKey')}</h4>
        <label>
          {w(lang, 'name')}
          <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="dev-check">
          <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.currentTarget.checked)} />
          {w(lang, 'readOnly')}
        </label>
        <fieldset>
          <legend>{w(lang, 'accounts')}</legend>
          <label class="dev-check">
            <input type="radio" name="key-accounts" checked={!limited} onChange={() => setLimited(false)} />
            {w(lang, 'allAccounts')}
          </label>
          <label class="dev-check">
            <input type="radio" name="key-accounts" checked={limited} onChange={() => setLimited(true)} />
            {w(lang, 'someAccounts')}
          </label>
          {limited && accounts.length === 0 && <p class="hint">{w(lang, 'noAccounts')}</p>}
          {limited &&
            accounts.map((a) => (
              <label class="dev-check dev-indent" key={a.id}>
                <input type="checkbox" checked={chosen.includes(a.id)} onChange={(e) => toggle(a.id, e.currentTarget.checked)} />
                {accountName(a)}
              </label>
            ))}
        </fieldset>
        <label>
          {w(lang, 'expiry')}
          <input type="date" value={expiry} aria-describedby="key-expiry-hint" onInput={(e) => setExpiry(e.currentTarget.value)} />
        </label>
        <p class="hint" id="key-expiry-hint">
          {w(lang, 'expiryHint')}
        </p>
        <ErrorNote lang={lang} refusal={refusal} />
        <div>
          <button type="submit" disabled={fetching}>
            {w(lang, 'create')}
          </button>
        </div>
      </form>
    </>
  );
}

export function ApiKeys({ lang }: { lang: Lang }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: ApiKeysQuery });
  const [, disable] = useMutation(DisableApiKey);
  const [, remove] = useMutation(DeleteApiKey);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const reread = () => refetch({ requestPolicy: 'network-only' });
  const act = async (run: () => Promise<Parameters<typeof refusalOf>[0]>) => {
    setRefusal(null);
    setRefusal(refusalOf(await run()));
    reread();
  };
  const accounts = data?.bankAccounts ?? [];
  const accountsOf = (ids: readonly string[] | null) =>
    ids === null ? w(lang, 'allAccounts') : ids.map((id) => accounts.find((a) => a.id === id)).map((a, i) => (a ? accountName(a) : ids[i])).join(', ');
  const now = Date.now();
  return (
    <section aria-labelledby="api-keys-title">
      <h3 id="api-keys-title">{w(lang, 'apiKeys')}</h3>
      <CreateKeyForm lang={lang} accounts={accounts} onCreated={reread} />
      <ErrorNote lang={lang} refusal={refusal ?? (error ? refusalOf({ error }) : null)} />
      {!data && fetching && <p>{t(lang, 'loading')}</p>}
      {data && data.apiKeys.length === 0 && <p>{w(lang, 'noKeys')}</p>}
      {data && data.apiKeys.length > 0 && (
        <table aria-labelledby="api-keys-title">
          <thead>
            <tr>
              <th scope="col">{w(lang, 'name')}</th>
              <th scope="col">{w(lang, 'hint')}</th>
              <th scope="col">{w(lang, 'access')}</th>
              <th scope="col">{w(lang, 'accounts')}</th>
              <th scope="col">{w(lang, 'state')}</th>
              <th scope="col">{w(lang, 'created')}</th>
              <th scope="col">{w(lang, 'lastUsed')}</th>
              <th scope="col">{w(lang, 'expires')}</th>
              <th scope="col">{w(lang, 'actions')}</th>
            </tr>
          </thead>
          <tbody>
            {data.apiKeys.map((k) => {
              const state = keyStateOf(k, now);
              return (
                <tr key={k.id} data-api-key-id={k.id}>
                  <th scope="row">{k.name}</th>
                  <td>…{k.secretHint}</td>
                  <td>{w(lang, k.readOnly ? 'readOnlyShort' : 'readWrite')}</td>
                  <td>{accountsOf(k.bankAccountIds ?? null)}</td>
                  <td data-state={state}>{w(lang, state)}</td>
                  <td>{kst(k.createdAt)}</td>
                  <td data-last-used={k.lastUsedAt ?? ''}>{k.lastUsedAt ? kst(k.lastUsedAt) : w(lang, 'never')}</td>
                  <td>{k.expiresAt ? kst(k.expiresAt) : w(lang, 'never')}</td>
                  <td>
                    <div class="candidates">
                      {state !== 'disabled' && (
                        <button type="button" aria-label={`${w(lang, 'disable')}: ${k.name}`} onClick={() => act(() => disable({ id: k.id }))}>
                          {w(lang, 'disable')}
                        </button>
                      )}
                      <ConfirmDelete lang={lang} what={k.name} onConfirm={() => act(() => remove({ id: k.id }))} />
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
