/**
 * The one form every bank-text parser reads (issue 19: deposit texts as forwarded from a merchant's phone). Forwarders
 * and LMS gateways change the layout but not the words: \r\n or U+2028 for line breaks, runs of spaces, full-width
 * digits, NFD Hangul, zero-width characters, `[Web발신]` markers. The canonical text undoes all of that, and each of its
 * characters remembers where it came from, so a depositor name is handed back as the bank wrote it (full-width letters,
 * its own inner spacing) while the parsers only ever see ' ' and '\n'.
 */

/** A text in canonical form, with the way back to its source. */
export interface CanonicalText {
  /** NFC, full-width ASCII folded, dashes folded to '-', whitespace only ' ' and '\n', single spaces, no space beside a
   * line break, no empty line, no invisible character, no `[Web발신]` marker. */
  text: string;
  /** For each UTF-16 unit of `text`, the index of the UTF-16 unit of `source` it stands for. */
  origin: number[];
  /** The NFC text the origins point into. */
  source: string;
}

const LINE_BREAKS = new Set(['\n', '\r', '\u000b', '\u000c', '\u0085', '\u2028', '\u2029']);
const SPACE_LIKE = /^[\p{Zs}\p{Cc}]$/u; // U+3000 and NBSP included; controls other than line breaks read as a space
const INVISIBLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u; // zero-width, BOM, soft hyphen, Hangul fillers
const DASHES = /^[\u2010-\u2015\u2212\uFE58\uFE63]$/u; // hyphen, en/em dash, minus sign: accounts and balances use '-'
/** The sender markers SMS gateways put in front of a bank's text: `[Web발신]`, `[국외발신]`, `[국제발신]`. */
const SENDER_MARKER = /\[ ?(?:web|웹|국외|국제) ?발신 ?\]/giu;

/** The canonical form of a text (which is NFC-normalised first). */
export function canonicalize(text: string): CanonicalText {
  const source = text.normalize('NFC');
  const units: string[] = [];
  const origin: number[] = [];
  for (let i = 0; i < source.length; ) {
    const ch = String.fromCodePoint(source.codePointAt(i)!);
    const cp = ch.codePointAt(0)!;
    if (ch === '\r' && source[i + 1] === '\n') {
      units.push('\n');
      origin.push(i);
      i += 2;
      continue;
    }
    if (LINE_BREAKS.has(ch)) {
      units.push('\n');
      origin.push(i);
    } else if (cp >= 0xff01 && cp <= 0xff5e) {
      units.push(String.fromCharCode(cp - 0xfee0));
      origin.push(i);
    } else if (SPACE_LIKE.test(ch)) {
      units.push(' ');
      origin.push(i);
    } else if (DASHES.test(ch)) {
      units.push('-');
      origin.push(i);
    } else if (!INVISIBLE.test(ch)) {
      for (let k = 0; k < ch.length; k++) {
        units.push(ch[k]!);
        origin.push(i + k);
      }
    }
    i += ch.length;
  }
  const folded = tidy(units, origin, source);
  const unmarked = dropMatches(folded, SENDER_MARKER);
  return tidy(unmarked.text.split(''), unmarked.origin, source);
}

/** The canonical text without the UTF-16 range [start, end), tidied again. */
export function dropRange(c: CanonicalText, start: number, end: number): CanonicalText {
  const units = c.text.split('');
  return tidy([...units.slice(0, start), ...units.slice(end)], [...c.origin.slice(0, start), ...c.origin.slice(end)], c.source);
}

/**
 * The source text behind the canonical range [start, end), without the spaces at its ends: what the bank wrote there,
 * full-width characters, inner spacing and invisible characters included.
 */
export function sourceSlice(c: CanonicalText, start: number, end: number): string {
  while (start < end && (c.text[start] === ' ' || c.text[start] === '\n')) start++;
  while (end > start && (c.text[end - 1] === ' ' || c.text[end - 1] === '\n')) end--;
  if (start >= end) return '';
  return c.source.slice(c.origin[start], c.origin[end - 1]! + 1);
}

/** The text without every match of a global regex (untidied: the caller tidies). */
function dropMatches(c: CanonicalText, re: RegExp): CanonicalText {
  const keep: boolean[] = new Array(c.text.length).fill(true);
  for (const m of c.text.matchAll(re)) for (let k = m.index; k < m.index + m[0].length; k++) keep[k] = false;
  // split('') cuts UTF-16 units, as `origin` counts them
  return { text: c.text.split('').filter((_, k) => keep[k]).join(''), origin: c.origin.filter((_, k) => keep[k]), source: c.source };
}

/** Single spaces, no space beside a line break, no empty line, nothing at either end. */
function tidy(units: string[], origin: number[], source: string): CanonicalText {
  const out: string[] = [];
  const from: number[] = [];
  for (let k = 0; k < units.length; k++) {
    const u = units[k]!;
    const last = out[out.length - 1];
    if (u === ' ') {
      if (last === undefined || last === ' ' || last === '\n') continue;
    } else if (u === '\n') {
      while (out[out.length - 1] === ' ') {
        out.pop();
        from.pop();
      }
      if (out.length === 0 || out[out.length - 1] === '\n') continue;
    }
    out.push(u);
    from.push(origin[k]!);
  }
  while (out.length > 0 && (out[out.length - 1] === ' ' || out[out.length - 1] === '\n')) {
    out.pop();
    from.pop();
  }
  return { text: out.join(''), origin: from, source };
}
