/**
 * The CSV export form: a range of Korean days and a list (invoices, deposits, cash receipts), read page by page with a
 * progress bar (a big export takes up to 200 requests) and offered as a download: a Blob behind an <a download> (a
 * download, not a fetch, so the CSP's connect-src has no say).
 */
import { useClient } from '@urql/preact';
import type { Client, CombinedError } from '@urql/core';
import { useRef, useState } from 'preact/hooks';
import type { Lang } from '../../i18n.ts';
import { ErrorNote, refusalOf, type Refusal } from '../../ui.tsx';
import { addDays, kstDay } from './days.ts';
import {
  DEPOSIT_COLUMNS,
  DepositsPage,
  EXPORT_PAGE,
  exportCsv,
  INVOICE_COLUMNS,
  InvoicesPage,
  rangeProblem,
  readAllPages,
  RECEIPT_COLUMNS,
  ReceiptsPage,
  type Column,
  type ListPage,
  type ReadAll,
} from './exports.ts';
import { w } from './words.ts';

type Kind = 'invoices' | 'deposits' | 'receipts';

/** Told the rows read so far after each page. */
type Progress = (read: number, total: number) => void;

/** A refusal of the API, carried out of a page read to the form. */
class ApiRefusal extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
  }
}

/** Read without urql's cache: an export reads what is there now. */
const NOW = { requestPolicy: 'network-only' } as const;

/** A page the API answered, or its refusal thrown. */
function pageOf<T>(result: { error?: CombinedError | undefined; data?: unknown }, value: T | undefined): T {
  const refusal = refusalOf(result);
  if (refusal) throw new ApiRefusal(refusal);
  if (!value) throw new ApiRefusal({ code: 'NO_DATA', message: 'The API answered without the list.' });
  return value;
}

/** Every row of one list, as a file; or why there is none. */
async function listFile<T extends { id: string }>(lang: Lang, readPage: (offset: number) => Promise<ListPage<T>>, columns: readonly Column<T>[], progress: Progress, stopped: () => boolean): Promise<{ csv: string; rows: number } | Exclude<ReadAll<T>, { ok: true }>> {
  const r = await readAllPages(readPage, progress, stopped);
  return r.ok ? { csv: exportCsv(lang, columns, r.rows), rows: r.rows.length } : r;
}

/** The file of one list for the range of days. */
function buildFile(client: Client, lang: Lang, kind: Kind, from: string, to: string, progress: Progress, stopped: () => boolean) {
  const vars = (offset: number) => ({ offset, limit: EXPORT_PAGE, filter: { dateAfter: from, dateBefore: to } });
  switch (kind) {
    case 'invoices':
      return listFile(lang, (o) => client.query(InvoicesPage, vars(o), NOW).toPromise().then((r) => pageOf(r, r.data?.invoicePage)), INVOICE_COLUMNS, progress, stopped);
    case 'deposits':
      return listFile(lang, (o) => client.query(DepositsPage, vars(o), NOW).toPromise().then((r) => pageOf(r, r.data?.transactionPage)), DEPOSIT_COLUMNS, progress, stopped);
    case 'receipts':
      return listFile(lang, (o) => client.query(ReceiptsPage, vars(o), NOW).toPromise().then((r) => pageOf(r, r.data?.cashReceiptPage)), RECEIPT_COLUMNS, progress, stopped);
  }
}

/** Offers `text` as a file download. */
function download(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // Released once the browser surely has the file: some browsers cancel a download whose URL is revoked at once.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function ExportForm({ lang }: { lang: Lang }) {
  const client = useClient();
  const today = kstDay(new Date());
  const [kind, setKind] = useState<Kind>('invoices');
  const [from, setFrom] = useState(addDays(today, -29));
  const [to, setTo] = useState(today);
  const [progress, setProgress] = useState<{ read: number; total: number } | null>(null);
  const [problem, setProblem] = useState<Refusal | string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const stop = useRef(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem(null);
    setDone(null);
    const wrong = rangeProblem(from, to);
    if (wrong) return setProblem(w(lang, wrong));
    stop.current = false;
    setProgress({ read: 0, total: 0 });
    try {
      const r = await buildFile(client, lang, kind, from, to, (read, total) => setProgress({ read, total }), () => stop.current);
      if ('csv' in r) {
        const filename = `${kind}_${from}_${to}.csv`;
        download(r.csv, filename);
        setDone(`${w(lang, 'exported')}: ${filename} (${r.rows} ${w(lang, 'rows')})`);
      } else if (r.reason === 'tooMany') setProblem(`${w(lang, 'tooMany')} (${r.total} ${w(lang, 'rows')}).`);
      else setDone(w(lang, 'stopped'));
    } catch (err) {
      setProblem(err instanceof ApiRefusal ? err.refusal : String(err));
    } finally {
      setProgress(null);
    }
  };

  return (
    <section aria-labelledby="recon-export-title">
      <h3 id="recon-export-title">{w(lang, 'exportTitle')}</h3>
      <p class="hint">{w(lang, 'exportHint')}</p>
      <form class="inline" onSubmit={submit}>
        <label>
          {w(lang, 'exportWhat')}
          <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value as Kind)}>
            <option value="invoices">{w(lang, 'exportInvoices')}</option>
            <option value="deposits">{w(lang, 'exportDeposits')}</option>
            <option value="receipts">{w(lang, 'exportReceipts')}</option>
          </select>
        </label>
        <label>
          {w(lang, 'from')}
          <input type="date" value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          {w(lang, 'to')}
          <input type="date" value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={progress !== null}>
          {w(lang, 'exportButton')}
        </button>
        {progress && (
          <button type="button" onClick={() => (stop.current = true)}>
            {w(lang, 'stop')}
          </button>
        )}
      </form>
      {progress && (
        <p role="status" class="recon-progress">
          <progress max={Math.max(1, progress.total)} value={progress.read} aria-label={w(lang, 'exporting')} /> {w(lang, 'exporting')}: {progress.read} /{' '}
          {progress.total} {w(lang, 'rows')}
        </p>
      )}
      {done && <p role="status">{done}</p>}
      <ErrorNote lang={lang} refusal={problem} prefix={w(lang, 'exportFailed')} />
    </section>
  );
}
