import { describe, expect, it } from 'vitest';
import { bareName, depositNameKey, invoiceNameColumns, isAcceptableInvoiceName, nameLength, normalizeName, splitBrackets } from '../../src/domain/deposits/depositor-name.ts';
import { decideMatch, namesMatch } from '../../src/domain/deposits/name-matching.ts';
import { BANK_PROVIDERS, findBankProvider } from '../../src/domain/bank-accounts/bank-providers.ts';
import { customerNameSchema } from '../../src/domain/invoices/invoice-input.ts';

const NFD = (s: string) => s.normalize('NFD');

describe('the depositor-name normalisation rule (one rule for invoice and deposit names)', () => {
  it('NFD input really is decomposed (the tables below are not comparing equal strings)', () => {
    expect(NFD('홍길동')).not.toBe('홍길동');
    expect([...NFD('홍길동')]).toHaveLength(9);
  });

  it.each([
    ['NFD Hangul composes (NFC)', NFD('홍길동'), '홍길동'],
    ['NFC Hangul is unchanged', '홍길동', '홍길동'],
    ['Latin A-Z are lower-cased', 'JOHNKIM', 'johnkim'],
    ['mixed case', 'JohnKim', 'johnkim'],
    ['full-width Latin letters fold to ASCII, then lower-case', 'ＪＯＨＮ', 'john'],
    ['full-width lower-case letters', 'ｊｏｈｎ', 'john'],
    ['full-width digits', '１２３４５６', '123456'],
    ['full-width parentheses', '홍길동（１０１호）', '홍길동(101호)'],
    ['full-width square brackets', '［주문］홍길동', '[주문]홍길동'],
    ['full-width curly brackets', '홍길동｛x｝', '홍길동{x}'],
    ['full-width angle signs', '홍길동＜x＞', '홍길동<x>'],
    ['ideographic space becomes a space', '홍\u3000길동', '홍 길동'],
    ['U+2329/232A angle brackets become 〈〉 (their canonical form)', '\u2329a\u232a', '\u3008a\u3009'],
    ['NFD é composes; non-ASCII letters keep their case', NFD('ÉMILE'), 'Émile'],
    ['not NFKC: ㈜ stays (it would become (주), which bracket removal drops)', '㈜한국', '㈜한국'],
    ['not NFKC: compatibility jamo stay as sent', 'ㄱㅏ', 'ㄱㅏ'],
    ['not NFKC: circled digits stay', '①번', '①번'],
    ['CJK brackets are kept (they are removed only by bracket removal)', '〔주문〕홍길동', '〔주문〕홍길동'],
  ])('%s: %j → %j', (_rule, input, out) => expect(normalizeName(input)).toBe(out));

  it('is idempotent', () => {
    for (const s of [NFD('홍길동(１０１)'), 'ＪＯＨＮ［x］', 'W\u030A', 'A\u030A']) expect(normalizeName(normalizeName(s))).toBe(normalizeName(s));
  });

  it.each([
    [NFD('홍길동'), 3],
    ['홍길동', 3],
    [NFD('가나다라마바사아자차카타파하가나'), 16],
    ['ＪＯＨＮ', 4],
    ['', 0],
  ])('nameLength(%j) = %d (code points after NFC)', (input, n) => expect(nameLength(input)).toBe(n));

  it.each([
    ['홍길동(123)', '홍길동', ['123']],
    ['[주문]홍길동', '홍길동', ['주문']],
    ['홍길동{x}', '홍길동', ['x']],
    ['홍길동<x>', '홍길동', ['x']],
    ['홍(a)길[b]동{c}', '홍길동', ['a', 'b', 'c']],
    ['((nested))홍', '홍', ['nested']],
    ['（전각）김철수', '김철수', ['전각']],
    ['［주문］김철수', '김철수', ['주문']],
    ['〔주문〕김철수', '김철수', ['주문']],
    ['〈주문〉김철수', '김철수', ['주문']],
    ['《주문》김철수', '김철수', ['주문']],
    ['「주문」김철수', '김철수', ['주문']],
    ['『주문』김철수', '김철수', ['주문']],
    ['【주문】김철수', '김철수', ['주문']],
    ['｛주문｝김철수', '김철수', ['주문']],
    ['＜주문＞김철수', '김철수', ['주문']],
    ['｢주문｣김철수', '김철수', ['주문']],
    ['〖주문〗김철수', '김철수', ['주문']],
    ['김철수( 1 0 1 )', '김철수', ['101']],
    ['김철수()', '김철수', []],
    ['김철수(101', '김철수(101', []],
    ['김 철수', '김철수', []],
    ['(1)', '', ['1']],
  ])('bareName(%j) = %j, bracket text %j', (input, bare, text) => {
    expect(bareName(input)).toBe(bare);
    expect(splitBrackets(normalizeName(input))).toEqual({ bare, text });
  });

  it('an invoice stores its name as sent, and beside it the comparison columns', () => {
    expect(invoiceNameColumns(NFD('홍길동（１０１호）'))).toEqual({ customerNameKey: '홍길동(101호)', customerNameBare: '홍길동' });
    expect(invoiceNameColumns('JohnKim[VIP]')).toEqual({ customerNameKey: 'johnkim[vip]', customerNameBare: 'johnkim' });
  });

  it.each([
    ['\u200b', false],
    ['\u3164', false],
    ['\u115f', false],
    ['\u1160', false],
    ['\uffa0', false],
    ['\u0001', false],
    ['\u007f', false],
    ['\u0301', false],
    ['\ufe0f', false],
    ['\u{e0100}', false],
    ['홍길동\u200b', false],
    ['홍길동\u00ad', false],
    ['\u200e홍길동', false],
    ['홍\u202e길동', false],
    ['홍\u034f길동', false],
    ['\u0301홍길동', false],
    ['홍길동', true],
    ['E\u0301mile', true],
    ['JohnKim(101호)', true],
    ['㈜한국', true],
  ])('isAcceptableInvoiceName(%j) = %s, and customer.name says the same', (name, ok) => {
    expect(isAcceptableInvoiceName(name)).toBe(ok);
    expect(customerNameSchema.safeParse(name).success).toBe(ok);
  });

  it('the 16-character limit of customer.name counts characters after NFC', () => {
    const ok = (v: string) => customerNameSchema.safeParse(v).success;
    expect(ok(NFD('가나다라마바사아자차카타파하가나'))).toBe(true); // 16 syllables, 48 code points as sent
    expect(ok(NFD('가나다라마바사아자차카타파하가나다'))).toBe(false); // 17
    expect(ok(NFD('홍길동홍길동'))).toBe(true); // 6 syllables, 18 code points as sent
    expect(ok('')).toBe(false);
  });
});

describe('depositor-name matching methods', () => {
  it.each([
    ['EXACT', '홍길동', '홍길동', 7, true],
    ['EXACT', '홍길동', '홍길순', 7, false],
    ['EXACT', NFD('홍길동'), '홍길동', 7, true],
    ['EXACT', '홍길동', NFD('홍길동'), 7, true],
    ['EXACT', 'JOHNKIM', 'JohnKim', 7, true],
    ['EXACT', 'ＪＯＨＮＫＩＭ', 'JohnKim', 7, true],
    ['EXACT', '홍길동（１）', '홍길동(1)', 7, true],
    ['EXACT', '㈜한국', '(주)한국', 7, false],
    ['BRACKET_REMOVAL', '홍길동(123)', '홍길동', 7, true],
    ['BRACKET_REMOVAL', '홍길동', '[주문]홍길동', 7, true],
    ['BRACKET_REMOVAL', '(123)', '(456)', 7, false],
    ['BRACKET_REMOVAL', '［주문］홍길동', '홍길동', 7, true],
    ['BRACKET_REMOVAL', '〔주문〕홍길동', '홍길동', 7, true],
    ['BRACKET_REMOVAL', 'JOHNKIM(1)', 'JohnKim', 7, true],
    ['BRACKET_REMOVAL', NFD('홍길동') + '(1)', '홍길동', 7, true],
    // Both carry bracket text: the same text (any bracket, anywhere) is the same order; a different one is not.
    ['BRACKET_REMOVAL', '홍길동(102호)', '홍길동(101호)', 7, false],
    ['BRACKET_REMOVAL', '홍길동(102호)', '홍길동(102호)', 7, true],
    ['BRACKET_REMOVAL', '홍길동[102호]', '홍길동(102호)', 7, true],
    ['BRACKET_REMOVAL', '[102호]홍길동', '홍길동【102호】', 7, true],
    ['BRACKET_REMOVAL', '홍길동(102HO)', '홍길동(102ho)', 7, true],
    ['BRACKET_REMOVAL', '홍길동(101)(VIP)', '홍길동(VIP)(101)', 7, true],
    ['BRACKET_REMOVAL', '홍길동(101)', '홍길동(101)(VIP)', 7, false],
    ['BRACKET_REMOVAL', '홍길동()', '홍길동(101호)', 7, true],
    ['NAME_PREFIX', '가나다라마바사', '가나다라마바사아자', 7, true],
    ['NAME_PREFIX', '가나다라마바', '가나다라마바사아자', 7, false],
    ['NAME_PREFIX', '가나다라마바사', '가나다라마바사', 7, false],
    ['NAME_PREFIX', '가나다라마바사', '가나다라마바차아자', 7, false],
    // The length is counted after NFC: the bank's 7 syllables, sent decomposed, are still 7 characters.
    ['NAME_PREFIX', NFD('가나다라마바사'), '가나다라마바사아자', 7, true],
    ['NAME_PREFIX', 'JOHNKIM', 'JohnKimSmith', 7, true],
    // A truncated name keeps whatever bracket text it carries in place: it pays only an order that begins with it.
    ['NAME_PREFIX', '홍길동(102', '홍길동(102호)', 7, true],
    ['NAME_PREFIX', '홍길동(102', '홍길동(101호)', 7, false],
    ['NAME_PREFIX', '홍길동［102', '홍길동[102호]', 7, true],
  ] as const)('%s: deposit %j vs invoice %j (bank keeps %d) → %s', (method, d, i, len, expected) => {
    expect(namesMatch(method, d, i, len)).toBe(expected);
  });

  it('the first method with a match decides, in the order EXACT, BRACKET_REMOVAL, NAME_PREFIX', () => {
    const a = { id: 'a', customerName: '홍길동' };
    const b = { id: 'b', customerName: '홍길동(VIP)' };
    expect(decideMatch('홍길동', [b, a], 7)).toEqual({ kind: 'MATCH', method: 'EXACT', candidate: a });
    expect(decideMatch('홍길동[VIP]', [b], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: b });
    expect(decideMatch('홍길동(2)', [a, b], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: a });
    expect(decideMatch('홍길동[1]', [b], 7)).toEqual({ kind: 'NONE' }); // both bracketed, '1' is not 'VIP'
  });

  it('two candidates by the deciding method: AMBIGUOUS (no guess)', () => {
    const a = { id: 'a', customerName: '홍길동(1)' };
    const b = { id: 'b', customerName: '홍길동(2)' };
    const d = decideMatch('홍길동', [a, b], 7);
    expect(d.kind).toBe('AMBIGUOUS');
    expect(d.kind === 'AMBIGUOUS' && d.candidates.map((c) => c.id)).toEqual(['a', 'b']);
  });

  it('a deposit naming one order never pays another: with 102 paid, a second "홍길동(102호)" leaves 101 alone', () => {
    const o101 = { id: '101', customerName: '홍길동(101호)' };
    const o102 = { id: '102', customerName: '홍길동(102호)' };
    expect(decideMatch('홍길동(102호)', [o101, o102], 7)).toEqual({ kind: 'MATCH', method: 'EXACT', candidate: o102 });
    expect(decideMatch('홍길동(102호)', [o101], 7)).toEqual({ kind: 'NONE' });
    expect(decideMatch('홍길동(103호)', [o101, o102], 7)).toEqual({ kind: 'NONE' });
    // Naming no order, it could be either: ambiguous while both wait, the one left once the other is paid.
    expect(decideMatch('홍길동', [o101, o102], 7)).toMatchObject({ kind: 'AMBIGUOUS', method: 'BRACKET_REMOVAL' });
    expect(decideMatch('홍길동', [o101], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: o101 });
    // Truncated by the bank (SHINHAN keeps 7): '홍길동(102' pays 102, and a second one pays nothing.
    expect(decideMatch('홍길동(102', [o101, o102], 7)).toEqual({ kind: 'MATCH', method: 'NAME_PREFIX', candidate: o102 });
    expect(decideMatch('홍길동(102', [o101], 7)).toEqual({ kind: 'NONE' });
  });

  it('names equal after normalisation are one name: two such invoices make a deposit AMBIGUOUS (why the conflict check refuses them)', () => {
    const a = { id: 'a', customerName: 'JohnKim' };
    const b = { id: 'b', customerName: 'JOHNKIM' };
    expect(decideMatch('johnkim', [a, b], 7)).toEqual({ kind: 'AMBIGUOUS', method: 'EXACT', candidates: [a, b] });
  });

  it('no candidate: NONE', () => expect(decideMatch('김철수', [{ customerName: '홍길동' }], 7)).toEqual({ kind: 'NONE' }));

  it('a deposit exactly the truncation length may be a longer name cut short: NAME_PREFIX hits join the deciding tier', () => {
    const seven = { id: '7', customerName: '가나다라마바사' };
    const eight = { id: '8', customerName: '가나다라마바사아' };
    expect(decideMatch('가나다라마바사', [seven, eight], 7)).toEqual({ kind: 'AMBIGUOUS', method: 'EXACT', candidates: [seven, eight] });
    expect(decideMatch('가나다라마바사', [seven], 7)).toEqual({ kind: 'MATCH', method: 'EXACT', candidate: seven });
    expect(decideMatch('가나다라마바사', [eight], 7)).toEqual({ kind: 'MATCH', method: 'NAME_PREFIX', candidate: eight });
    // A bank keeping more characters did not cut it: EXACT decides alone.
    expect(decideMatch('가나다라마바사', [seven, eight], 8)).toEqual({ kind: 'MATCH', method: 'EXACT', candidate: seven });
    const o101 = { id: '101', customerName: '홍길동(101' };
    const o101ho = { id: '101호', customerName: '홍길동(101호)' };
    expect(decideMatch('홍길동(101', [o101ho, o101], 7)).toEqual({ kind: 'AMBIGUOUS', method: 'EXACT', candidates: [o101, o101ho] });
    const closed = { id: '(101)', customerName: '홍길동(101)' };
    expect(decideMatch('홍길동(101', [o101ho, closed], 7)).toEqual({ kind: 'AMBIGUOUS', method: 'NAME_PREFIX', candidates: [o101ho, closed] });
    // Against BRACKET_REMOVAL likewise ('[주문]홍길동' is 7 characters and begins '[주문]홍길동님').
    const plain = { id: 'p', customerName: '홍길동' };
    const longer = { id: 'l', customerName: '[주문]홍길동님' };
    expect(decideMatch('[주문]홍길동', [plain, longer], 7)).toEqual({ kind: 'AMBIGUOUS', method: 'BRACKET_REMOVAL', candidates: [plain, longer] });
    expect(decideMatch('[주문]홍길동', [plain], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: plain });
    // An invoice hit by both BRACKET_REMOVAL and NAME_PREFIX counts once.
    const both = { id: 'b', customerName: '[주문]홍길동()' };
    expect(decideMatch('[주문]홍길동', [both], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: both });
  });

  it('candidates cut at the lookup limit (complete: false) decide nothing but AMBIGUOUS: TOO_MANY_CANDIDATES with the hits read', () => {
    const a = { id: 'a', customerName: '이몽룡' };
    const x = { id: 'x', customerName: '이몽룡[X]' };
    const y = { id: 'y', customerName: '이몽룡(Y)' };
    expect(decideMatch('이몽룡(X)', [a, y], 7, { complete: false })).toEqual({ kind: 'TOO_MANY_CANDIDATES', candidates: [a] });
    expect(decideMatch('이몽룡(X)', [y], 7, { complete: false })).toEqual({ kind: 'TOO_MANY_CANDIDATES', candidates: [] });
    expect(decideMatch('이몽룡(X)', [a, x, y], 7, { complete: false })).toEqual({ kind: 'AMBIGUOUS', method: 'BRACKET_REMOVAL', candidates: [a, x] });
    expect(decideMatch('이몽룡(X)', [a, y], 7, { complete: true })).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: a });
  });

  it('deposit names are compared without invisible characters (format, control, fillers, variation selectors); whitespace stays whitespace', () => {
    const a = { id: 'a', customerName: '홍길동' };
    for (const sent of ['홍길동\u200b', '\u200e홍길동', '홍길\u00ad동', '홍길동\ufe0f', '홍길동\u3164', '\u0001홍길동', '\ufeff홍길동']) {
      expect(decideMatch(sent, [a], 7)).toEqual({ kind: 'MATCH', method: 'EXACT', candidate: a });
    }
    expect(depositNameKey('ＪＯＨＮ\u200bＫＩＭ')).toBe('johnkim');
    expect(depositNameKey('홍길동\t(1)')).toBe('홍길동\t(1)');
    expect(decideMatch('홍길동\t(1)', [a], 7)).toEqual({ kind: 'MATCH', method: 'BRACKET_REMOVAL', candidate: a });
    expect(namesMatch('NAME_PREFIX', '가나다라마바\u200b사', '가나다라마바사아', 7)).toBe(true);
  });

  it('seven providers in upper snake case, each with its truncation length', () => {
    expect(BANK_PROVIDERS).toHaveLength(7);
    for (const p of BANK_PROVIDERS) {
      expect(p.id).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(p.depositorNameLength).toBeGreaterThan(0);
    }
    expect(findBankProvider('SHINHAN')?.depositorNameLength).toBe(7);
  });
});
