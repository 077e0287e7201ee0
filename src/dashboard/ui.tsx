/**
 * Pieces every screen uses: the pager of a server-side list, an error in words, a secret shown once with its copy
 * button. Each has an accessible name (axe-core checks every page).
 */
import type { CombinedError } from '@urql/core';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { t, type Lang } from './i18n.ts';

export const PAGE_SIZE = 20;

/** A list's paging: how many in all, the previous and the next page (`size` each, read by the server). */
export function Pager({ lang, label, offset, total, onOffset, size = PAGE_SIZE }: { lang: Lang; label: string; offset: number; total: number; onOffset: (offset: number) => void; size?: number }) {
  return (
    <nav aria-label={label} class="pager">
      <span>
        {t(lang, 'total')} {total}
      </span>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - size))}>
        {t(lang, 'previous')}
      </button>
      <button type="button" disabled={offset + size >= total} onClick={() => onOffset(offset + size)}>
        {t(lang, 'next')}
      </button>
    </nav>
  );
}

/** A refusal as the API gave it: a GraphQL error (extensions.code) or a mutation's DomainError result ({code, message}). */
export interface Refusal {
  code: string;
  message: string;
}

/**
 * The refusal in a mutation's outcome, or null when it succeeded. `result` is what urql returned: its `error` (GraphQL
 * errors, the network), and its data, whose field may be a DomainError (`__typename: 'DomainError'`).
 */
export function refusalOf(result: { error?: CombinedError | undefined; data?: unknown }, field?: string): Refusal | null {
  if (result.error) {
    const g = result.error.graphQLErrors[0];
    if (g) return { code: String(g.extensions?.code ?? 'ERROR'), message: g.message };
    return { code: 'NETWORK', message: result.error.message };
  }
  if (field) {
    const value = (result.data as Record<string, unknown> | null | undefined)?.[field] as { __typename?: string; code?: string; message?: string } | undefined;
    if (value?.__typename === 'DomainError') return { code: value.code ?? 'ERROR', message: value.message ?? '' };
  }
  return null;
}

/** An error shown to the merchant (role=alert: a screen reader reads it at once). Nothing when there is none. */
export function ErrorNote({ lang, refusal, prefix }: { lang: Lang; refusal: Refusal | string | null; prefix?: string }) {
  if (!refusal) return null;
  const text = typeof refusal === 'string' ? refusal : `${refusal.message} (${refusal.code})`;
  return (
    <p role="alert" class="error">
      {prefix ?? t(lang, 'failed')}: {text}
    </p>
  );
}

/** A secret the API shows once (an API key, a webhook's signing secret, a notification token): with a copy button. */
export function SecretOnce({ lang, label, secret, children }: { lang: Lang; label: string; secret: string; children?: ComponentChildren }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // No clipboard (an insecure origin, a refusal): the secret stays selectable.
      setCopied(false);
    }
  };
  return (
    <div class="secret" role="group" aria-label={label}>
      <p class="secret-label">{label}</p>
      <code data-secret>{secret}</code>
      {/* The name starts with the text shown (Copy, then Copied): axe's label-content-name-mismatch. */}
      <button type="button" onClick={copy} aria-label={`${t(lang, copied ? 'copied' : 'copy')}: ${label}`}>
        {copied ? t(lang, 'copied') : t(lang, 'copy')}
      </button>
      <p class="hint">{t(lang, 'shownOnce')}</p>
      {children}
    </div>
  );
}
