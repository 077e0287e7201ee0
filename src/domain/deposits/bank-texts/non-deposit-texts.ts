/**
 * The texts a forwarder sends that no deposit layout reads (issue 19), sorted by their words: the ones that surely are
 * no deposit are answered NOT_A_DEPOSIT (the forwarder stops retrying); anything that says 입금 and yet no layout reads
 * stays UNRECOGNIZED, so it is stored for the merchant rather than dropped. Reads the canonical text (canonical-text.ts).
 */

/** What a text is when it is surely no deposit. */
export type NotADepositWhat = 'WITHDRAWAL' | 'BALANCE' | 'ADVERTISEMENT' | 'OTHER';

/**
 * Advertisements: Korean law (정보통신망법 §50) makes an advertising text start with `(광고)`; only its first line is
 * looked at, since a depositor picks the name a deposit text shows and could call himself `(광고)`.
 */
export function isAdvertisement(text: string): boolean {
  return /^[(\[] ?광고 ?[)\]]/u.test(text);
}

/** What a text no layout reads surely is, with the reason; null when it may be a deposit (or is nothing we know). */
export function classifyNonDeposit(text: string): { what: NotADepositWhat; reason: string } | null {
  if (text.includes('입금')) return null;
  if (/인증 ?번호|인증 ?코드|OTP|보안 ?카드|비밀 ?번호/iu.test(text)) return { what: 'OTHER', reason: 'a security-code text' };
  const card = (/승인/u.test(text) && /일시불|할부|누적|카드|체크/u.test(text)) || (/카드/u.test(text) && /결제|승인|취소|사용/u.test(text));
  if (card) return { what: 'OTHER', reason: 'a card-payment text' };
  if (/(?<!입)출금 ?-?[0-9]|[0-9] ?원? ?(?<!입)출금/u.test(text)) return { what: 'WITHDRAWAL', reason: 'a withdrawal (출금) text' };
  if (/(?:잔액|잔고)[^\n]*[0-9]/u.test(text) && !/이체|송금|취소|승인/u.test(text)) return { what: 'BALANCE', reason: 'a balance notice' };
  return null;
}
