/**
 * Whether a deposit text is about the merchant's registered account (issue 19). Banks mask the account number in
 * their texts, each its own way: NH `352-****-4273-63` and KB push `582102-**-***852` keep every position; KB SMS
 * `942902**347` keeps the first and last digits around a shorter run of stars; Woori `*420576` and KakaoBank `(8205)`
 * show only the last digits.
 */

const FULL_WIDTH = /[\uFF01-\uFF5E]/g;
const SEPARATORS = /[\s\-\u2010-\u2015\u2212]/g;

/**
 * Whether the digits a masked account number shows agree with a registered account number: hyphens and spaces are
 * ignored, `*` is a hidden digit; a mask as long as the number compares position by position, a shorter one reads
 * each run of stars as one or more hidden digits, and `(8205)` compares the last digits. A mask that shows no digit,
 * or a number or mask with anything else in it, never agrees.
 */
export function accountMatchesMask(registeredNumber: string, masked: string): boolean {
  const number = fold(registeredNumber);
  let mask = fold(masked);
  if (!/^\d+$/.test(number)) return false;
  const suffix = /^\((\d+)\)$/.exec(mask);
  if (suffix) return suffix[1]!.length <= number.length && number.endsWith(suffix[1]!);
  if (!/^[\d*]+$/.test(mask) || !/\d/.test(mask)) return false;
  if (mask.length === number.length) return [...mask].every((c, k) => c === '*' || c === number[k]);
  if (mask.length > number.length || !mask.includes('*')) return false;
  mask = mask.replace(/\*+/g, '*');
  return new RegExp(`^${mask.replace(/\*/g, '\\d+')}$`).test(number);
}

function fold(s: string): string {
  return s.replace(FULL_WIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(SEPARATORS, '');
}
