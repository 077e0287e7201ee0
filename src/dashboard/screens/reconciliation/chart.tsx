/**
 * The day chart: one stacked bar per Korean day, its deposits split into matched automatically, matched by hand and
 * unmatched (the three add up to the day's deposits), by count or by amount. Inline SVG drawn by Preact: colours and
 * sizes are SVG attributes, never style="" (the page's CSP, style-src 'self', forbids inline styles). A screen reader
 * reads the chart as one image with a summary (role="img", aria-label); the same figures are in the table below it,
 * and each bar segment has its figure as a tooltip (<title>).
 */
import { won, type Lang } from '../../i18n.ts';
import { axisStep, OUTCOMES, totalOf, type DayFigures, type Outcome } from './days.ts';
import { w } from './words.ts';

export type Measure = 'count' | 'amount';

/**
 * The segments' colours: each has a contrast of at least 4.5:1 against the white background (WCAG 1.4.11 asks 3:1 of
 * graphics), and a white gap separates neighbours, so no two colours have to be told apart by contrast alone; the
 * legend names them.
 */
const COLOURS: Record<Outcome, string> = { matchedAutomatically: '#0b5cad', matchedByHand: '#1a7f37', unmatched: '#bc4c00' };

const WIDTH = 900;
const HEIGHT = 300;
const PLOT = { left: 96, right: 12, top: 12, bottom: 40 };
const TICKS = 4;

/** A count in words: 3건 (ko) or 3 (en). */
export const countOf = (lang: Lang, n: number): string => (lang === 'ko' ? `${n}건` : String(n));

/** A figure as the axis and the tooltips show it. */
const figure = (lang: Lang, measure: Measure, n: number) => (measure === 'count' ? countOf(lang, n) : won(lang, n));

/** The chart's summary for a screen reader: the range, the totals, the busiest day. */
export function chartSummary(lang: Lang, days: readonly DayFigures[]): string {
  const total = totalOf(days);
  const range = `${days[0]?.date} ~ ${days[days.length - 1]?.date}`;
  const parts = OUTCOMES.map((o) => `${w(lang, o)} ${countOf(lang, total[o].count)} (${won(lang, total[o].amount)})`).join(', ');
  const busiest = days.reduce<DayFigures | null>((best, d) => (d.deposits.count > (best?.deposits.count ?? 0) ? d : best), null);
  return (
    `${w(lang, 'chartTitle')}, ${range}: ${w(lang, 'deposits')} ${countOf(lang, total.deposits.count)} (${won(lang, total.deposits.amount)}); ${parts}` +
    (busiest ? `; ${w(lang, 'busiest')} ${busiest.date} (${countOf(lang, busiest.deposits.count)})` : '')
  );
}

export function DayChart({ lang, days, measure }: { lang: Lang; days: readonly DayFigures[]; measure: Measure }) {
  const value = (t: { count: number; amount: number }) => (measure === 'count' ? t.count : t.amount);
  const step = axisStep(Math.max(0, ...days.map((d) => value(d.deposits))), TICKS);
  const top = step * TICKS;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = (WIDTH - PLOT.left - PLOT.right) / Math.max(1, days.length);
  const barWidth = slot * 0.7;
  const y = (v: number) => PLOT.top + plotHeight - (v / top) * plotHeight;
  return (
    <figure class="recon-figure">
      <svg class="recon-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={chartSummary(lang, days)}>
        {Array.from({ length: TICKS + 1 }, (_, i) => (
          <g key={i}>
            <line x1={PLOT.left} x2={WIDTH - PLOT.right} y1={y(i * step)} y2={y(i * step)} stroke={i === 0 ? '#57606a' : '#d0d7de'} stroke-width="1" />
            <text x={PLOT.left - 8} y={y(i * step) + 4} text-anchor="end" font-size="12" fill="#1b1f24">
              {figure(lang, measure, i * step)}
            </text>
          </g>
        ))}
        {days.map((d, i) => {
          const x = PLOT.left + i * slot + (slot - barWidth) / 2;
          let base = 0;
          return (
            <g key={d.date} data-day={d.date}>
              {/* The whole column: the day's figures as one tooltip, wherever the pointer is over the day. */}
              <rect x={PLOT.left + i * slot} y={PLOT.top} width={slot} height={plotHeight} fill="#ffffff" fill-opacity="0">
                <title>{`${d.date}: ${w(lang, 'deposits')} ${countOf(lang, d.deposits.count)} (${won(lang, d.deposits.amount)})`}</title>
              </rect>
              {OUTCOMES.map((o) => {
                const v = value(d[o]);
                if (v === 0) return null;
                const from = base;
                base += v;
                return (
                  <rect key={o} x={x} y={y(base)} width={barWidth} height={y(from) - y(base)} fill={COLOURS[o]} stroke="#ffffff" stroke-width="1">
                    <title>{`${d.date} · ${w(lang, o)}: ${countOf(lang, d[o].count)} (${won(lang, d[o].amount)})`}</title>
                  </rect>
                );
              })}
              {/* Every fifth day named under the axis, and today. */}
              {(i % 5 === 0 || i === days.length - 1) && (
                <text x={x + barWidth / 2} y={HEIGHT - PLOT.bottom + 18} text-anchor="middle" font-size="12" fill="#1b1f24">
                  {d.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <ul class="recon-legend">
          {OUTCOMES.map((o) => (
            <li key={o}>
              <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
                <rect width="14" height="14" fill={COLOURS[o]} />
              </svg>
              {w(lang, o)}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

/** The chart's figures as a table: the days with deposits, newest first, and their total. */
export function DayTable({ lang, days }: { lang: Lang; days: readonly DayFigures[] }) {
  const shown = days.filter((d) => d.deposits.count > 0).reverse();
  const total = totalOf(days);
  const cells = (f: Omit<DayFigures, 'date'>) =>
    (['deposits', ...OUTCOMES] as const).flatMap((k) => [
      <td key={`${k}-count`} class="num" data-figure={`${k}.count`}>
        {f[k].count}
      </td>,
      <td key={`${k}-amount`} class="num" data-figure={`${k}.amount`}>
        {won(lang, f[k].amount)}
      </td>,
    ]);
  return (
    <table class="recon-table">
      <caption>{w(lang, 'tableCaption')}</caption>
      <thead>
        <tr>
          <th scope="col" rowSpan={2}>
            {w(lang, 'day')}
          </th>
          {(['deposits', ...OUTCOMES] as const).map((k) => (
            <th key={k} scope="colgroup" colSpan={2}>
              {w(lang, k)}
            </th>
          ))}
        </tr>
        <tr>
          {(['deposits', ...OUTCOMES] as const).flatMap((k) => [
            <th key={`${k}-count`} scope="col" class="num">
              {w(lang, 'count')}
            </th>,
            <th key={`${k}-amount`} scope="col" class="num">
              {w(lang, 'amountOf')}
            </th>,
          ])}
        </tr>
      </thead>
      <tbody>
        {shown.map((d) => (
          <tr key={d.date} data-day={d.date}>
            <th scope="row">{d.date}</th>
            {cells(d)}
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr data-day="total">
          <th scope="row">{w(lang, 'total')}</th>
          {cells(total)}
        </tr>
      </tfoot>
    </table>
  );
}
