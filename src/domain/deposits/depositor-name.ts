/**
 * Depositor names as they are compared (spec: "Depositor name must match the bank notification"): the one
 * normalisation rule, applied alike to invoice customer names and deposit names before every comparison (matching,
 * the conflict check, the 1-won verification code) and every length check (16 characters, the bank's truncation
 * length). What the merchant or the bank sent is what is stored and shown; this form is only compared (and stored
 * beside the invoice's name as `customerNameKey` / `customerNameBare`, so lookups by index compare the same thing).
 *
 *  1. width: full-width ASCII forms (U+FF01-FF5E: ＪＯＨＮ, １２３, （）［］｛｝＜＞) become ASCII, U+3000 a space;
 *  2. NFC: canonical composition (Hangul sent as decomposed jamo, NFD, becomes its syllables; so does é);
 *  3. case: Latin A-Z become a-z (a bank that upper-cases JohnKim sends JOHNKIM); then NFC again.
 *
 * Not NFKC: it would also rewrite what a name says (㈜ becomes (주), which bracket removal then drops; ① becomes 1;
 * compatibility jamo ㄱㅏ compose into 가; ligatures, superscripts). Of NFKC only the width folding of ASCII is taken:
 * that is what feeds differ in. Case is folded for A-Z only: Latin names in Korean bank feeds are ASCII letters (or
 * their full-width forms), and a fold that PostgreSQL's lower() would do by locale could not be mirrored exactly in SQL.
 *
 * Brackets: every pair of BRACKET_PAIRS, after the width folding (so （）［］｛｝＜＞ are their ASCII pairs).
 *
 * Invisible characters (INVISIBLE below: control, format, Hangul fillers, variation selectors) are not part of this
 * rule: invoice names may not hold them (isAcceptableInvoiceName), and a deposit name has them removed before this
 * rule is applied to it (depositNameKey), so the stored comparison columns of invoices do not change.
 *
 * Changing this rule needs a migration that recomputes "Invoice"."customerNameKey" and "customerNameBare" for existing
 * rows (as prisma/migrations/20261125160000_depositor_name_normalization does, with nameKeySql/bareNameSql).
 */

/** Opening and closing characters of the brackets whose contents BRACKET_REMOVAL drops. */
export const BRACKET_PAIRS = ['()', '[]', '{}', '<>', '〔〕', '〈〉', '《》', '「」', '『』', '【】', '〖〗', '〘〙', '〚〛', '｢｣'] as const;

const FULL_WIDTH_ASCII = /[\uFF01-\uFF5E\u3000]/g;
const UPPER_ASCII = /[A-Z]+/g;

/** The comparison form of a depositor name: full-width ASCII folded, NFC, Latin A-Z lower-cased. */
export function normalizeName(name: string): string {
  return name
    .replace(FULL_WIDTH_ASCII, (c) => (c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0)))
    .normalize('NFC')
    .replace(UPPER_ASCII, (s) => s.toLowerCase())
    .normalize('NFC');
}

/**
 * Characters a name cannot show: control (Cc), format (Cf: zero-width space and joiners, soft hyphen, bidi marks,
 * BOM) and the other default-ignorable code points (Hangul fillers U+115F, U+1160, U+3164, U+FFA0; variation
 * selectors; the combining grapheme joiner). A bank feed cannot carry them in a name that pays, and a name holding
 * them looks like one without them while comparing different: invoice names are refused with any of them
 * (isAcceptableInvoiceName); deposit names have them removed before comparison (depositNameKey).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
/** INVISIBLE but for the whitespace controls (tab, line feed, ...): in a deposit name those stay whitespace. */
const INVISIBLE_IN_DEPOSIT = /(?![\t\n\v\f\r])[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Whether a customer name of an invoice is made of characters a deposit can carry and a reader can see: none of
 * INVISIBLE and no combining mark at its start (it has nothing to combine with: U+0301 alone shows as nothing or as
 * a dotted circle).
 */
export function isAcceptableInvoiceName(name: string): boolean {
  return !INVISIBLE.test(name) && !/^\p{M}/u.test(name);
}

/**
 * The comparison form of a deposit's depositor name: its invisible characters (INVISIBLE, but whitespace) removed,
 * then normalizeName(). Invoice names cannot hold them, so for them the removal changes nothing (their stored
 * comparison columns stay normalizeName's); a feed that leaves a zero-width space or a bidi mark in a name
 * (`홍길동\u200b`) still pays `홍길동`.
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
