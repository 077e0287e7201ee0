/**
 * Webhooks: a new endpoint (its URL and version, which decides the events it receives), its signing secret shown once;
 * the list, each webhook linking to its own page (webhook-page.tsx: URL, secret rotation, delivery log, redelivery).
 */
import { useMutation, useQuery } from '@urql/preact';
import { useState } from 'preact/hooks';
import { graphql } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import { onLink } from '../../router.ts';
import { ErrorNote, refusalOf, SecretOnce, type Refusal } from '../../ui.tsx';
import { w } from './words.ts';

const WebhooksQuery = graphql(`
  query DashboardWebhooks {
    webhooks { id url version enabled createdAt }
  }
`);

const CreateWebhook = graphql(`
  mutation DashboardCreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) { signingSecret webhook { id url } }
  }
`);

export const webhookPath = (id: string) => `/dashboard/developers/webhooks/${encodeURIComponent(id)}`;

function CreateWebhookForm({ lang, onCreated }: { lang: Lang; onCreated: () => void }) {
  const [url, setUrl] = useState('');
  const [version, setVersion] = useState<'V1' | 'V2'>('V2');
  const [refusal, setRefusal] = useState<Refusal | string | null>(null);
  const [created, setCreated] = useState<{ id: string; url: string; secret: string } | null>(null);
  const [{ fetching }, create] = useMutation(CreateWebhook);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    const r = await create({ input: { url: url.trim(), version } });
    const refused = refusalOf(r, 'createWebhook');
    if (refused || !r.data) return setRefusal(refused ?? t(lang, 'failed'));
    const { webhook, signingSecret } = r.data.createWebhook;
    setCreated({ id: webhook.id, url: webhook.url, secret: signingSecret });
    setUrl('');
    onCreated();
  };
  return (
    <>
      {created && (
        <SecretOnce lang={lang} label={`${w(lang, 'signingSecret')} (${created.url})`} secret={created.secret}>
          <div class="candidates">
            <a href={webhookPath(created.id)} onClick={onLink(webhookPath(created.id))}>
              {w(lang, 'openLog')}
            </a>
            <button type="button" class="link" onClick={() => setCreated(null)}>
              {t(lang, 'close')}
            </button>
          </div>
        </SecretOnce>
      )}
      <form class="dev-form" onSubmit={submit} aria-labelledby="new-webhook-title">
        <h4 id="new-webhook-title">{w(lang, 'newWebhook')}</h4>
        <label>
          {w(lang, 'url')}
          <input type="url" value={url} required placeholder="https://" onInput={(e) => setUrl(e.currentTarget.value)} />
        </label>
        <label>
          {w(lang, 'version')}
          <select value={version} aria-describedby="webhook-events" onChange={(e) => setVersion(e.currentTarget.value === 'V1' ? 'V1' : 'V2')}>
            <option value="V2">V2</option>
            <option value="V1">V1</option>
          </select>
        </label>
        <p class="hint" id="webhook-events">
          {w(lang, 'eventsOf')}: {w(lang, version === 'V1' ? 'eventsV1' : 'eventsV2')}
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

export function Webhooks({ lang }: { lang: Lang }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: WebhooksQuery });
  return (
    <section aria-labelledby="webhooks-title">
      <h3 id="webhooks-title">{w(lang, 'webhooks')}</h3>
      <CreateWebhookForm lang={lang} onCreated={() => refetch({ requestPolicy: 'network-only' })} />
      <ErrorNote lang={lang} refusal={error ? refusalOf({ error }) : null} />
      {!data && fetching && <p>{t(lang, 'loading')}</p>}
      {data && data.webhooks.length === 0 && <p>{w(lang, 'noWebhooks')}</p>}
      {data && data.webhooks.length > 0 && (
        <table aria-labelledby="webhooks-title">
          <thead>
            <tr>
              <th scope="col">{w(lang, 'url')}</th>
              <th scope="col">{w(lang, 'version')}</th>
              <th scope="col">{w(lang, 'state')}</th>
              <th scope="col">{w(lang, 'created')}</th>
            </tr>
          </thead>
          <tbody>
            {data.webhooks.map((h) => (
              <tr key={h.id} data-webhook-id={h.id}>
                <th scope="row">
                  <a href={webhookPath(h.id)} onClick={onLink(webhookPath(h.id))} aria-label={`${w(lang, 'openLog')}: ${h.url}`}>
                    {h.url}
                  </a>
                </th>
                <td>{h.version}</td>
                <td data-enabled={String(h.enabled)}>{w(lang, h.enabled ? 'enabled' : 'disabled')}</td>
                <td>{kst(h.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
