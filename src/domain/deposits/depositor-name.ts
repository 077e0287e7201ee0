/**
 * Depositor names as they are compared (spec: "Depositor name must match the bank notification"): one normalisation
 * for invoice and deposit names before every comparison and length check; only compared, never shown.
 */

/** Opening and closing characters of the brackets whose contents BRACKET_REMOVAL drops. */
export const BRACKET_PAIRS = ['()', '[]', '{}', '<>', '〔〕', '〈〉', '《》', '「」', '『』', '【】', '〖〗', '〘〙', '〚〛', '｢｣'] as const;

// Not NFKC, which would rewrite what a name says (㈜ → (주), ① → 1): only its folding of full-width ASCII, where feeds
// differ. Case is folded for A-Z only, as SQL can mirror exactly (Latin names in Korean feeds are ASCII).
const FULL_WIDTH_ASCII = /[\uFF01-\uFF5E\u3000]/g;
const UPPER_ASCII = /[A-Z]+/g;

/**
 * The comparison form of a name: full-width ASCII folded (Ｊ → J, U+3000 → space), NFC (decomposed Hangul jamo
 * compose), A-Z lower-cased. Changing it needs a migration recomputing customerNameKey/Bare (nameKeySql, bareNameSql).
 */
export function normalizeName(name: string): string {
  return name
    .replace(FULL_WIDTH_ASCII, (c) => (c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0)))
    .normalize('NFC')
    .replace(UPPER_ASCII, (s) => s.toLowerCase())
    .normalize('NFC');
}

/**
 * Characters a name cannot show (control, format, default-ignorable: Hangul fillers, variation selectors), which make
 * a name compare different from the one it looks like: invoice names refuse them, deposit names drop them.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** INVISIBLE but for the whitespace controls (tab, line feed, ...): in a deposit name those stay whitespace. */
const INVISIBLE_IN_DEPOSIT = /(?![\t\n\v\f\r])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Whether an invoice's customer name has only characters a deposit can carry and a reader can see: none of INVISIBLE
 * and no combining mark at its start (U+0301 alone shows as nothing).
 */
export function isAcceptableInvoiceName(name: string): boolean {
  return !INVISIBLE.test(name) && !/^\p{M}/u.test(name);
}

/**
 * The comparison form of a deposit's name: invisible characters (but whitespace) removed, then normalizeName(), so a
 * feed's stray zero-width space (`홍길동\u200b`) still pays `홍길동`. Invoice names hold none, so theirs is unchanged.
 */
export function depositNameKey(name: string): string {
  return normalizeName(withoutInvisible(name));
}

/** A deposit name with its invisible characters removed (see depositNameKey). */
export function withoutInvisible(name: string): string {
  return name.replace(INVISIBLE_IN_DEPOSIT, '');
}

/** A name's length in characters as the limits count it: code points of its comparison form (NFD 홍길동 is 3). */
export function nameLength(name: string): number {
  return [...normalizeName(name)].length;
}

const escapeJs = (c: string) => c.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&');
const BRACKETED = new RegExp(BRACKET_PAIRS.map(([o, c]) => `${escapeJs(o!)}[^${escapeJs(o!)}${escapeJs(c!)}]*${escapeJs(c!)}`).join('|'), 'g');

/**
 * Splits a name in comparison form into its bare part (bracketed parts removed, innermost first until none is left,
 * then whitespace) and its bracket text (what the brackets held, whitespace removed, sorted: '홍길동(101호)' →
 * bare '홍길동', text ['101호']). An unclosed bracket stays in the bare part.
 */
export function splitBrackets(normalized: string): { bare: string; text: string[] } {
  const text: string[] = [];
  let s = normalized;
  for (;;) {
    const next = s.replace(BRACKETED, (group) => {
      const inside = group.slice(1, -1).replace(/\s+/g, '');
      if (inside) text.push(inside);
      return '';
    });
    if (next === s) break;
    s = next;
  }
  return { bare: s.replace(/\s+/g, ''), text: text.sort() };
}

/** The bare comparison form of a name (normalised, bracketed parts and whitespace removed): BRACKET_REMOVAL compares these. */
export function bareName(name: string): string {
  return splitBrackets(normalizeName(name)).bare;
}

/** The stored comparison columns of an invoice's customer name (looked up by index in matching and the conflict check). */
export function invoiceNameColumns(customerName: string): { customerNameKey: string; customerNameBare: string } {
  const key = normalizeName(customerName);
  return { customerNameKey: key, customerNameBare: splitBrackets(key).bare };
}

// ── The same rule in SQL, for backfilling stored rows (migrations, bench seeds). Exact for invoice names (at most 16
// characters, so at most 8 levels of nested brackets); the JavaScript above is what new rows are written with.

const FULL_WIDTH_FROM = Array.from({ length: 0x5e }, (_, i) => String.fromCharCode(0xff01 + i)).join('') + '\u3000';
const FULL_WIDTH_TO = Array.from({ length: 0x5e }, (_, i) => String.fromCharCode(0x21 + i)).join('') + ' ';
const sqlText = (s: string) => `'${s.replace(/'/g, "''")}'`;
const escapeRe = (c: string) => (/[()[\]{}\\.*+?^$|]/.test(c) ? '\\' + c : c);
const escapeInClass = (c: string) => (c === ']' || c === '[' || c === '\\' || c === '^' ? '\\' + c : c);
const SQL_BRACKETED = BRACKET_PAIRS.map(([o, c]) => `${escapeRe(o!)}[^${escapeInClass(o!)}${escapeInClass(c!)}]*${escapeRe(c!)}`).join('|');

/** normalizeName() as a PostgreSQL expression over `expr` (deterministic: no locale-dependent lower()). */
export function nameKeySql(expr: string): string {
  const folded = `normalize(translate(${expr}, ${sqlText(FULL_WIDTH_FROM)}, ${sqlText(FULL_WIDTH_TO)}), NFC)`;
  return `normalize(translate(${folded}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), NFC)`;
}

/** splitBrackets(key).bare as a PostgreSQL expression over `keyExpr` (a name in comparison form, ≤ 16 characters). */
export function bareNameSql(keyExpr: string): string {
  let s = keyExpr;
  for (let i = 0; i < 8; i++) s = `regexp_replace(${s}, ${sqlText(SQL_BRACKETED)}, '', 'g')`;
  return `regexp_replace(${s}, '[[:space:]]', '', 'g')`;
}
