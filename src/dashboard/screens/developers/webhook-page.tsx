/**
 * One webhook (/dashboard/developers/webhooks/<id>): its URL (changeable), a new signing secret (shown once), disable or
 * enable, delete; and its delivery log — per attempt the status, the response code and the duration — where an event
 * is delivered again with a fresh round of attempts.
 */
import { useMutation, useQuery } from '@urql/preact';
import { useEffect, useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, type Lang } from '../../i18n.ts';
import { navigate, onLink } from '../../router.ts';
import { ErrorNote, refusalOf, SecretOnce, type Refusal } from '../../ui.tsx';
import { ConfirmDelete } from './confirm-delete.tsx';
import { w } from './words.ts';

const WebhookQuery = graphql(`
  query DashboardWebhook($id: ID!) {
    webhook(id: $id) {
      id url version enabled disabledAt createdAt previousSecretExpiresAt
      deliveries(first: 100) { id eventId attempt status responseStatus durationMs error nextAttemptAt createdAt }
    }
  }
`);

const UpdateWebhook = graphql(`
  mutation DashboardUpdateWebhook($id: ID!, $url: String!) {
    updateWebhook(id: $id, url: $url) {
      __typename
      ... on WebhookPayload { webhook { id url } }
      ... on DomainError { code message }
    }
  }
`);

const RotateSecret = graphql(`
  mutation DashboardRotateWebhookSecret($id: ID!) {
    rotateWebhookSecret(id: $id) {
      __typename
      ... on WebhookSecretPayload { signingSecret webhook { id previousSecretExpiresAt } }
      ... on DomainError { code message }
    }
  }
`);

const DisableWebhook = graphql(`
  mutation DashboardDisableWebhook($id: ID!) {
    disableWebhook(id: $id) {
      __typename
      ... on WebhookPayload { webhook { id enabled disabledAt } }
      ... on DomainError { code message }
    }
  }
`);

const EnableWebhook = graphql(`
  mutation DashboardEnableWebhook($id: ID!) {
    enableWebhook(id: $id) {
      __typename
      ... on WebhookPayload { webhook { id enabled disabledAt } }
      ... on DomainError { code message }
    }
  }
`);

const DeleteWebhook = graphql(`
  mutation DashboardDeleteWebhook($id: ID!) {
    deleteWebhook(id: $id) {
      __typename
      ... on WebhookPayload { webhook { id } }
      ... on DomainError { code message }
    }
  }
`);

const Redeliver = graphql(`
  mutation DashboardRedeliverWebhookEvent($webhookId: ID!, $eventId: ID!) {
    redeliverWebhookEvent(webhookId: $webhookId, eventId: $eventId) {
      __typename
      ... on RedeliverWebhookEventPayload { eventId }
      ... on DomainError { code message }
    }
  }
`);

type Delivery = ResultOf<typeof WebhookQuery>['webhook']['deliveries'][number];

const LIST = '/dashboard/developers/webhooks';
/** How often the log is re-read while an attempt is due (a retry, a redelivery just asked). */
const POLL_MS = 2_000;
/** How long after a redelivery the log keeps being re-read for its first attempt. */
const REDELIVERY_WATCH_MS = 30_000;

/** Whether an attempt is still to come: an event's newest attempt names a next one. */
function retryDue(deliveries: readonly Delivery[]): boolean {
  const seen = new Set<string>();
  for (const d of deliveries) {
    if (seen.has(d.eventId)) continue;
    seen.add(d.eventId);
    if (d.nextAttemptAt) return true;
  }
  return false;
}

function ChangeUrl({ lang, id, url, onDone }: { lang: Lang; id: string; url: string; onDone: () => void }) {
  const [value, setValue] = useState(url);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [{ fetching }, update] = useMutation(UpdateWebhook);
  const submit = async (e: Event) => {
    e.preventDefault();
    setRefusal(null);
    const refused = refusalOf(await update({ id, url: value.trim() }), 'updateWebhook');
    setRefusal(refused);
    if (!refused) onDone();
  };
  return (
    <form class="inline" onSubmit={submit} aria-label={w(lang, 'changeUrl')}>
      <label>
        {w(lang, 'url')}
        <input type="url" value={value} required size={48} onInput={(e) => setValue(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={fetching || value.trim() === url}>
        {w(lang, 'changeUrl')}
      </button>
      <ErrorNote lang={lang} refusal={refusal} />
    </form>
  );
}

function DeliveryLog({ lang, deliveries, onRedeliver }: { lang: Lang; deliveries: readonly Delivery[]; onRedeliver: (eventId: string) => void }) {
  if (deliveries.length === 0) return <p>{w(lang, 'noDeliveries')}</p>;
  // One Redeliver per event, on its newest attempt (the log is newest first).
  const offered = new Set<string>();
  return (
    <table aria-labelledby="deliveries-title" class="dev-log">
      <thead>
        <tr>
          <th scope="col">{w(lang, 'at')}</th>
          <th scope="col">{w(lang, 'event')}</th>
          <th scope="col" class="num">
            {w(lang, 'attempt')}
          </th>
          <th scope="col">{t(lang, 'status')}</th>
          <th scope="col" class="num">
            {w(lang, 'responseCode')}
          </th>
          <th scope="col" class="num">
            {w(lang, 'duration')}
          </th>
          <th scope="col">{w(lang, 'detail')}</th>
          <th scope="col">{w(lang, 'actions')}</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => {
          const offer = !offered.has(d.eventId);
          offered.add(d.eventId);
          return (
            <tr key={d.id} data-delivery-id={d.id} data-event-id={d.eventId}>
              <th scope="row">{kst(d.createdAt)}</th>
              <td>
                <code>{d.eventId}</code>
              </td>
              <td class="num" data-attempt={d.attempt}>
                {d.attempt}
              </td>
              <td data-status={d.status}>{w(lang, d.status)}</td>
              <td class="num" data-response-status={d.responseStatus ?? ''}>
                {d.responseStatus ?? '—'}
              </td>
              <td class="num" data-duration-ms={d.durationMs}>
                {d.durationMs} ms
              </td>
              <td>
                {d.error}
                {d.nextAttemptAt && (
                  <span class="hint">
                    {' '}
                    {w(lang, 'nextAttempt')}: {kst(d.nextAttemptAt)}
                  </span>
                )}
              </td>
              <td>
                {offer && (
                  <button type="button" aria-label={`${w(lang, 'redeliver')}: ${d.eventId}`} onClick={() => onRedeliver(d.eventId)}>
                    {w(lang, 'redeliver')}
                  </button>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function WebhookPage({ lang, id }: { lang: Lang; id: string }) {
  const [{ data, fetching, error }, refetch] = useQuery({ query: WebhookQuery, variables: { id } });
  const [, rotate] = useMutation(RotateSecret);
  const [, disable] = useMutation(DisableWebhook);
  const [, enable] = useMutation(EnableWebhook);
  const [, remove] = useMutation(DeleteWebhook);
  const [, redeliver] = useMutation(Redeliver);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [newSecret, setNewSecret] = useState<string | null>(null);
  const [redelivered, setRedelivered] = useState<{ eventId: string; until: number } | null>(null);
  const reread = () => refetch({ requestPolicy: 'network-only' });

  const hook = data?.webhook;
  const watching = !!hook && (retryDue(hook.deliveries) || (redelivered !== null && Date.now() < redelivered.until));
  // Attempts happen in the background: while one is due, the log is re-read so it appears without a reload.
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(reread, POLL_MS);
    return () => clearInterval(timer);
  }, [watching]);

  const run = async (result: Promise<Parameters<typeof refusalOf>[0]>, field: string) => {
    setRefusal(null);
    const refused = refusalOf(await result, field);
    setRefusal(refused);
    reread();
    return !refused;
  };

  if (error && !hook) {
    const notFound = error.graphQLErrors.some((e) => e.extensions?.code === 'NOT_FOUND');
    return (
      <section aria-labelledby="webhook-title">
        <h3 id="webhook-title">{w(lang, 'webhooks')}</h3>
        <ErrorNote lang={lang} refusal={notFound ? w(lang, 'webhookNotFound') : refusalOf({ error })} />
        <a href={LIST} onClick={onLink(LIST)}>
          {w(lang, 'backToWebhooks')}
        </a>
      </section>
    );
  }
  if (!hook) return <p>{fetching ? t(lang, 'loading') : t(lang, 'failed')}</p>;

  return (
    <section aria-labelledby="webhook-title">
      <p>
        <a href={LIST} onClick={onLink(LIST)}>
          {w(lang, 'backToWebhooks')}
        </a>
      </p>
      <h3 id="webhook-title">
        {w(lang, 'webhooks')}: {hook.url}
      </h3>
      <dl class="dev-facts">
        <dt>{w(lang, 'version')}</dt>
        <dd>{hook.version}</dd>
        <dt>{w(lang, 'state')}</dt>
        <dd data-enabled={String(hook.enabled)}>
          {w(lang, hook.enabled ? 'enabled' : 'disabled')}
          {hook.disabledAt && ` (${kst(hook.disabledAt)})`}
        </dd>
        <dt>{w(lang, 'created')}</dt>
        <dd>{kst(hook.createdAt)}</dd>
        {hook.previousSecretExpiresAt && (
          <>
            <dt>{w(lang, 'previousSecretUntil')}</dt>
            <dd>{kst(hook.previousSecretExpiresAt)}</dd>
          </>
        )}
      </dl>
      <ChangeUrl key={hook.url} lang={lang} id={hook.id} url={hook.url} onDone={reread} />
      {newSecret && (
        <SecretOnce lang={lang} label={`${w(lang, 'signingSecret')} (${hook.url})`} secret={newSecret}>
          <button type="button" class="link" onClick={() => setNewSecret(null)}>
            {t(lang, 'close')}
          </button>
        </SecretOnce>
      )}
      <div class="candidates dev-actions">
        <button
          type="button"
          aria-describedby="rotate-hint"
          onClick={async () => {
            setRefusal(null);
            const r = await rotate({ id: hook.id });
            const refused = refusalOf(r, 'rotateWebhookSecret');
            setRefusal(refused);
            const payload = r.data?.rotateWebhookSecret;
            if (!refused && payload?.__typename === 'WebhookSecretPayload') setNewSecret(payload.signingSecret);
            reread();
          }}
        >
          {w(lang, 'rotate')}
        </button>
        {hook.enabled ? (
          <button type="button" onClick={() => run(disable({ id: hook.id }), 'disableWebhook')}>
            {w(lang, 'disable')}
          </button>
        ) : (
          <button type="button" onClick={() => run(enable({ id: hook.id }), 'enableWebhook')}>
            {w(lang, 'enable')}
          </button>
        )}
        <ConfirmDelete
          lang={lang}
          what={hook.url}
          onConfirm={async () => {
            if (await run(remove({ id: hook.id }), 'deleteWebhook')) navigate(LIST);
          }}
        />
      </div>
      <p class="hint" id="rotate-hint">
        {w(lang, 'rotateHint')}
      </p>
      <ErrorNote lang={lang} refusal={refusal} />

      <h4 id="deliveries-title">{w(lang, 'deliveries')}</h4>
      <div class="candidates dev-actions">
        <button type="button" onClick={reread}>
          {w(lang, 'refresh')}
        </button>
        <p role="status" class="hint">
          {redelivered && (
            <>
              {w(lang, 'redelivering')} (<code>{redelivered.eventId}</code>)
            </>
          )}
        </p>
      </div>
      <DeliveryLog
        lang={lang}
        deliveries={hook.deliveries}
        onRedeliver={async (eventId) => {
          setRedelivered(null);
          if (await run(redeliver({ webhookId: hook.id, eventId }), 'redeliverWebhookEvent')) setRedelivered({ eventId, until: Date.now() + REDELIVERY_WATCH_MS });
        }}
      />
    </section>
  );
}
