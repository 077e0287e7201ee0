/**
 * Bank deposit texts (issue 19) generated: each layout written out here again from its real samples (see
 * bank-texts.test.ts and the sources in bank-text-formats.ts), independently of the parser's patterns, filled with
 * placeholder names, amounts, dates, accounts and balances, and reshaped the ways forwarders reshape texts (line
 * breaks, `[Web발신]`, full-width characters, NFD, zero-width characters). A fixed-seed corpus per bank, then
 * fast-check properties: every deposit reads back exactly, the year of a text is inferred around New Year, withdrawals
 * are never deposits, hostile texts never throw and are never deposits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findBankProvider, type BankProviderId } from '../../src/domain/bank-accounts/bank-providers.ts';
import { accountMatchesMask } from '../../src/domain/deposits/bank-texts/account-mask.ts';
import { MAX_BANK_TEXT_BYTES, parseBankText, type BankTextParse } from '../../src/domain/deposits/bank-texts/parse-bank-text.ts';
import { MAX_WON } from '../../src/domain/validation.ts';

const KST_MS = 9 * 3_600_000;

/** A KST wall-clock minute. */
interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}
const wallOf = (d: Date): Wall => {
  const k = new Date(d.getTime() + KST_MS);
  return { year: k.getUTCFullYear(), month: k.getUTCMonth() + 1, day: k.getUTCDate(), hour: k.getUTCHours(), minute: k.getUTCMinutes() };
};
const instantOf = (w: Wall) => new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) - KST_MS);
const p2 = (n: number) => String(n).padStart(2, '0');

/** One notice as a bank would send it. */
interface Notice {
  layout: Layout;
  kind: '입금' | '출금';
  amount: number;
  /** The depositor (or payee) as the bank shows it. */
  name: string;
  at: Wall;
  /** The registered account, digits only, as long as the bank's accounts are. */
  account: string;
  balance: number | null;
  /** Thousands separators in amounts. */
  grouped: boolean;
  /** 원 after amounts. */
  won: boolean;
  /** KB's word before 입금/출금. */
  kbWord: string;
}

const won = (n: Notice, v: number) => `${v < 0 ? '-' : ''}${n.grouped ? Math.abs(v).toLocaleString('en-US') : String(Math.abs(v))}${n.won ? '원' : ''}`;
const md = (n: Notice) => `${p2(n.at.month)}/${p2(n.at.day)}`;
const hm = (n: Notice) => `${p2(n.at.hour)}:${p2(n.at.minute)}`;

/** Each layout: its bank, its accounts' length and masking, its lines, and what names its bank when the text does not. */
const LAYOUTS = {
  NH_NONGHYUP_SMS: {
    provider: 'NH_NONGHYUP',
    digits: 13,
    mask: (a: string) => `${a.slice(0, 3)}-****-${a.slice(7, 11)}-${a.slice(11)}`,
    lines: (n: Notice, m: string) => [`농협 ${n.kind}${won(n, n.amount)}`, `${md(n)} ${hm(n)} ${m} ${n.name}${n.balance === null ? '' : ` 잔액${won(n, n.balance)}`}`],
  },
  SHINHAN_SMS: {
    provider: 'SHINHAN',
    digits: 12,
    mask: (a: string) => `${a.slice(0, 3)}-***-${a.slice(6)}`,
    lines: (n: Notice, m: string) => [`신한${md(n)} ${hm(n)}`, m, `${n.kind} ${won(n, n.amount)}`, ...(n.balance === null ? [] : [`잔액 ${won(n, n.balance)}`]), n.name],
  },
  KB_KOOKMIN_SMS: {
    provider: 'KB_KOOKMIN',
    digits: 14,
    mask: (a: string) => `${a.slice(0, 6)}**${a.slice(11)}`,
    lines: (n: Notice, m: string) => [`[KB]${md(n)} ${hm(n)}`, m, n.name, `${n.kbWord}${n.kind}`, won(n, n.amount), ...(n.balance === null ? [] : [`잔액${won(n, n.balance)}`])],
  },
  KB_KOOKMIN_STAR_PUSH: {
    provider: 'KB_KOOKMIN',
    digits: 14,
    mask: (a: string) => `${a.slice(0, 6)}-**-***${a.slice(11)}`,
    lines: (n: Notice, m: string) => [`김*수님 ${md(n)} ${hm(n)} ${m}`, `${n.name} ${n.kbWord}${n.kind} ${won(n, n.amount)}${n.balance === null ? '' : ` 잔액${won(n, n.balance)}`}`],
  },
  KAKAOBANK_SMS: {
    provider: 'KAKAOBANK',
    digits: 13,
    mask: (a: string) => `(${a.slice(9)})`,
    lines: (n: Notice, m: string) => [`[카카오뱅크] 김*수${m} ${md(n)} ${hm(n)} ${n.kind} ${won(n, n.amount)} ${n.name}${n.balance === null ? '' : ` 잔액 ${won(n, n.balance)}`}`],
  },
  KAKAOBANK_PUSH: {
    provider: 'KAKAOBANK',
    digits: 13,
    mask: (a: string) => `(${a.slice(9)})`,
    lines: (n: Notice, m: string) => [`${n.kind} ${won(n, n.amount)}`, `${n.name} → 입출금통장${m}`, ...(n.balance === null ? [] : [`잔액 ${won(n, n.balance)}`])],
    sender: 'com.kakaobank.channel',
    untimed: true,
  },
  WOORI_SMS: {
    provider: 'WOORI',
    digits: 13,
    mask: (a: string) => `*${a.slice(7)}`,
    lines: (n: Notice, m: string) => [`우리 ${md(n)} ${hm(n)}`, m, `${n.kind} ${won(n, n.amount)}`, n.name, ...(n.balance === null ? [] : [`잔액 ${won(n, n.balance)}`])],
  },
  HANA_SMS: {
    provider: 'HANA',
    digits: 14,
    mask: (a: string) => `${a.slice(0, 3)}******${a.slice(9)}`,
    lines: (n: Notice, m: string) => [`하나,${md(n)} ${hm(n)}`, m, `${n.kind}${won(n, n.amount)}`, n.name, ...(n.balance === null ? [] : [`잔액${won(n, n.balance)}`])],
  },
  HANA_LABELED: {
    provider: 'HANA',
    digits: 14,
    mask: (a: string) => `${a.slice(0, 3)}******${a.slice(9)}`,
    lines: (n: Notice, m: string) => [`일시 ${md(n)}, ${hm(n)}`, `${n.kind} ${won(n, n.amount)}`, `계좌번호 ${m}`, `적요 ${n.name}`],
    sender: '15991111',
    noBalance: true,
  },
  IBK_SMS: {
    provider: 'IBK',
    digits: 14,
    mask: (a: string) => `${a.slice(0, 3)}***${a.slice(6)}`,
    lines: (n: Notice, m: string) => [`${n.at.year}/${md(n)} ${hm(n)}`, `${n.kind} ${won(n, n.amount)}`, ...(n.balance === null ? [] : [`잔액 ${won(n, n.balance)}`]), n.name, m, '기업'],
  },
} satisfies Record<string, LayoutSpec>;
interface LayoutSpec {
  provider: BankProviderId;
  digits: number;
  mask: (account: string) => string;
  lines: (n: Notice, masked: string) => string[];
  /** Who sends it, for the layouts that name no bank. */
  sender?: string;
  /** The layout prints no time (the receipt time stands for it). */
  untimed?: boolean;
  /** The layout prints no balance. */
  noBalance?: boolean;
}
type Layout = keyof typeof LAYOUTS;
const LAYOUT_IDS = Object.keys(LAYOUTS) as Layout[];
const layoutOf = (l: Layout): LayoutSpec => LAYOUTS[l];

/** How a forwarder or gateway reshaped the text. */
interface Reshape {
  lineBreak: '\n' | '\r\n' | '\r' | '\u2028' | ' ';
  prefix: '' | '[Web발신]\n' | '[Web발신] ' | '보낸사람 : 0\n';
  padLines: boolean;
  zeroWidth: boolean;
  script: 'plain' | 'fullwidth' | 'nfd';
}
const fullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replace(/ /g, '\u3000');

function render(n: Notice, r: Reshape): string {
  const spec = layoutOf(n.layout);
  let lines = spec.lines(n, spec.mask(n.account));
  if (r.padLines) lines = lines.map((l) => ` ${l}  `);
  if (r.zeroWidth) lines = lines.map((l) => `\u200b${l}\u200b`);
  const text = r.prefix + lines.join(r.lineBreak);
  return r.script === 'fullwidth' ? fullWidth(text) : r.script === 'nfd' ? text.normalize('NFD') : text;
}

/** What the parser must read from a rendered deposit received at `receivedAt`. */
function expectedDeposit(n: Notice, r: Reshape, receivedAt: Date): BankTextParse {
  const spec = layoutOf(n.layout);
  return {
    kind: 'DEPOSIT',
    provider: spec.provider,
    amount: n.amount,
    depositorName: r.script === 'fullwidth' ? fullWidth(n.name) : n.name,
    occurredAt: spec.untimed ? receivedAt : instantOf(n.at),
    account: { masked: spec.mask(n.account) },
    balanceAfter: spec.noBalance ? null : n.balance,
    format: n.layout,
  };
}

const parse = (n: Notice, text: string, receivedAt: Date) =>
  parseBankText({ text, receivedAt, channel: n.layout.endsWith('PUSH') ? 'PUSH' : 'SMS', sender: layoutOf(n.layout).sender ?? null });

// ── Generators ─────────────────────────────────────────────────────────────────────────────────────────────────

const nameChar = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0xac00, max: 0xd7a3 }).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz') },
  { weight: 1, arbitrary: fc.constantFrom(...'0123456789') },
  { weight: 1, arbitrary: fc.constantFrom('(', ')', '[', ']', '【', '】', '㈜', '.', '&', '_', '-', 'Ａ', 'Ｚ', 'ｋ', '（', '）') },
  { weight: 1, arbitrary: fc.constant(' ') },
);
/** A depositor name (Hangul, Latin, digits, brackets, spaces), maybe cut to the bank's length as banks cut them. */
const nameFor = (provider: BankProviderId) =>
  fc
    .tuple(fc.array(nameChar, { minLength: 1, maxLength: 16 }), fc.boolean())
    .map(([chars, cut]) => {
      const full = chars.join('').replace(/ +/g, ' ').trim();
      return (cut ? [...full].slice(0, findBankProvider(provider)!.depositorNameLength).join('') : full).trim();
    })
    // An empty name is no name; 잔액 is the balance's word; a name starting with 원 after an amount without 원 on one
    // line reads as that amount's 원 (a real ambiguity of collapsed texts).
    .filter((s) => s !== '' && !s.includes('잔액') && !s.startsWith('원'));

const wallArb = fc.date({ min: new Date('2001-01-01T00:00:00Z'), max: new Date('2098-12-31T00:00:00Z'), noInvalidDate: true }).map(wallOf);

const noticeArb = (layout: Layout, kind: '입금' | '출금' = '입금'): fc.Arbitrary<Notice> =>
  fc.record({
    layout: fc.constant(layout),
    kind: fc.constant(kind),
    amount: fc.integer({ min: 1, max: MAX_WON }),
    name: nameFor(layoutOf(layout).provider),
    at: wallArb,
    account: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: layoutOf(layout).digits, maxLength: layoutOf(layout).digits }).map((d) => d.join('')),
    balance: fc.option(fc.integer({ min: -1_000_000_000_000, max: 1_000_000_000_000 }), { nil: null }),
    grouped: fc.boolean(),
    won: fc.boolean(),
    kbWord: fc.constantFrom('', 'FBS', '전자금융', '타행'),
  });

const reshapeArb: fc.Arbitrary<Reshape> = fc.record({
  lineBreak: fc.constantFrom('\n', '\r\n', '\r', '\u2028', ' '),
  prefix: fc.constantFrom('', '[Web발신]\n', '[Web발신] ', '보낸사람 : 0\n'),
  padLines: fc.boolean(),
  zeroWidth: fc.boolean(),
  script: fc.constantFrom('plain', 'fullwidth', 'nfd'),
});

/** Up to 9 minutes after the notice's own time, as phones receive texts. */
const delayArb = fc.integer({ min: 0, max: 9 * 60_000 });

// ── The corpus ─────────────────────────────────────────────────────────────────────────────────────────────────

const CORPUS_PER_LAYOUT = 20;

describe('a generated corpus per bank: each text reads back into the deposit it was written from', () => {
  const byProvider = new Map<BankProviderId, Layout[]>();
  for (const l of LAYOUT_IDS) byProvider.set(layoutOf(l).provider, [...(byProvider.get(layoutOf(l).provider) ?? []), l]);
  for (const [provider, layouts] of byProvider) {
    describe(provider, () => {
      const cases = layouts.flatMap((layout) =>
        fc.sample(fc.tuple(noticeArb(layout), reshapeArb, delayArb), { seed: 19, numRuns: CORPUS_PER_LAYOUT }).map(([n, r, delay], k) => {
          const receivedAt = new Date(instantOf(n.at).getTime() + delay);
          return [`${layout} #${k + 1}`, n, render(n, r), receivedAt, expectedDeposit(n, r, receivedAt)] as const;
        }),
      );
      it.each(cases)('%s', (_id, n, text, receivedAt, expected) => {
        expect(parse(n, text, receivedAt)).toEqual(expected);
      });
    });
  }
});

// ── Properties ─────────────────────────────────────────────────────────────────────────────────────────────────

const anyLayout = fc.constantFrom(...LAYOUT_IDS);
const timedYearless = fc.constantFrom(...LAYOUT_IDS.filter((l) => !layoutOf(l).untimed && l !== 'IBK_SMS'));

describe('properties', () => {
  it('any amount (1..MAX_WON), name, date and time, formatted the bank\'s way and reshaped, reads back exactly', () => {
    fc.assert(
      fc.property(
        anyLayout.chain((l) => fc.tuple(noticeArb(l), reshapeArb, delayArb)),
        ([n, r, delay]) => {
          const receivedAt = new Date(instantOf(n.at).getTime() + delay);
          expect(parse(n, render(n, r), receivedAt)).toEqual(expectedDeposit(n, r, receivedAt));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the year of a text without one: any time from 9 minutes ahead to 364 days back reads as itself, around New Year too', () => {
    const newYear = fc
      .tuple(fc.integer({ min: 2001, max: 2098 }), fc.integer({ min: -3 * 86_400_000, max: 3 * 86_400_000 }))
      .map(([y, offset]) => new Date(Date.UTC(y, 0, 1) - KST_MS + offset));
    const anyTime = fc.date({ min: new Date('2001-06-01T00:00:00Z'), max: new Date('2098-06-01T00:00:00Z'), noInvalidDate: true });
    const back = fc.oneof(fc.integer({ min: -9 * 60_000, max: 2 * 86_400_000 }), fc.integer({ min: -9 * 60_000, max: 364 * 86_400_000 }));
    fc.assert(
      fc.property(timedYearless.chain((l) => fc.tuple(noticeArb(l), fc.oneof(newYear, anyTime), back)), ([n, receivedAt, delta]) => {
        const at = wallOf(new Date(receivedAt.getTime() - delta));
        const notice = { ...n, at };
        expect(parse(notice, render(notice, { lineBreak: '\n', prefix: '', padLines: false, zeroWidth: false, script: 'plain' }), receivedAt)).toMatchObject({
          kind: 'DEPOSIT',
          occurredAt: instantOf(at),
        });
      }),
      { numRuns: 500 },
    );
  });

  it('a text about a minute more than 10 minutes after its receipt is last year\'s', () => {
    fc.assert(
      fc.property(timedYearless.chain((l) => fc.tuple(noticeArb(l), fc.integer({ min: 11, max: 600 }))), ([n, minutesAhead]) => {
        const at = { ...n.at, month: 3, day: 15 }; // a day every year has
        const receivedAt = new Date(instantOf(at).getTime() - minutesAhead * 60_000);
        const notice = { ...n, at };
        const lastYear = instantOf({ ...at, year: at.year - 1 });
        expect(parse(notice, render(notice, { lineBreak: '\n', prefix: '', padLines: false, zeroWidth: false, script: 'plain' }), receivedAt)).toMatchObject({
          kind: 'DEPOSIT',
          occurredAt: lastYear,
        });
      }),
    );
  });

  it('withdrawals (출금) in every layout are NOT_A_DEPOSIT WITHDRAWAL of that bank', () => {
    fc.assert(
      fc.property(anyLayout.chain((l) => fc.tuple(noticeArb(l, '출금'), reshapeArb, delayArb)), ([n, r, delay]) => {
        const receivedAt = new Date(instantOf(n.at).getTime() + delay);
        const word = n.layout.startsWith('KB_') ? `${n.kbWord}출금` : '출금';
        expect(parse(n, render(n, r), receivedAt)).toEqual({ kind: 'NOT_A_DEPOSIT', provider: layoutOf(n.layout).provider, what: 'WITHDRAWAL', reason: `a withdrawal (${word})` });
      }),
      { numRuns: 300 },
    );
  });

  it('the masked account a deposit reports agrees with the registered account, and not with one whose last digit differs', () => {
    fc.assert(
      fc.property(anyLayout.chain((l) => fc.tuple(noticeArb(l), delayArb)), ([n, delay]) => {
        const receivedAt = new Date(instantOf(n.at).getTime() + delay);
        const read = parse(n, render(n, { lineBreak: '\n', prefix: '', padLines: false, zeroWidth: false, script: 'plain' }), receivedAt);
        if (read.kind !== 'DEPOSIT' || read.account === null) throw new Error(`not read: ${JSON.stringify(read)}`);
        const other = n.account.slice(0, -1) + String((Number(n.account.at(-1)) + 1) % 10);
        expect([accountMatchesMask(n.account, read.account.masked), accountMatchesMask(other, read.account.masked)]).toEqual([true, false]);
      }),
      { numRuns: 300 },
    );
  });

  it('any mask of any account, stars anywhere, agrees with it position by position', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 9 }), fc.boolean()), { minLength: 2, maxLength: 20 }).filter((ds) => ds.some(([, hidden]) => !hidden)),
        (ds) => {
          const number = ds.map(([d]) => d).join('');
          const mask = ds.map(([d, hidden]) => (hidden ? '*' : String(d))).join('');
          expect(accountMatchesMask(number, mask)).toBe(true);
          const k = ds.findIndex(([, hidden]) => !hidden);
          const changed = number.slice(0, k) + String((Number(number[k]) + 1) % 10) + number.slice(k + 1);
          expect(accountMatchesMask(changed, mask)).toBe(false);
        },
      ),
    );
  });
});

describe('hostile texts never throw and are never deposits', () => {
  const receivedAt = fc.date({ min: new Date('1971-01-01T00:00:00Z'), max: new Date('9998-01-01T00:00:00Z'), noInvalidDate: true });
  const channel = fc.constantFrom('SMS' as const, 'PUSH' as const);
  const sender = fc.option(fc.string({ maxLength: 30 }), { nil: null });
  const neverADeposit = (text: string, at: Date, ch: 'SMS' | 'PUSH', from: string | null) => {
    const read = parseBankText({ text, receivedAt: at, channel: ch, sender: from });
    expect(['UNRECOGNIZED', 'NOT_A_DEPOSIT']).toContain(read.kind);
  };

  it('random strings of any code units, lone surrogates and controls included', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 800 }), receivedAt, channel, sender, neverADeposit), { numRuns: 500 });
  });

  it('random bytes decoded as UTF-8 (with replacement characters) or Latin-1', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1200 }), fc.boolean(), receivedAt, channel, sender, (bytes, utf8, at, ch, from) =>
        neverADeposit(utf8 ? new TextDecoder('utf-8').decode(bytes) : Buffer.from(bytes).toString('latin1'), at, ch, from),
      ),
      { numRuns: 300 },
    );
  });

  it('only digits', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,600}$/), receivedAt, (text, at) => {
        expect(parseBankText({ text, receivedAt: at, channel: 'SMS' })).toEqual({ kind: 'UNRECOGNIZED', reason: 'no parser understands the text' });
      }),
    );
  });

  it(`any text over ${MAX_BANK_TEXT_BYTES} bytes after NFC is refused, a real deposit with a long tail too`, () => {
    const piece = fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), anyLayout.chain((l) => noticeArb(l)).map((n) => render(n, { lineBreak: '\n', prefix: '', padLines: false, zeroWidth: false, script: 'plain' })));
    fc.assert(
      fc.property(piece, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), receivedAt, (head, tail, at) => {
        let text = `${head}\n`;
        while (Buffer.byteLength(text.normalize('NFC')) <= MAX_BANK_TEXT_BYTES) text += tail;
        expect(parseBankText({ text, receivedAt: at, channel: 'SMS' })).toEqual({ kind: 'UNRECOGNIZED', reason: `the text is over ${MAX_BANK_TEXT_BYTES} bytes` });
      }),
      { numRuns: 200 },
    );
  });

  it('mixed scripts and bank words in any order: never a throw, and a deposit only if every field is sound', () => {
    const token = fc.oneof(
      fc.constantFrom('입금', '출금', '잔액', '원', '농협', '[KB]', '신한', '우리', '하나,', '기업', '[카카오뱅크]', '님', '→', '(광고)', '[Web발신]', '적요', '일시', '계좌번호'),
      fc.constantFrom('/', ':', ',', ' ', '\n', '\r\n', '*', '-', '(', ')', '\u200b', '\u3000'),
      fc.integer({ min: 0, max: 99_999 }).map(String),
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.constantFrom('Ωμέγα', 'Привет', 'مرحبا', '漢字', 'かな', '😀', 'ＦＵＬＬ', '홍길동'),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), receivedAt, channel, sender, (tokens, at, ch, from) => {
        const read = parseBankText({ text: tokens.join(''), receivedAt: at, channel: ch, sender: from });
        if (read.kind === 'DEPOSIT') {
          expect(Number.isInteger(read.amount) && read.amount >= 1 && read.amount <= MAX_WON).toBe(true);
          expect(read.occurredAt.getTime()).toBeLessThanOrEqual(at.getTime() + 10 * 60_000);
          expect(read.depositorName.trim()).not.toBe('');
          expect(findBankProvider(read.provider)).toBeDefined();
        } else {
          expect(['UNRECOGNIZED', 'NOT_A_DEPOSIT']).toContain(read.kind);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('real texts mangled (characters dropped, inserted, lines duplicated): never a throw, and a deposit only if every field is sound', () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant('drop' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 5 }) }),
      fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ unit: 'binary', maxLength: 5 }) }),
      fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
    );
    fc.assert(
      fc.property(anyLayout.chain((l) => fc.tuple(noticeArb(l), reshapeArb, delayArb)), fc.array(edit, { minLength: 1, maxLength: 4 }), ([n, r, delay], edits) => {
        const receivedAt = new Date(instantOf(n.at).getTime() + delay);
        let text = render(n, r);
        for (const e of edits) {
          const at = text.length === 0 ? 0 : e.at % text.length;
          if (e.op === 'drop') text = text.slice(0, at) + text.slice(at + e.length);
          else if (e.op === 'insert') text = text.slice(0, at) + e.text + text.slice(at);
          else text = text.slice(0, at) + text.slice(at, at + e.length) + text.slice(at);
        }
        const read = parse(n, text, receivedAt);
        if (read.kind === 'DEPOSIT') {
          expect(Number.isInteger(read.amount) && read.amount >= 1 && read.amount <= MAX_WON).toBe(true);
          expect(read.occurredAt.getTime()).toBeLessThanOrEqual(receivedAt.getTime() + 10 * 60_000);
          expect(read.depositorName.trim()).not.toBe('');
        } else {
          expect(['UNRECOGNIZED', 'NOT_A_DEPOSIT']).toContain(read.kind);
        }
      }),
      { numRuns: 500 },
    );
  });
});
