/** Small shared validators for dashboard inputs (spec limits live next to the resource they govern). */
import { normalizeName } from './deposits/depositor-name.ts';
import { DomainError, type ErrorCode } from './errors.ts';

/** A simple e-mail shape check: one @, a dot in the domain, no spaces. */
export const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Largest amount in won a column holds (PostgreSQL integer). */
export const MAX_WON = 2_147_483_647;

/** Throws VALIDATION_FAILED (or `code`) naming the field unless `ok`. */
export function check(ok: boolean, field: string[], message: string, code: ErrorCode = 'VALIDATION_FAILED'): void {
  if (!ok) throw new DomainError(code, { message, path: field });
}

/** A JSON object: a plain object or a null-prototype one (GraphQL builds input objects from literals that way). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * The form list searches compare, of stored text and search terms alike: the depositor-name normalisation (full-width
 * ASCII folded, NFC, so a name a feed sent in NFD is found by the same name typed in NFC), hyphens removed, lower-cased.
 */
export function searchNormalize(s: string): string {
  return normalizeName(s).replace(/-/g, '').toLowerCase();
}

/** Digits only after removing hyphens and spaces; null when anything else remains. */
export function digitsOnly(s: string): string | null {
  const d = s.replace(/[-\s]/g, '');
  return /^\d+$/.test(d) ? d : null;
}

/** Characters the service drops from outside text: control (NUL among them) and format characters, lone surrogates. */
const DROPPED_CHARS = /[\p{Cc}\p{Cf}\p{Cs}]/gu;

/**
 * Outside text (a shop's order, an aggregator's history row) as stored: the dropped characters removed, trimmed, at most
 * `max` characters (code points); '' for what is not a string.
 */
export function storableText(v: unknown, max: number): string {
  if (typeof v !== 'string') return '';
  return [...v.replace(DROPPED_CHARS, '').trim()].slice(0, max).join('');
}
