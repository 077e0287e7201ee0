/**
 * Developers: API keys (/dashboard/developers), webhooks (/dashboard/developers/webhooks) with each one's page and
 * delivery log (/dashboard/developers/webhooks/<id>), and OAuth apps (/dashboard/developers/oauth-apps). Every secret
 * the API returns (a key's, a webhook's signing secret, an app's client secret) is shown once, with a copy button.
 */
import { t } from '../../i18n.ts';
import { onLink } from '../../router.ts';
import type { ScreenProps } from '../../screens.ts';
import { ApiKeys } from './api-keys.tsx';
import { OAuthApps } from './oauth-apps.tsx';
import { WebhookPage } from './webhook-page.tsx';
import { Webhooks } from './webhooks.tsx';
import { w } from './words.ts';

const BASE = '/dashboard/developers';

const PARTS = [
  { path: BASE, word: 'apiKeys' },
  { path: `${BASE}/webhooks`, word: 'webhooks' },
  { path: `${BASE}/oauth-apps`, word: 'oauthApps' },
] as const;

/** A path segment decoded; a malformed escape is kept as typed (the API then says no such webhook). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default function DevelopersScreen({ lang, rest }: ScreenProps) {
  const part = rest.startsWith('/webhooks') ? PARTS[1] : rest.startsWith('/oauth-apps') ? PARTS[2] : PARTS[0];
  const webhookId = rest.startsWith('/webhooks/') ? decoded(rest.slice('/webhooks/'.length)) : null;
  const known = rest === '' || rest === '/webhooks' || rest === '/oauth-apps' || (webhookId !== null && webhookId !== '');
  return (
    <section aria-labelledby="developers-title">
      <h2 id="developers-title">{t(lang, 'developers')}</h2>
      <nav aria-label={w(lang, 'parts')} class="sections">
        {PARTS.map((p) => (
          <a key={p.path} href={p.path} aria-current={p === part ? 'page' : undefined} onClick={onLink(p.path)}>
            {w(lang, p.word)}
          </a>
        ))}
      </nav>
      {!known && <p role="alert">{t(lang, 'notFound')}</p>}
      {known && webhookId !== null && <WebhookPage key={webhookId} lang={lang} id={webhookId} />}
      {known && webhookId === null && part === PARTS[0] && <ApiKeys lang={lang} />}
      {known && webhookId === null && part === PARTS[1] && <Webhooks lang={lang} />}
      {known && part === PARTS[2] && <OAuthApps lang={lang} />}
    </section>
  );
}
