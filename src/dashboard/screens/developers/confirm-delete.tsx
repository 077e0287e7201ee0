/**
 * A delete button that asks first: a click shows the confirmation in place (focus moves to it, Cancel or Escape takes
 * it back), so a key or a webhook is never deleted by one stray click.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { t, type Lang } from '../../i18n.ts';
import { w } from './words.ts';

export function ConfirmDelete({ lang, what, onConfirm }: { lang: Lang; what: string; onConfirm: () => void | Promise<void> }) {
  const [asking, setAsking] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" aria-label={`${w(lang, 'deleteIt')}: ${what}`} onClick={() => setAsking(true)}>
        {w(lang, 'deleteIt')}
      </button>
    );
  }
  return (
    <span role="group" aria-label={`${w(lang, 'deleteIt')}: ${what}`} class="candidates" onKeyDown={(e) => e.key === 'Escape' && setAsking(false)}>
      <span>{w(lang, 'deleteQuestion')}</span>
      <button
        type="button"
        ref={confirmRef}
        class="dev-danger"
        aria-label={`${w(lang, 'confirmDelete')}: ${what}`}
        onClick={async () => {
          await onConfirm();
          setAsking(false);
        }}
      >
        {w(lang, 'confirmDelete')}
      </button>
      <button type="button" class="link" onClick={() => setAsking(false)}>
        {t(lang, 'cancel')}
      </button>
    </span>
  );
}
