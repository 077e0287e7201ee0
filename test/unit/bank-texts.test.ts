/**
 * Bank deposit texts (issue 19, src/domain/deposits/bank-texts/): the real samples each layout was built from, written
 * out here from their sources (names, accounts and amounts are placeholders), read into the whole expected result; the
 * ways forwarders and LMS gateways reshape a text; the year of a text without one; the amounts and dates refused; the
 * texts that are surely no deposit; and the masked-account rule. The generated corpus per layout and the properties are
 * in bank-texts.property.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { accountMatchesMask } from '../../src/domain/deposits/bank-texts/account-mask.ts';
import { MAX_BANK_TEXT_BYTES, parseBankText, type BankTextParse } from '../../src/domain/deposits/bank-texts/parse-bank-text.ts';

/** A KST wall-clock time as an instant. */
const kst = (s: string) => new Date(`${s}+09:00`);
const parse = (text: string, receivedAt: string, sender: string | null = null, channel: 'SMS' | 'PUSH' = 'SMS') =>
  parseBankText({ text, receivedAt: kst(receivedAt), channel, sender });
const deposit = (d: Omit<Extract<BankTextParse, { kind: 'DEPOSIT' }>, 'kind'>): BankTextParse => ({ kind: 'DEPOSIT', ...d });
const unrecognized = (reason: string): BankTextParse => ({ kind: 'UNRECOGNIZED', reason });

describe('the real samples, one layout each (sources in bank-text-formats.ts)', () => {
  const cases: [string, string, string, string | null, BankTextParse][] = [
    [
      'NH SMS (issue 19)',
      '농협 입금10,000원\n07/04 15:18 352-****-4273-63 홍길동 잔액3,710,000원',
      '2026-07-04T15:18:09',
      null,
      deposit({ provider: 'NH_NONGHYUP', amount: 10_000, depositorName: '홍길동', occurredAt: kst('2026-07-04T15:18:00'), account: { masked: '352-****-4273-63' }, balanceAfter: 3_710_000, format: 'NH_NONGHYUP_SMS' }),
    ],
    [
      'NH SMS without a balance, sender line and [Web발신] (rohn0619/depo2, kiko9987/itglobal)',
      '보낸사람 : 15882100()\n[Web발신]\n농협 입금3,825,000원\n08/11 14:48 352-****-1682-33 장동선',
      '2026-08-11T14:49:00',
      null,
      deposit({ provider: 'NH_NONGHYUP', amount: 3_825_000, depositorName: '장동선', occurredAt: kst('2026-08-11T14:48:00'), account: { masked: '352-****-1682-33' }, balanceAfter: null, format: 'NH_NONGHYUP_SMS' }),
    ],
    [
      'NH SMS, a name cut inside a bracket (rohn0619/depo2)',
      '[Web발신]\n농협 입금1,000,000원\n07/09 14:24 352-****-7417-43 088-조휘서( 잔액1,961,657원\n<아미>',
      '2026-07-09T14:24:30',
      null,
      deposit({ provider: 'NH_NONGHYUP', amount: 1_000_000, depositorName: '088-조휘서(', occurredAt: kst('2026-07-09T14:24:00'), account: { masked: '352-****-7417-43' }, balanceAfter: 1_961_657, format: 'NH_NONGHYUP_SMS' }),
    ],
    [
      'Shinhan SMS, no 원 (issue 19)',
      '[Web발신]\n신한07/04 15:28\n110-496-922482\n입금 100,000\n잔액 870,045\n 홍길동',
      '2026-07-04T15:28:40',
      null,
      deposit({ provider: 'SHINHAN', amount: 100_000, depositorName: '홍길동', occurredAt: kst('2026-07-04T15:28:00'), account: { masked: '110-496-922482' }, balanceAfter: 870_045, format: 'SHINHAN_SMS' }),
    ],
    [
      'Shinhan SMS without a balance, the name cut at seven characters inside a bracket',
      '[Web발신]\n신한10/03 19:26\n110-***-123456\n입금     250,000\n홍길동(테스트상',
      '2026-10-03T19:27:00',
      null,
      deposit({ provider: 'SHINHAN', amount: 250_000, depositorName: '홍길동(테스트상', occurredAt: kst('2026-10-03T19:26:00'), account: { masked: '110-***-123456' }, balanceAfter: null, format: 'SHINHAN_SMS' }),
    ],
    [
      'KB SMS (issue 19)',
      '[KB]07/04 15:24\n942902**347\n홍길동\n입금\n600,000\n잔액1,320,000',
      '2026-07-04T15:24:02',
      null,
      deposit({ provider: 'KB_KOOKMIN', amount: 600_000, depositorName: '홍길동', occurredAt: kst('2026-07-04T15:24:00'), account: { masked: '942902**347' }, balanceAfter: 1_320_000, format: 'KB_KOOKMIN_SMS' }),
    ],
    [
      'KB Star Banking push (issue 19)',
      '홍*동님 07/15 18:39 582102-**-***852\n홍길동 FBS입금 10,000 잔액10,000',
      '2026-07-15T18:39:05',
      'com.kbstar.kbbank',
      deposit({ provider: 'KB_KOOKMIN', amount: 10_000, depositorName: '홍길동', occurredAt: kst('2026-07-15T18:39:00'), account: { masked: '582102-**-***852' }, balanceAfter: 10_000, format: 'KB_KOOKMIN_STAR_PUSH' }),
    ],
    [
      'KakaoBank SMS (issue 19): a January text received in January',
      '[Web발신] [카카오뱅크] 홍*동(8205) 01/23 11:59 입금 450,000원 홍길동 잔액 9,851,574원',
      '2027-01-23T12:00:00',
      null,
      deposit({ provider: 'KAKAOBANK', amount: 450_000, depositorName: '홍길동', occurredAt: kst('2027-01-23T11:59:00'), account: { masked: '(8205)' }, balanceAfter: 9_851_574, format: 'KAKAOBANK_SMS' }),
    ],
    [
      'KakaoBank push under its title line (hsh7097/MoneyTalk): no time, so the receipt time',
      '카카오뱅크\n입금 100,000원\n하상현 → 입출금통장(9103)\n잔액 4,514,631원',
      '2026-05-22T09:35:12',
      null,
      deposit({ provider: 'KAKAOBANK', amount: 100_000, depositorName: '하상현', occurredAt: kst('2026-05-22T09:35:12'), account: { masked: '(9103)' }, balanceAfter: 4_514_631, format: 'KAKAOBANK_PUSH' }),
    ],
    [
      'KakaoBank push on one line, attributed by its sender',
      '입금 100,000원 하상현 → 입출금통장(9103) 잔액 4,514,631원',
      '2026-05-22T09:35:12',
      'com.kakaobank.channel',
      deposit({ provider: 'KAKAOBANK', amount: 100_000, depositorName: '하상현', occurredAt: kst('2026-05-22T09:35:12'), account: { masked: '(9103)' }, balanceAfter: 4_514_631, format: 'KAKAOBANK_PUSH' }),
    ],
    [
      'Woori SMS, no thousands separator, no balance (Ofcourse-DaytoCourse/Backend)',
      '[Web발신]\n우리 07/21 02:27\n*420576\n입금 1000원\n주노9013',
      '2026-07-21T02:27:30',
      null,
      deposit({ provider: 'WOORI', amount: 1000, depositorName: '주노9013', occurredAt: kst('2026-07-21T02:27:00'), account: { masked: '*420576' }, balanceAfter: null, format: 'WOORI_SMS' }),
    ],
    [
      'Woori SMS with a balance line (the withdrawal sample of kinghama-ledger/home-ledger-example, as a deposit)',
      '[Web발신]\n우리 07/21 09:10\n*000000\n입금 917,000원\n홍길동\n잔액 1,234원',
      '2026-07-21T09:10:30',
      '1588-5000',
      deposit({ provider: 'WOORI', amount: 917_000, depositorName: '홍길동', occurredAt: kst('2026-07-21T09:10:00'), account: { masked: '*000000' }, balanceAfter: 1234, format: 'WOORI_SMS' }),
    ],
    [
      'Hana SMS (kiko9987/itglobal)',
      '[Web발신]\n하나,08/07, 15:33\n255******31304\n입금5,115,000원\n(주)클리어윈코\n잔액239,612,486원',
      '2026-08-07T15:33:20',
      null,
      deposit({ provider: 'HANA', amount: 5_115_000, depositorName: '(주)클리어윈코', occurredAt: kst('2026-08-07T15:33:00'), account: { masked: '255******31304' }, balanceAfter: 239_612_486, format: 'HANA_SMS' }),
    ],
    [
      'Hana SMS with \\r\\n breaks and no space after the comma (nic004/DropIt, as a deposit)',
      '[Web발신]\n하나,04/06,14:24\r\n445******08907\r\n입금6,120원\r\n네이버_LGU+\r\n잔액3,438,883원',
      '2026-04-06T14:25:00',
      null,
      deposit({ provider: 'HANA', amount: 6120, depositorName: '네이버_LGU+', occurredAt: kst('2026-04-06T14:24:00'), account: { masked: '445******08907' }, balanceAfter: 3_438_883, format: 'HANA_SMS' }),
    ],
    [
      'Hana SMS: a name padded with ideographic spaces, an overdraft balance',
      '[Web발신]\n하나,07/01 08:23\n302******29007\n입금55,000원\n티머니\u3000\u3000\u3000\u3000\u3000\n잔액-55,279,562원',
      '2026-07-01T08:23:10',
      null,
      deposit({ provider: 'HANA', amount: 55_000, depositorName: '티머니', occurredAt: kst('2026-07-01T08:23:00'), account: { masked: '302******29007' }, balanceAfter: -55_279_562, format: 'HANA_SMS' }),
    ],
    [
      'Hana on one line, a space for the comma (nabaho/pureun-erp)',
      '[Web발신] 하나 08/24 08:09 352-910123-45678 입금 165,000원 주식회사열음테 잔액 53,709,193원',
      '2026-08-24T09:00:00',
      null,
      deposit({ provider: 'HANA', amount: 165_000, depositorName: '주식회사열음테', occurredAt: kst('2026-08-24T08:09:00'), account: { masked: '352-910123-45678' }, balanceAfter: 53_709_193, format: 'HANA_SMS' }),
    ],
    [
      'Hana labelled text, attributed by its sender (kiko9987/itglobal)',
      '일시 08/07, 10:55\n입금 275,000원\n계좌번호 255******31304\n적요 더밸런스짐',
      '2026-08-07T10:56:00',
      '1599-1111',
      deposit({ provider: 'HANA', amount: 275_000, depositorName: '더밸런스짐', occurredAt: kst('2026-08-07T10:55:00'), account: { masked: '255******31304' }, balanceAfter: null, format: 'HANA_LABELED' }),
    ],
    [
      'IBK SMS with its own year (kiko9987/itglobal)',
      '[Web발신]\n2026/08/10 14:49\n입금 407,000원\n잔액 144,153,377원\n㈜시프트업\n452***38801011\n기업',
      '2026-08-10T14:49:30',
      null,
      deposit({ provider: 'IBK', amount: 407_000, depositorName: '㈜시프트업', occurredAt: kst('2026-08-10T14:49:00'), account: { masked: '452***38801011' }, balanceAfter: 144_153_377, format: 'IBK_SMS' }),
    ],
    [
      'IBK SMS without the balance line',
      '2026/07/29 10:47\n입금 800,000원\n한미침례교회\n452***38801011\n기업',
      '2026-07-29T10:48:00',
      null,
      deposit({ provider: 'IBK', amount: 800_000, depositorName: '한미침례교회', occurredAt: kst('2026-07-29T10:47:00'), account: { masked: '452***38801011' }, balanceAfter: null, format: 'IBK_SMS' }),
    ],
  ];
  it.each(cases)('%s', (_what, text, receivedAt, sender, expected) => {
    expect(parse(text, receivedAt, sender)).toEqual(expected);
  });
});

describe('one text, however the forwarder reshaped it, reads the same deposit', () => {
  const base = '[Web발신]\n신한07/04 15:28\n110-496-922482\n입금 100,000\n잔액 870,045\n홍길동';
  const expected = deposit({ provider: 'SHINHAN', amount: 100_000, depositorName: '홍길동', occurredAt: kst('2026-07-04T15:28:00'), account: { masked: '110-496-922482' }, balanceAfter: 870_045, format: 'SHINHAN_SMS' });
  const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replace(/ /g, '\u3000');
  it.each([
    ['as sent', base],
    ['\\r\\n line breaks (LMS)', base.replace(/\n/g, '\r\n')],
    ['bare \\r line breaks', base.replace(/\n/g, '\r')],
    ['U+2028 line separators', base.replace(/\n/g, '\u2028')],
    ['line breaks turned into spaces', base.replace(/\n/g, ' ')],
    ['runs of spaces, tabs and blank lines', base.replace(/\n/g, ' \t \n\n  ')],
    ['[Web발신] spelt [web 발신] on the same line', base.replace('[Web발신]\n', '[web 발신] ')],
    ['no [Web발신]', base.replace('[Web발신]\n', '')],
    ['[국외발신] instead', base.replace('[Web발신]', '[국외발신]')],
    ['a sender line first', `보낸사람 : 15778000()\n${base}`],
    ['zero-width spaces and a BOM around the lines', `\ufeff${base.replace(/\n/g, '\u200b\n\u200b')}`],
    ['full-width digits, brackets and spaces (the name is not ASCII: unchanged)', fullWidth(base)],
    ['NFD Hangul', base.normalize('NFD')],
    ['trailing lines after the notice', `${base}\nbbb\nccc`],
  ])('%s', (_what, text) => {
    expect(parse(text, '2026-07-04T15:30:00')).toEqual(expected);
  });

  it('amounts with or without 원 and thousands separators', () => {
    for (const amount of ['10,000', '10000', '10,000원', '10000원', '10,000 원']) {
      expect(parse(`농협 입금${amount}\n07/04 15:18 352-****-4273-63 홍길동`, '2026-07-04T15:30:00')).toMatchObject({ kind: 'DEPOSIT', amount: 10_000 });
    }
  });

  it('a depositor name is handed back as the bank wrote it: full-width letters, inner spacing and NFD composed', () => {
    const read = (name: string) => parse(`[KB]07/04 15:24\n942902**347\n${name}\n입금\n600,000\n잔액1,320,000`, '2026-07-04T15:30:00');
    expect(read('ＪＯＨＮ　ＫＩＭ')).toMatchObject({ depositorName: 'ＪＯＨＮ　ＫＩＭ' });
    expect(read('홍  길동[101호]')).toMatchObject({ depositorName: '홍  길동[101호]' });
    expect(read('홍길동'.normalize('NFD'))).toMatchObject({ depositorName: '홍길동' });
    expect(read('【주문】홍길동')).toMatchObject({ depositorName: '【주문】홍길동' });
  });
});

describe('the year of a text that prints none: the latest one not after its receipt (times are KST)', () => {
  const nh = (mmdd: string, hhmm: string) => `농협 입금10,000원\n${mmdd} ${hhmm} 352-****-4273-63 홍길동`;
  it.each([
    ['received 01/01 00:05 about 12/31 23:59: last year', '12/31', '23:59', '2027-01-01T00:05:00', '2026-12-31T23:59:00'],
    ['received 12/31 23:59 about 12/31 23:58: this year', '12/31', '23:58', '2026-12-31T23:59:00', '2026-12-31T23:58:00'],
    ['received 01/01 00:00 about 01/01 00:00: this year', '01/01', '00:00', '2027-01-01T00:00:00', '2027-01-01T00:00:00'],
    ['received 12/31 23:58 about 01/01 00:03 (the phone 5 minutes slow): next year', '01/01', '00:03', '2026-12-31T23:58:00', '2027-01-01T00:03:00'],
    ['received 07/04 15:18 about 07/04 15:28 (10 minutes ahead, the skew allowed): this year', '07/04', '15:28', '2026-07-04T15:18:00', '2026-07-04T15:28:00'],
    ['received 07/04 15:18 about 07/04 15:29 (11 minutes ahead): last year', '07/04', '15:29', '2026-07-04T15:18:00', '2025-07-04T15:29:00'],
    ['received 03/01 about 02/28: this year', '02/28', '09:00', '2026-03-01T09:00:00', '2026-02-28T09:00:00'],
    ['02/29 received in a leap year', '02/29', '09:00', '2028-03-01T09:00:00', '2028-02-29T09:00:00'],
    ['a time of 00:00 KST is the day before in UTC', '07/04', '00:00', '2026-07-04T00:01:00', '2026-07-04T00:00:00'],
  ])('%s', (_what, mmdd, hhmm, receivedAt, occurredAt) => {
    expect(parse(nh(mmdd, hhmm), receivedAt)).toMatchObject({ kind: 'DEPOSIT', occurredAt: kst(occurredAt) });
  });

  it.each([
    ['02/30', '02/30', '09:00', '2026-07-04T00:00:00', '02/30 does not exist in 2026'],
    ['04/31', '04/31', '09:00', '2026-07-04T00:00:00', '04/31 does not exist in 2026'],
    ['02/29 in a year without one', '02/29', '09:00', '2026-03-01T09:00:00', '02/29 does not exist in 2026'],
    ['month 13', '13/01', '09:00', '2026-07-04T00:00:00', '13/01 09:00 is not a month/day'],
    ['month 0', '00/10', '09:00', '2026-07-04T00:00:00', '00/10 09:00 is not a month/day'],
    ['day 0', '07/00', '09:00', '2026-07-04T00:00:00', '07/00 09:00 is not a month/day'],
    ['hour 24', '07/01', '24:00', '2026-07-04T00:00:00', '07/01 24:00 is not a time of day'],
    ['minute 60', '07/01', '12:60', '2026-07-04T00:00:00', '07/01 12:60 is not a time of day'],
  ])('%s is UNRECOGNIZED, never an exception', (_what, mmdd, hhmm, receivedAt, reason) => {
    expect(parse(nh(mmdd, hhmm), receivedAt)).toEqual(unrecognized(reason));
  });

  it('IBK prints its year: taken as printed, and refused when after receipt', () => {
    const ibk = (date: string) => `${date} 10:47\n입금 800,000원\n홍길동\n452***38801011\n기업`;
    expect(parse(ibk('2025/12/31'), '2026-01-01T00:05:00')).toMatchObject({ kind: 'DEPOSIT', occurredAt: kst('2025-12-31T10:47:00') });
    expect(parse(ibk('2027/07/29'), '2026-07-29T10:48:00')).toEqual(unrecognized('2027/07/29 10:47 KST is after the text was received'));
    expect(parse(ibk('2026/02/29'), '2026-07-29T10:48:00')).toEqual(unrecognized('02/29 does not exist in 2026'));
  });

  it('a receipt time that is no date, or a text that is no string, is UNRECOGNIZED', () => {
    expect(parseBankText({ text: '농협 입금1원\n07/04 15:18 352-****-4273-63 홍길동', receivedAt: new Date(Number.NaN), channel: 'SMS' })).toEqual(unrecognized('receivedAt is not a valid date'));
    expect(parseBankText({ text: 42 as unknown as string, receivedAt: new Date(), channel: 'SMS' })).toEqual(unrecognized('the text is not a string'));
    expect(parseBankText({ text: '농협 입금1원\n12/31 23:00 352-****-4273-63 홍길동', receivedAt: new Date('1970-01-01T05:00:00Z'), channel: 'SMS' })).toEqual(
      unrecognized('1969/12/31 23:00 is outside 1970-9999'),
    );
  });
});

describe('amounts are whole won from 1 to MAX_WON', () => {
  const nh = (amount: string) => `농협 입금${amount}원\n07/04 15:18 352-****-4273-63 홍길동`;
  it.each([
    ['1', 1],
    ['2,147,483,647', 2_147_483_647],
    ['2147483647', 2_147_483_647],
  ])('%s won is read', (amount, value) => {
    expect(parse(nh(amount), '2026-07-04T15:30:00')).toMatchObject({ kind: 'DEPOSIT', amount: value });
  });
  it.each([
    ['0', 'amount 0 is not 1..2147483647 won'],
    ['2,147,483,648', 'amount 2,147,483,648 is not 1..2147483647 won'],
    ['99999999999999999999', 'amount 99999999999999999999 is not 1..2147483647 won'],
    ['1,00,000', 'amount "1,00,000" is not whole won'],
    ['10,000.50', 'amount "10,000.50" is not whole won'],
    ['10.5', 'amount "10.5" is not whole won'],
    ['010,000', 'amount 010,000 is not 1..2147483647 won'],
    ['10,000,', 'amount "10,000," is not whole won'],
  ])('%s won is UNRECOGNIZED', (amount, reason) => {
    expect(parse(nh(amount), '2026-07-04T15:30:00')).toEqual(unrecognized(reason));
  });
});

describe('texts that surely are no deposit: NOT_A_DEPOSIT, so the forwarder stops retrying', () => {
  const notADeposit = (provider: string | null, what: string, reason: string) => ({ kind: 'NOT_A_DEPOSIT', provider, what, reason });
  it.each([
    ['an NH withdrawal', '[Web발신]\n농협 출금780,500원\n07/06 15:27 352-****-7417-43 (주)재호 잔액505,010원', notADeposit('NH_NONGHYUP', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a Shinhan withdrawal', '[Web발신]\n신한07/04 15:18\n110-496-922482\n출금   7,900,000\n잔액 11,040,045\n 주식회사 넥스\nbbb', notADeposit('SHINHAN', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a KB withdrawal', '[KB]07/07 18:29\n945802**314\n박인호\n출금\n2,960,000\n잔액560,000', notADeposit('KB_KOOKMIN', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a KB check-card debit', '[KB]07/07 18:29\n945802**314\n스타벅스\n체크카드출금\n5,600\n잔액560,000', notADeposit('KB_KOOKMIN', 'WITHDRAWAL', 'a withdrawal (체크카드출금)')],
    ['a KB Star Banking withdrawal', '홍*동님 07/15 18:39 582102-**-***852\n쿠팡 FBS출금 10,000 잔액10,000', notADeposit('KB_KOOKMIN', 'WITHDRAWAL', 'a withdrawal (FBS출금)')],
    ['a KakaoBank withdrawal', '[카카오뱅크] 홍*동(8205) 01/23 11:59 출금 450,000원 홍길동 잔액 9,851,574원', notADeposit('KAKAOBANK', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a Woori withdrawal', '[Web발신]\n우리 07/04 09:10\n*000000\n출금 917,000원\n가맹점\n잔액 1,234원', notADeposit('WOORI', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a Hana withdrawal', '[Web발신]\n하나,04/06,14:24\r\n445******08907\r\n출금6,120원\r\n네이버_LGU+\r\n잔액3,438,883원', notADeposit('HANA', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['an IBK withdrawal (built from its deposit)', '2026/07/29 10:47\n출금 800,000원\n한미침례교회\n452***38801011\n기업', notADeposit('IBK', 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a KakaoBank push withdrawal nothing attributes: a withdrawal of no known bank', '출금 12,000원\n홍길동 → 입출금통장(9103)\n잔액 4,502,631원', notADeposit(null, 'WITHDRAWAL', 'a withdrawal (출금)')],
    ['a cancelled deposit', '[KB]07/07 18:29\n945802**314\n홍길동\n입금취소\n10,000\n잔액560,000', notADeposit('KB_KOOKMIN', 'OTHER', 'a cancellation (입금취소)')],
    ['a cancelled withdrawal', '[KB]12/31 23:50\n945802**314\n홍길동\n출금취소\n10,000\n잔액560,000', notADeposit('KB_KOOKMIN', 'OTHER', 'a cancellation (출금취소)')],
    ['a withdrawal in no known layout', '[신협] 132*****2222 07/07 18:38 출금 2,870,000원 이신자 잔액540,000원', notADeposit(null, 'WITHDRAWAL', 'a withdrawal (출금) text')],
    ['a Woori card debit of an account', '[Web발신]\n우리카드결제 120,000원 출금 완료 잔액 500,000원', notADeposit(null, 'OTHER', 'a card-payment text')],
    ['a KB card payment', '[Web발신]\nKB국민카드7711승인\n김*우님\n19,050원 일시불\n07/01 08:52\n쿠팡(쿠페이)\n누적435,849원', notADeposit(null, 'OTHER', 'a card-payment text')],
    ['a Hana card payment', '[Web발신] 하나9950 승인 권*하 26,000원 일시불 08/24 08:09 스시리두정', notADeposit(null, 'OTHER', 'a card-payment text')],
    ['a Shinhan card cancellation', '신한카드(1054)취소 신*진 98,700원(일시불)10/13 15:48 가톨릭대병원', notADeposit(null, 'OTHER', 'a card-payment text')],
    ['a balance notice', '[KB] 07/04 잔액안내\n942902**347\n잔액 1,320,000원', notADeposit('KB_KOOKMIN', 'BALANCE', 'a balance notice')],
    ['an advertisement that talks of 입금', '(광고)[하나은행] 입금 이벤트! 10,000원 받아가세요\n무료수신거부 080-000-0000', notADeposit('HANA', 'ADVERTISEMENT', 'an advertisement ((광고))')],
    ['an advertisement after [Web발신]', '[Web발신]\n[광고] 카카오뱅크 26주적금', notADeposit('KAKAOBANK', 'ADVERTISEMENT', 'an advertisement ((광고))')],
    ['a security code', '[신한은행] 인증번호 [123456]를 입력하세요', notADeposit('SHINHAN', 'OTHER', 'a security-code text')],
  ])('%s', (_what, text, expected) => {
    expect(parse(text, '2026-07-29T12:00:00')).toEqual(expected);
  });

  it('a depositor who calls himself (광고) still pays: only a first line makes an advertisement', () => {
    expect(parse('[KB]07/04 15:24\n942902**347\n(광고)\n입금\n600,000\n잔액1,320,000', '2026-07-04T15:30:00')).toMatchObject({ kind: 'DEPOSIT', depositorName: '(광고)' });
  });
});

describe('texts no parser understands: UNRECOGNIZED, stored as received', () => {
  it.each([
    ['an empty text', '', 'the text is empty'],
    ['only invisible characters and markers', '\u200b[Web발신]\r\n\u3000', 'the text is empty'],
    ['only digits', '0123456789', 'no parser understands the text'],
    ['a deposit in no known layout (신협)', '신협132*****2222 07/04 16:15 입금 300,000원 김규성 잔액312,533원', 'a text about 입금 in no known layout'],
    ['a KB SMS without the depositor line', '[KB]07/04 15:24\n942902**347\n전자금융입금\n600,000\n잔액1,320,000', 'a text about 입금 in no known layout'],
    ['a KakaoBank push with nothing naming the bank', '입금 100,000원\n하상현 → 입출금통장(9103)\n잔액 4,514,631원', 'a KAKAOBANK_PUSH layout, but no title line or sender names the bank'],
    ['a Hana labelled text from a Shinhan sender', '일시 08/07, 10:55\n입금 275,000원\n계좌번호 255******31304\n적요 더밸런스짐', 'a HANA_LABELED layout, but the sender or title names SHINHAN'],
    [
      'two notices in one forwarded text',
      '농협 입금10,000원\n07/04 15:18 352-****-4273-63 홍길동\n농협 입금20,000원\n07/04 15:19 352-****-4273-63 김철수',
      'the text holds more than one notice',
    ],
    ['a depositor name over 100 characters', `농협 입금10,000원\n07/04 15:18 352-****-4273-63 ${'가'.repeat(101)}`, 'the depositor name is not 1-100 characters'],
    ['a name that runs into a balance (trailing words on the balance line)', '농협 입금10,000원 07/04 15:18 352-****-4273-63 홍길동 잔액3,710,000원 ccc', 'the depositor name runs into a balance'],
  ])('%s', (_what, text, reason) => {
    const sender = text.startsWith('일시') ? '15778000' : null;
    expect(parse(text, '2026-07-04T15:30:00', sender)).toEqual(unrecognized(reason));
  });

  it(`a text over ${MAX_BANK_TEXT_BYTES} bytes is refused; one of exactly ${MAX_BANK_TEXT_BYTES} is read`, () => {
    const notice = '농협 입금10,000원\n07/04 15:18 352-****-4273-63 홍길동\n';
    const padTo = (bytes: number) => notice + 'a'.repeat(bytes - Buffer.byteLength(notice));
    expect(Buffer.byteLength(padTo(MAX_BANK_TEXT_BYTES))).toBe(MAX_BANK_TEXT_BYTES);
    expect(parse(padTo(MAX_BANK_TEXT_BYTES), '2026-07-04T15:30:00')).toMatchObject({ kind: 'DEPOSIT', depositorName: '홍길동' });
    expect(parse(padTo(MAX_BANK_TEXT_BYTES + 1), '2026-07-04T15:30:00')).toEqual(unrecognized('the text is over 4096 bytes'));
    expect(parse('가'.repeat(1_000_000), '2026-07-04T15:30:00')).toEqual(unrecognized('the text is over 4096 bytes'));
  });

  it('an NFD text is measured after NFC: 1,300 NFD syllables (11,700 bytes) are 3,900 bytes, and read', () => {
    const name = '각'.repeat(1300).normalize('NFD');
    expect(Buffer.byteLength(name)).toBe(11_700);
    expect(parse(`[KB]07/04 15:24\n942902**347\n홍길동\n입금\n600,000\n${name}`, '2026-07-04T15:30:00')).toMatchObject({ kind: 'DEPOSIT', amount: 600_000 });
  });
});

describe('accountMatchesMask: the digits a bank shows agree with the registered account', () => {
  it.each([
    ['NH keeps every position', '352-0123-4273-63', '352-****-4273-63', true],
    ['NH, another hidden middle', '352-9876-4273-63', '352-****-4273-63', true],
    ['NH, one visible digit differs', '352-0123-4273-64', '352-****-4273-63', false],
    ['NH, hyphens ignored on both sides', '3520123427363', '352****427363', true],
    ['KB push keeps every position', '582102-01-234852', '582102-**-***852', true],
    ['KB push, a visible digit differs', '582102-01-234853', '582102-**-***852', false],
    ['KB SMS: a shorter run of stars is any hidden middle', '942902-01-234347', '942902**347', true],
    ['KB SMS: the first digits differ', '942903-01-234347', '942902**347', false],
    ['KB SMS: the last digits differ', '942902-01-234348', '942902**347', false],
    ['KakaoBank (8205): the last four digits', '3333-01-2348205', '(8205)', true],
    ['KakaoBank (8205): other last digits', '3333-01-2348206', '(8205)', false],
    ['Woori *420576: the last six digits', '1002-123-420576', '*420576', true],
    ['Woori *420576: other last digits', '1002-123-420577', '*420576', false],
    ['Hana', '255-910014-31304', '255******31304', true],
    ['IBK', '452-039388-01-011', '452***38801011', true],
    ['IBK, another account of the same branch', '452-039388-01-012', '452***38801011', false],
    ['Shinhan, shown in full', '110-496-922482', '110-496-922482', true],
    ['Shinhan, shown in full, another account', '110-496-922483', '110-496-922482', false],
    ['full-width digits and stars', '352-0123-4273-63', '３５２－＊＊＊＊－４２７３－６３', true],
    ['a mask longer than the number', '352-0123-4273-6', '352-****-4273-63', false],
    ['a mask shorter than the number and without stars', '352-0123-4273-63', '352-4273-63', false],
    ['a mask that shows no digit', '352-0123-4273-63', '***-****-****-**', false],
    ['a suffix longer than the number', '8205', '(18205)', false],
    ['a registered number with letters', '352-0123-4273-6X', '352-****-4273-6*', false],
    ['a mask with other characters', '352-0123-4273-63', '352-xxxx-4273-63', false],
    ['an empty registered number', '', '(8205)', false],
  ])('%s: %s vs %s → %s', (_what, registered, masked, expected) => {
    expect(accountMatchesMask(registered, masked)).toBe(expected);
  });
});
