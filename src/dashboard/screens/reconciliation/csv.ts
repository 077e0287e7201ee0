/**
 * CSV files a merchant opens in Excel (or any spreadsheet), built in the browser. Pure: no DOM, tested in
 * test/unit/dashboard-reconciliation.test.ts.
 *
 * - UTF-8 with a byte-order mark: without it Excel reads a CSV in the system's legacy code page and Hangul turns to
 *   mojibake.
 * - RFC 4180: fields separated by commas, records by CRLF; a field holding a comma, a double quote, CR or LF is enclosed
 *   in double quotes, its quotes doubled.
 * - Formula injection (OWASP, "CSV Injection"): a text cell beginning with =, +, -, @, a tab or a carriage return would
 *   be run as a formula by a spreadsheet; it is prefixed with a single quote. Numbers are written as they are (an
 *   amount is a plain integer, never prefixed), so only text the merchant's buyers or banks typed is guarded.
 * - Times in KST (YYYY-MM-DD HH:MM:SS), the zone the dashboard shows and the API's date filters use.
 * - Phone and business registration numbers with their hyphens (010-1234-5678, 123-45-67890), as Koreans write them:
 *   the API's bare digits would be read as a number, and the leading 0 dropped. The hyphenated text is no number and no
 *   formula, so it stays as written. A bank account number, whose grouping varies by bank, is written ="0123..." (a
 *   formula of our own making around digits only, which the guard above would refuse in text from outside).
 */
import { kstWallClock } from '../../i18n.ts';

export const BOM = '\uFEFF';

/**
 * A cell: text (guarded and quoted as needed), a number (written as is), digits to keep as written (`{digits}`), or
 * nothing (an empty cell).
 */
export type Cell = string | number | { digits: string } | null | undefined;

/** The characters a spreadsheet reads as the start of a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One field as it appears in the file. */
export function csvField(cell: Cell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number') {
    // Amounts and counts are integers; anything else (NaN, Infinity) would be a bug upstream, written as nothing.
    return Number.isFinite(cell) ? String(cell) : '';
  }
  if (typeof cell === 'object') {
    // A bank account number: Excel would read its digits as a number, drop a leading 0 and show 12 digits or more as
    // 1.10123E+11. ="..." makes it text; only digits go in, so the formula can say nothing else. Else: as text.
    return /^\d{1,30}$/.test(cell.digits) ? `"=""${cell.digits}"""` : csvField(cell.digits);
  }
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, without its line break. */
export function csvRecord(cells: readonly Cell[]): string {
  return cells.map(csvField).join(',');
}

/** The whole file: BOM, the header record, the rows, each record ended by CRLF. */
export function csvDocument(headers: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return BOM + [headers, ...rows].map((r) => `${csvRecord(r)}\r\n`).join('');
}

/** An instant as KST wall time to the second, as a spreadsheet reads a date-time: 2026-11-26 15:04:05. Null: empty. */
export function kstDateTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  return kstWallClock(iso).slice(0, 19).replace('T', ' ');
}

/**
 * A Korean phone number's digits (the API stores 10-11, no hyphens) as written: 010-1234-5678, 011-123-4567,
 * 02-1234-5678, 031-123-4567, 1588-1234. Anything else is returned as it is.
 */
export function phoneText(digits: string | null | undefined): string | null {
  if (!digits) return null;
  if (!/^\d+$/.test(digits)) return digits;
  if (/^02\d{7,8}$/.test(digits)) return `02-${digits.slice(2, -4)}-${digits.slice(-4)}`;
  if (/^1\d{7}$/.test(digits)) return `${digits.slice(0, 4)}-${digits.slice(4)}`;
  if (/^0\d{9,10}$/.test(digits)) return `${digits.slice(0, 3)}-${digits.slice(3, -4)}-${digits.slice(-4)}`;
  return digits;
}

/** A business registration number's 10 digits as written: 123-45-67890. Anything else is returned as it is. */
export function businessNumberText(digits: string | null | undefined): string | null {
  if (!digits) return null;
  return /^\d{10}$/.test(digits) ? `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}` : digits;
}
