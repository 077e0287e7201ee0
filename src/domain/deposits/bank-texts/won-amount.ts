/**
 * Won amounts as bank texts print them (issue 19): `10,000`, `10000`, with or without `원` (the parsers take the `원`
 * off). Thousands separators, when present, must group by three; there are no decimals in won.
 */
import { MAX_WON } from '../../validation.ts';

const GROUPED = /^[1-9]\d{0,2}(?:,\d{3})+$/;
const PLAIN = /^[1-9]\d*$/;

/** A deposit amount: whole won from 1 to MAX_WON, or why the token is not one. */
export function parseDepositAmount(token: string): { ok: true; amount: number } | { ok: false; reason: string } {
  if (token === '0' || /^0[\d,]*$/.test(token)) return { ok: false, reason: `amount ${token} is not 1..${MAX_WON} won` };
  if (!GROUPED.test(token) && !PLAIN.test(token)) return { ok: false, reason: `amount ${JSON.stringify(token)} is not whole won` };
  const digits = token.replace(/,/g, '');
  const amount = digits.length > String(MAX_WON).length ? Infinity : Number(digits);
  if (amount > MAX_WON) return { ok: false, reason: `amount ${token} is not 1..${MAX_WON} won` };
  return { ok: true, amount };
}

/** A balance after the transaction: whole won, negative on an overdraft account (Hana prints `잔액-55,279,562원`); null when malformed. */
export function parseBalance(token: string): number | null {
  const negative = token.startsWith('-');
  const body = negative ? token.slice(1) : token;
  if (body !== '0' && !GROUPED.test(body) && !PLAIN.test(body)) return null;
  const value = Number(body.replace(/,/g, ''));
  if (!Number.isSafeInteger(value)) return null;
  return negative ? -value : value;
}
