/**
 * OAuth apps: a new app (its name and redirect URIs), its client secret shown once with its client id; the workspace's
 * apps; and the apps this workspace has authorized (its grants, live or revoked).
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import { ErrorNote, refusalOf, SecretOnce, type Refusal } from '../../ui.tsx';
import { w } from './words.ts';

const OAuthQuery = graphql(`
  query DashboardOAuthApps {
    oauthApps { id name redirectUris createdAt }
    oauthAuthorizations { id createdAt revokedAt app { id name } }
  }
`);

const CreateOAuthApp = graphql(`
  mutation DashboardCreateOAuthApp($input: CreateOAuthAppInput!) {
    createOAuthApp(input: $input) { clientSecret app { id name } }
  }
`);

/** The redirect URIs typed one a line (blank lines ignored). */
const urisOf = (text: string) =>
  text
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function CreateAppForm({ lang, onCreated }: { lang: Lang; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [created, setCreated] = useState<{ id: string; name: string; secret: string } | null>(null);
  const [{ fetching }, create] = useMutation(CreateOAuthApp);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    const r = await create({ input: { name, redirectUris: urisOf(uris) } });
    const refused = refusalOf(r, 'createOAuthApp');
    if (refused || !r.data) return setRefusal(refused ?? { code: 'ERROR', message: t(lang, 'failed') });
    const { app, clientSecret } = r.data.createOAuthApp;
    setCreated({ id: app.id, name: app.name, secret: clientSecret });
    setName('');
    setUris('');
    onCreated();
  };
  return (
    <>
      {created && (
        <SecretOnce lang={lang} label={`${w(lang, 'clientSecret')} (${created.name})`} secret={created.secret}>
          <p>
            {w(lang, 'clientId')}: <code data-client-id>{created.id}</code>
          </p>
          <button type="button" class="link" onClick={() => setCreated(null)}>
            {t(lang, 'close')}
          </button>
        </SecretOnce>
      )}
      <form class="dev-form" onSubmit={submit} aria-labelledby="new-app-title">
        <h4 id="new-app-title">{w(lang, 'newOAuthApp')}</h4>
        <label>
          {w(lang, 'name')}
          <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          {w(lang, 'redirectUris')}
          <textarea value={uris} required rows={3} placeholder="https://" onInput={(e) => setUris(e.currentTarget.value)} />
        </label>
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

export function OAuthApps({ lang }: { lang: Lang }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: OAuthQuery });
  return (
    <section aria-labelledby="oauth-title">
      <h3 id="oauth-title">{w(lang, 'oauthApps')}</h3>
      <CreateAppForm lang={lang} onCreated={() => refetch({ requestPolicy: 'network-only' })} />
      <ErrorNote lang={lang} refusal={error ? refusalOf({ error }) : null} />
      {!data && fetching && <p>{t(lang, 'loading')}</p>}
      {data && data.oauthApps.length === 0 && <p>{w(lang, 'noOAuthApps')}</p>}
      {data && data.oauthApps.length > 0 && (
        <table aria-labelledby="oauth-title">
          <thead>
            <tr>
              <th scope="col">{w(lang, 'name')}</th>
              <th scope="col">{w(lang, 'clientId')}</th>
              <th scope="col">{w(lang, 'redirectUrisShort')}</th>
              <th scope="col">{w(lang, 'created')}</th>
            </tr>
          </thead>
          <tbody>
            {data.oauthApps.map((a) => (
              <tr key={a.id} data-oauth-app-id={a.id}>
                <th scope="row">{a.name}</th>
                <td>
                  <code>{a.id}</code>
                </td>
                <td>
                  {a.redirectUris.map((u) => (
                    <div key={u}>{u}</div>
                  ))}
                </td>
                <td>{kst(a.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h4 id="authorizations-title">{w(lang, 'authorizations')}</h4>
      {data && data.oauthAuthorizations.length === 0 && <p>{w(lang, 'noAuthorizations')}</p>}
      {data && data.oauthAuthorizations.length > 0 && (
        <table aria-labelledby="authorizations-title">
          <thead>
            <tr>
              <th scope="col">{w(lang, 'name')}</th>
              <th scope="col">{w(lang, 'clientId')}</th>
              <th scope="col">{w(lang, 'authorizedAt')}</th>
              <th scope="col">{w(lang, 'state')}</th>
            </tr>
          </thead>
          <tbody>
            {data.oauthAuthorizations.map((g) => (
              <tr key={g.id} data-grant-id={g.id}>
                <th scope="row">{g.app.name}</th>
                <td>
                  <code>{g.app.id}</code>
                </td>
                <td>{kst(g.createdAt)}</td>
                <td data-revoked={String(!!g.revokedAt)}>{g.revokedAt ? `${w(lang, 'revoked')} (${kst(g.revokedAt)})` : w(lang, 'active')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
