/**
 * The home screen: the onboarding checklist that takes a new workspace to its first paid invoice — a bank account
 * verified by its 1-won deposit, a deposit feed (forwarded bank texts or the account's history), business info, an API
 * key, a webhook, and a test invoice paid. Each step's done state is read from the API (OnboardingQuery), never kept
 * in the page, so a reload resumes where the merchant was. The steps whose completion comes from outside — the
 * verification deposit, the first forwarded text — are read again every VERIFICATION_POLL_MS while open; a payment
 * comes live through the invoice events.
 */
import { useMutation, useQuery } from '@urql/preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { graphql, type ResultOf } from '../../graphql.ts';
import { kst, t, won, type Lang } from '../../i18n.ts';
import { followInvoiceEvents, useRereadOn } from '../../live.ts';
import { onLink } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { ErrorNote, refusalOf, SecretOnce, type Refusal } from '../../ui.tsx';
import { RegisterBankAccount, VERIFICATION_POLL_MS, VerificationWatch, type Registration } from './bank-account-step.tsx';
import { allDone, doneSteps, watchesDeposits } from './steps.ts';
import { w } from './words.ts';

const OnboardingQuery = graphql(`
  query DashboardOnboarding {
    bankAccounts { id alias provider number verifiedAt verificationCode }
    historyFeeds { id bankAccountId aggregator state lastError lastPolledAt }
    historyAggregators
    bankTexts(first: 1) { id text outcome reason receivedAt }
    viewer { workspace { businessInfo { companyName corpNum agency agencyLinkedAt } } }
    apiKeys { id name }
    webhooks { id url }
    paid: invoicePage(filter: { paid: true }, limit: 1, offset: 0) { totalItems }
    pending: invoicePage(filter: { statuses: [PENDING] }, limit: 1, offset: 0) { items { id number amount customer { name } } }
  }
`);

type Onboarding = ResultOf<typeof OnboardingQuery>;

const ConnectFeedMutation = graphql(`
  mutation DashboardConnectHistoryFeed($input: ConnectHistoryFeedInput!) {
    connectHistoryFeed(input: $input) {
      __typename
      ... on HistoryFeedPayload { feed { id } }
      ... on DomainError { code message }
    }
  }
`);

const SimulateDepositMutation = graphql(`
  mutation DashboardSimulateHistoryDeposit($input: SimulateHistoryDepositInput!) {
    simulateHistoryDeposit(input: $input) {
      __typename
      ... on SimulatedHistoryRowPayload { row { rowId } }
      ... on DomainError { code message }
    }
  }
`);

const BusinessInfoMutation = graphql(`
  mutation DashboardRegisterBusinessInfo($input: RegisterBusinessInfoInput!) {
    registerBusinessInfo(input: $input) { workspace { id } }
  }
`);

const ApiKeyMutation = graphql(`
  mutation DashboardCreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) { secret apiKey { id name } }
  }
`);

const WebhookMutation = graphql(`
  mutation DashboardCreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) { signingSecret webhook { id url } }
  }
`);

const InvoiceMutation = graphql(`
  mutation DashboardCreateTestInvoice($input: CreateInvoiceInput!) {
    createInvoice(input: $input) {
      __typename
      ... on InvoicePayload { invoice { id number amount customer { name } } }
      ... on DomainError { code message }
    }
  }
`);

export default function Screen({ lang }: ScreenProps) {
  const [state, reread] = useQuery({ query: OnboardingQuery, requestPolicy: 'network-only' });
  // The notification token as registering answered it: shown in the bank-text set-up for this visit only.
  const [registration, setRegistration] = useState<Registration | null>(null);
  const refresh = () => reread({ requestPolicy: 'network-only' });
  const d = state.data;
  const done = d ? doneSteps(d) : null;

  // The deposit-fed steps complete from outside: read again while one is open.
  const watching = !!done && !!d && watchesDeposits(d, done);
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(refresh, VERIFICATION_POLL_MS);
    return () => clearInterval(timer);
  }, [watching]);
  // A payment (or a new invoice) anywhere in the workspace, or a connection (again) in place: the test-deposit step
  // reads its state again.
  useRereadOn((again) => followInvoiceEvents(again, again), reread, state.fetching);

  if (!d || !done) {
    return (
      <section aria-labelledby="screen-title">
        <h2 id="screen-title">{t(lang, 'home')}</h2>
        {state.error ? <ErrorNote lang={lang} refusal={refusalOf(state)} /> : <p role="status">{t(lang, 'loading')}</p>}
      </section>
    );
  }
  const all = allDone(done);
  return (
    <section aria-labelledby="screen-title" class="onboarding">
      <h2 id="screen-title">{t(lang, 'home')}</h2>
      {all ? (
        <p role="status" class="all-done">
          {w(lang, 'allDone')}{' '}
          <a href="/dashboard/invoices" onClick={onLink('/dashboard/invoices')}>
            {w(lang, 'toInvoices')}
          </a>
        </p>
      ) : (
        <p>{w(lang, 'intro')}</p>
      )}
      <ErrorNote lang={lang} refusal={refusalOf(state)} />
      <ol class="checklist">
        <Step lang={lang} id="bank-account" title={w(lang, 'step1')} done={done.bankAccount}>
          <BankAccountStep lang={lang} d={d} done={done.bankAccount} registration={registration} onRegistered={(r) => {
              setRegistration(r);
              refresh();
            }} />
        </Step>
        <Step lang={lang} id="feed" title={w(lang, 'step2')} done={done.feed}>
          <FeedStep lang={lang} d={d} registration={registration} onChange={refresh} />
        </Step>
        <Step lang={lang} id="business" title={w(lang, 'step3')} done={done.business}>
          <BusinessStep lang={lang} d={d} onChange={refresh} />
        </Step>
        <Step lang={lang} id="api-key" title={w(lang, 'step4')} done={done.apiKey}>
          <ApiKeyStep lang={lang} d={d} onChange={refresh} />
        </Step>
        <Step lang={lang} id="webhook" title={w(lang, 'step5')} done={done.webhook}>
          <WebhookStep lang={lang} d={d} onChange={refresh} />
        </Step>
        <Step lang={lang} id="test-deposit" title={w(lang, 'step6')} done={done.paid}>
          <TestDepositStep lang={lang} d={d} paid={done.paid} onChange={refresh} />
        </Step>
      </ol>
    </section>
  );
}

/** One step of the checklist: its title with its state in words (not only a colour), and what to do in it. */
function Step({ lang, id, title, done, children }: { lang: Lang; id: string; title: string; done: boolean; children: ComponentChildren }) {
  return (
    <li class={done ? 'step done' : 'step'} aria-labelledby={`step-${id}`} data-step={id} data-done={String(done)}>
      <h3 id={`step-${id}`}>
        {title} <span class="step-state">{done ? w(lang, 'done') : w(lang, 'notDone')}</span>
      </h3>
      {children}
    </li>
  );
}

function BankAccountStep({ lang, d, done, registration, onRegistered }: { lang: Lang; d: Onboarding; done: boolean; registration: Registration | null; onRegistered: (r: Registration) => void }) {
  const verified = d.bankAccounts.find((a) => a.verifiedAt);
  const unverified = d.bankAccounts.find((a) => !a.verifiedAt);
  const registerView = (
    <>
      <RegisterBankAccount lang={lang} onRegistered={onRegistered} />
      <p class="hint">{w(lang, 'verifyThroughFeed')}</p>
    </>
  );
  // Registered during this visit: the form's own view stays, in the same place of the tree (its state: the token
  // shown once, the verification turning done).
  if (registration) return registerView;
  if (done && verified) {
    return (
      <p>
        {verified.alias} ({verified.number}) — {w(lang, 'verifiedAt')} {kst(verified.verifiedAt!)}
      </p>
    );
  }
  if (unverified) {
    // Registered before a reload: the code is read again from the API; the token was shown once and stays unseen.
    return (
      <>
        <p>
          {unverified.alias} ({unverified.number})
        </p>
        <VerificationWatch lang={lang} accountId={unverified.id} code={unverified.verificationCode ?? null} />
        <p class="hint">{w(lang, 'verifyThroughFeed')}</p>
      </>
    );
  }
  return registerView;
}

/** Step 2: forwarded bank texts (the set-up, the first text seen) or the account's history through an aggregator. */
function FeedStep({ lang, d, registration, onChange }: { lang: Lang; d: Onboarding; registration: Registration | null; onChange: () => void }) {
  const [connecting, connect] = useMutation(ConnectFeedMutation);
  const [simulating, simulate] = useMutation(SimulateDepositMutation);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [booked, setBooked] = useState(false);
  if (d.bankAccounts.length === 0) return <p class="hint">{w(lang, 'needAccountFirst')}</p>;
  const firstText = d.bankTexts[0];
  const account = d.bankAccounts[0]!;
  const simulatedFeed = d.historyFeeds.find((f) => f.aggregator === 'SIMULATED');
  const token = registration?.notificationToken ?? w(lang, 'yourToken');
  const url = `${location.origin}/bank-texts`;

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const aggregator = d.historyAggregators.find((a) => a === form.get('aggregator')) ?? 'SIMULATED';
    const r = await connect({ input: { bankAccountId: String(form.get('bankAccountId')), aggregator } });
    setRefusal(refusalOf(r, 'connectHistoryFeed'));
    onChange();
  };
  // The tour's bank: the 1-won verification deposit booked in the simulated history, found by the next poll.
  const bookVerification = async () => {
    const unverified = d.bankAccounts.find((a) => a.id === simulatedFeed?.bankAccountId && !a.verifiedAt);
    if (!simulatedFeed || !unverified?.verificationCode) return;
    const r = await simulate({ input: { feedId: simulatedFeed.id, depositorName: unverified.verificationCode, amount: 1 } });
    const failed = refusalOf(r, 'simulateHistoryDeposit');
    setRefusal(failed);
    setBooked(!failed);
    onChange();
  };
  const simulatedUnverified = simulatedFeed && d.bankAccounts.some((a) => a.id === simulatedFeed.bankAccountId && !a.verifiedAt);

  return (
    <div class="feed-options">
      <section aria-labelledby="feed-texts">
        <h4 id="feed-texts">{w(lang, 'bankTexts')}</h4>
        <p>{w(lang, 'bankTextsIntro')}</p>
        <dl class="request">
          <dt>{w(lang, 'targetUrl')}</dt>
          <dd>
            <code>{url}</code>
          </dd>
          <dt>{w(lang, 'method')}</dt>
          <dd>
            <code>POST</code>
          </dd>
          <dt>{w(lang, 'headers')}</dt>
          <dd>
            <code>Authorization: Bearer {token}</code>
            <br />
            <code>Content-Type: application/json</code>
          </dd>
          <dt>{w(lang, 'body')}</dt>
          <dd>
            <code>{'{"text": "<message>", "receivedAt": "<ISO 8601>", "channel": "SMS", "sender": "<number>"}'}</code>
          </dd>
        </dl>
        <ul>
          <li>{w(lang, 'android')}</li>
          <li>{w(lang, 'ios')}</li>
        </ul>
        {firstText ? (
          <div class="first-text" role="status">
            <p>
              {w(lang, 'firstText')} ({kst(firstText.receivedAt)}, {firstText.outcome})
            </p>
            <pre>{firstText.text}</pre>
          </div>
        ) : (
          <p role="status" class="hint">
            {w(lang, 'waitingForText')}
          </p>
        )}
      </section>
      <section aria-labelledby="feed-history">
        <h4 id="feed-history">{w(lang, 'history')}</h4>
        <p>{w(lang, 'historyIntro')}</p>
        {d.historyFeeds.map((f) => (
          <p key={f.id} role="status">
            {w(lang, 'feedConnected')}: {d.bankAccounts.find((a) => a.id === f.bankAccountId)?.alias ?? f.bankAccountId} — {f.aggregator} ({f.state})
            {f.lastError && ` — ${f.lastError}`}
          </p>
        ))}
        <form class="inline" onSubmit={submit} aria-label={w(lang, 'connectFeed')}>
          <label>
            {w(lang, 'account')}
            <select name="bankAccountId" defaultValue={account.id}>
              {d.bankAccounts.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.alias} ({a.number})
                </option>
              ))}
            </select>
          </label>
          <label>
            {w(lang, 'aggregator')}
            <select name="aggregator">
              {/* The ones this service offers (Popbill only when configured). */}
              {d.historyAggregators.map((name) => (
                <option key={name} value={name}>
                  {w(lang, name)}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={connecting.fetching}>
            {w(lang, 'connectFeed')}
          </button>
        </form>
        {simulatedUnverified && (
          <p>
            <button type="button" onClick={bookVerification} disabled={simulating.fetching || booked}>
              {w(lang, 'bookVerification')}
            </button>
          </p>
        )}
        <ErrorNote lang={lang} refusal={refusal} />
      </section>
    </div>
  );
}

function BusinessStep({ lang, d, onChange }: { lang: Lang; d: Onboarding; onChange: () => void }) {
  const [saving, save] = useMutation(BusinessInfoMutation);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const info = d.viewer.workspace.businessInfo;
  if (info) {
    return (
      <p>
        {info.companyName} ({info.corpNum}) — {w(lang, 'agency')} {info.agency}: {info.agencyLinkedAt ? `${w(lang, 'linkedAt')} ${kst(info.agencyLinkedAt)}` : w(lang, 'notLinked')}
      </p>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const r = await save({
      input: { companyName: String(form.get('companyName') ?? ''), corpNum: String(form.get('corpNum') ?? ''), representativeName: String(form.get('representativeName') ?? '') },
    });
    const failed = refusalOf(r, 'registerBusinessInfo');
    setRefusal(failed);
    if (!failed) onChange();
  };
  return (
    <form class="inline" onSubmit={submit} aria-label={w(lang, 'step3')}>
      <label>
        {w(lang, 'companyName')}
        <input name="companyName" required maxLength={100} autocomplete="organization" />
      </label>
      <label>
        {w(lang, 'corpNum')}
        <input name="corpNum" required inputMode="numeric" placeholder="123-45-67890" />
      </label>
      <label>
        {w(lang, 'representative')}
        <input name="representativeName" required maxLength={50} />
      </label>
      <button type="submit" disabled={saving.fetching}>
        {t(lang, 'save')}
      </button>
      <ErrorNote lang={lang} refusal={refusal} />
    </form>
  );
}

function ApiKeyStep({ lang, d, onChange }: { lang: Lang; d: Onboarding; onChange: () => void }) {
  const [creating, create] = useMutation(ApiKeyMutation);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const r = await create({ input: { name: String(form.get('name') ?? '') } });
    const failed = refusalOf(r);
    setRefusal(failed);
    if (failed || !r.data) return;
    setSecret(r.data.createApiKey.secret);
    onChange();
  };
  if (secret) return <SecretOnce lang={lang} label={w(lang, 'apiKeySecret')} secret={secret} />;
  if (d.apiKeys.length > 0) return <p>{d.apiKeys.map((k) => k.name).join(', ')}</p>;
  return (
    <form class="inline" onSubmit={submit} aria-label={w(lang, 'step4')}>
      <label>
        {w(lang, 'keyName')}
        <input name="name" required maxLength={100} />
      </label>
      <button type="submit" disabled={creating.fetching}>
        {w(lang, 'createKey')}
      </button>
      <ErrorNote lang={lang} refusal={refusal} />
    </form>
  );
}

function WebhookStep({ lang, d, onChange }: { lang: Lang; d: Onboarding; onChange: () => void }) {
  const [creating, create] = useMutation(WebhookMutation);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const version = form.get('version') === 'V1' ? ('V1' as const) : ('V2' as const);
    const r = await create({ input: { url: String(form.get('url') ?? ''), version } });
    const failed = refusalOf(r);
    setRefusal(failed);
    if (failed || !r.data) return;
    setSecret(r.data.createWebhook.signingSecret);
    onChange();
  };
  if (secret) return <SecretOnce lang={lang} label={w(lang, 'signingSecret')} secret={secret} />;
  if (d.webhooks.length > 0) return <p>{d.webhooks.map((h) => h.url).join(', ')}</p>;
  return (
    <form class="inline" onSubmit={submit} aria-label={w(lang, 'step5')}>
      <label>
        {w(lang, 'webhookUrl')}
        <input name="url" type="url" required placeholder="https://shop.example.com/webhooks" />
      </label>
      <label>
        {w(lang, 'version')}
        <select name="version">
          <option value="V2">V2</option>
          <option value="V1">V1</option>
        </select>
      </label>
      <button type="submit" disabled={creating.fetching}>
        {w(lang, 'createWebhook')}
      </button>
      {refusal?.code === 'WEBHOOK_URL_FORBIDDEN' ? (
        <ErrorNote lang={lang} refusal={`${w(lang, 'webhookForbidden')} ${refusal.message} (${refusal.code})`} />
      ) : (
        <ErrorNote lang={lang} refusal={refusal} />
      )}
    </form>
  );
}

/** Step 6: a test invoice, paid by the simulated bank (a SIMULATED feed on a verified account) or a real transfer. */
function TestDepositStep({ lang, d, paid, onChange }: { lang: Lang; d: Onboarding; paid: boolean; onChange: () => void }) {
  const [creating, create] = useMutation(InvoiceMutation);
  const [simulating, simulate] = useMutation(SimulateDepositMutation);
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  if (paid) return <p>{w(lang, 'paidDone')}</p>;
  const verified = new Set(d.bankAccounts.filter((a) => a.verifiedAt).map((a) => a.id));
  if (verified.size === 0) return <p class="hint">{w(lang, 'needVerifiedFirst')}</p>;
  const simulatedFeed = d.historyFeeds.find((f) => f.aggregator === 'SIMULATED' && verified.has(f.bankAccountId));
  const invoice = d.pending.items[0];

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const r = await create({ input: { bankAccountIds: [], customer: { name: String(form.get('name') ?? '') }, amount: Number(form.get('amount')) } });
    setRefusal(refusalOf(r, 'createInvoice'));
    onChange();
  };
  const book = async () => {
    if (!invoice || !simulatedFeed) return;
    const r = await simulate({ input: { feedId: simulatedFeed.id, depositorName: invoice.customer.name, amount: invoice.amount } });
    setRefusal(refusalOf(r, 'simulateHistoryDeposit'));
  };
  const account = d.bankAccounts.find((a) => verified.has(a.id))!;
  return (
    <>
      {invoice ? (
        <div class="test-invoice">
          <p>
            {w(lang, 'testInvoice')} #{invoice.number}: {invoice.customer.name}, {won(lang, invoice.amount)}
          </p>
          {simulatedFeed ? (
            <button type="button" onClick={book} disabled={simulating.fetching}>
              {w(lang, 'bookDeposit')}
            </button>
          ) : (
            <p>
              {w(lang, 'transferFromApp')} {account.alias} ({account.number}) — {t(lang, 'depositor')}: <code>{invoice.customer.name}</code>, {t(lang, 'amount')}:{' '}
              {won(lang, invoice.amount)}
            </p>
          )}
          <p role="status" class="hint">
            {w(lang, 'waitingForPayment')}
          </p>
        </div>
      ) : (
        <form class="inline" onSubmit={submit} aria-label={w(lang, 'createTestInvoice')}>
          <label>
            {t(lang, 'depositor')}
            <input name="name" required maxLength={16} />
          </label>
          <label>
            {t(lang, 'amount')}
            <input name="amount" type="number" required min={1} defaultValue="1000" />
          </label>
          <button type="submit" disabled={creating.fetching}>
            {w(lang, 'createTestInvoice')}
          </button>
        </form>
      )}
      <ErrorNote lang={lang} refusal={refusal} />
    </>
  );
}
