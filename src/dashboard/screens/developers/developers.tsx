/** developers: being built (issue 20). */
import { t } from '../../i18n.ts';
import type { ScreenProps } from '../../screens.ts';

export default function Screen({ lang }: ScreenProps) {
  return (
    <section aria-labelledby="screen-title">
      <h2 id="screen-title">{t(lang, 'developers')}</h2>
    </section>
  );
}
