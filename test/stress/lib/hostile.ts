/**
 * Hostile values for the fuzzer: boundary numbers, strings that break parsers, encodings and databases (NUL, lone
 * surrogates, combining marks, huge), prototype-pollution keys, raw JSON that JSON.stringify cannot produce (1e400,
 * duplicate keys, deep nesting), invalid UTF-8 bytes, wrong content types and credentials of every kind.
 * None of them contains text the leak checks look for (stack frames, source paths), so an echo cannot trip them.
 */
import fc from 'fast-check';

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', '__defineGetter__', 'hasOwnProperty', 'toString', 'valueOf', 'isAdmin'];

const rep = (s: string, n: number) => s.repeat(n);

export const HOSTILE_STRINGS: string[] = [
  '', ' ', '  ', '\t', '\n', '\r\n', '\u0000', 'a\u0000b', '\u0000\u0000\u0000', '\u0001\u0002\u001f', '\u007f', '\u00a0', '\u2028\u2029', '\ufeff', '\ufeffabc', '\ufffd', '\uffff', '\ufffe',
  '\ud800', '\udc00', 'a\ud800', '\udfffa', '\udbff\udfff', '😀', '👨‍👩‍👧‍👦', 'é', 'e\u0301', '홍길동', '홍 길동', '(주)홍길동', '홍길동(주)', 'ﾎﾝﾀﾞ', 'İ', 'ß', '\u202eabc', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǵ̗͚̇͂o̮',
  ...PROTO_KEYS,
  'null', 'undefined', 'true', 'false', 'NaN', 'Infinity', '-Infinity', '0', '-0', '00', '01', '1e3', '1e309', '-1', '0x10', '1_000', '2147483647', '2147483648', '-2147483649',
  '9007199254740993', '99999999999999999999999', '1.5', ' 1', '1 ', '+1', '１２３', '٣', '1,000',
  '%', '%00', '%zz', '%E0%A4%A', '%2F', '%252F', '..', '../..', '/', '//', '\\', '?', '#', '&', '=', '+', ';', ',', '*', '%s%s%s%n', '{{7*7}}', '${7*7}', '<script>alert(1)</script>',
  "' OR '1'='1", '"; DROP TABLE "Invoice"; --', "\\'", '\\u0000', '\\', '`', '$where', '{"$gt": ""}', '[]', '{}', 'Robert\'); --',
  'ivc_', 'ivc_000000000000000000000000', `ivc_${rep('z', 24)}`, 'IVC_000000000000000000000000', `ivc_${rep('a', 23)}`, `ivc_${rep('a', 25)}`, 'trx_000000000000000000000000', 'crt_000000000000000000000000',
  'bac_000000000000000000000000', 'whd_000000000000000000000000', 'oap_000000000000000000000000', 'sk_live_', `sk_live_${rep('x', 40)}`, 'oat_x', 'sess_x', 'Bearer',
  'PT30M', 'P1D', 'P366D', 'P365D', 'P0D', 'PT0S', '1d 6h 20m', '0m', '-1d', 'P1Y', 'P99999999999D', 'PT1.5H', '366d', '365d', '8760h', '8761h', '525600m', '525601m', 'P1W', 'P53W', '1d1d', 'd',
  '2026-01-01', '2026-13-01', '2026-02-30', '0000-00-00', '9999-12-31', '2026-1-1', '20260101', '2026-01-01T00:00:00Z', '+275760-09-13', '2026-11-21T10:00:00.000Z', '1970-01-01T00:00:00+09:00',
  'PERSONAL', 'CORPORATE', 'personal', 'PENDING', 'ISSUED', 'FAILED', 'REVOKED', 'CANCELED', 'PAID', 'EXPIRED', 'V1', 'V2', 'EXACT', 'MANUAL', 'SHINHAN', 'KAKAOBANK',
  'a@b.co', 'a@b', '@', 'a@b.c\u0000', `${rep('a', 64)}@example.com`, `x@${rep('y', 250)}.com`, 'buyer@example.com',
  '01012345678', '0101234567', '010-1234-5678', '1234567890', '12345678901', '123456789012', '123-45-67890',
  'http://127.0.0.1/', 'http://169.254.169.254/latest/meta-data', 'https://hooks.example.com/x', 'javascript:alert(1)', 'http://[::1]/', 'http://localhost:4000/graphql', 'ftp://x', 'https://', 'https://exa mple.com',
  rep('a', 16), rep('a', 17), rep('a', 64), rep('a', 65), rep('a', 100), rep('a', 101), rep('a', 200), rep('a', 201), rep('a', 255), rep('a', 256), rep('a', 1024), rep('a', 1025),
  rep('가', 16), rep('가', 17), rep('😀', 16), rep('😀', 17), rep('😀', 64), rep('😀', 65), rep('😀', 1024), rep('😀', 1025), rep('x', 100_000), rep('\u0000', 1000),
];

/** Numbers at and around every limit the spec names (amount, limit/offset, extendDays, Int32, safe integers). */
export const BOUNDARY_NUMBERS: number[] = [
  0, -0, 1, -1, 2, 5, 6, 10, 11, 20, 99, 100, 101, 200, 364, 365, 366, 1000, 1024, 1025, 10_000, 2_147_483_646, 2_147_483_647, 2_147_483_648, -2_147_483_648, -2_147_483_649, 4_294_967_296,
  Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, Number.MIN_SAFE_INTEGER, 1e21, 1e300, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE, 0.5, 1.5, 99.999, 1e-7, 1_700_000_000, 1_900_000_000, 4_102_444_800,
];

/** JSON number tokens JSON.stringify cannot write. */
export const RAW_NUMBER_TOKENS = ['1e400', '-1e400', '1E2', '1.0', '100.0', '-0.0', '123456789012345678901234567890', '0.00000000000000000000000001', '2147483647.0000000001', '1e-400', '5e-324'];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 40)), fc.constantFrom(...HOSTILE_STRINGS.filter((s) => s.length < 40))).map(([a, b]) => a + b) },
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...BOUNDARY_NUMBERS) },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Any JSON value, with hostile leaves and prototype-pollution keys. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc
      .array(fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), hostileString), tie('value')), { maxLength: 4 })
      .map((pairs) => {
        const o: Record<string, unknown> = {};
        for (const [k, v] of pairs) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
        return o;
      }),
  ),
})).value;

/** A raw JSON text: nested `depth` levels of objects or arrays around a leaf (JSON.stringify would recurse). */
export function deepJsonText(depth: number, kind: 'object' | 'array' | 'mixed', leaf = '1'): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let i = 0; i < depth; i++) {
    const obj = kind === 'object' || (kind === 'mixed' && i % 2 === 0);
    open.push(obj ? '{"a":' : '[');
    close.push(obj ? '}' : ']');
  }
  return open.join('') + leaf + close.reverse().join('');
}

/**
 * A JSON text for `value` where some places are replaced by raw tokens JSON.stringify cannot produce: big or
 * imprecise numbers, duplicate keys (the last wins in JSON.parse), `__proto__` as a literal key.
 */
export function withRawTokens(value: unknown, pick: (n: number) => number): string {
  const write = (v: unknown, depth: number): string => {
    // Array.from, not v.map: a mutated array may carry an own `constructor` key (map would consult its species).
    if (Array.isArray(v)) return `[${Array.from(v, (x) => write(x, depth + 1)).join(',')}]`;
    if (v && typeof v === 'object') {
      const parts = Object.keys(v).map((k) => `${JSON.stringify(k)}:${write((v as Record<string, unknown>)[k], depth + 1)}`);
      const r = pick(10);
      if (r === 0 && parts.length) parts.push(parts[0].replace(/:.*/s, ':' + RAW_NUMBER_TOKENS[pick(RAW_NUMBER_TOKENS.length)]));
      if (r === 1) parts.unshift(`"__proto__":{"polluted":"yes","amount":1}`);
      return `{${parts.join(',')}}`;
    }
    if (typeof v === 'number' && pick(4) === 0) return RAW_NUMBER_TOKENS[pick(RAW_NUMBER_TOKENS.length)];
    return JSON.stringify(v) ?? 'null';
  };
  return write(value, 0);
}

/** Byte sequences that are not UTF-8 (overlong NUL, lone surrogate, truncated sequences, 0xFF). */
export const INVALID_UTF8: number[][] = [[0xff], [0xfe, 0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe0, 0xa4], [0xf0, 0x9f, 0x98], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc3]];

/** `text` as UTF-8 with invalid bytes spliced in at `at` (a fraction of the length). */
export function spliceInvalidUtf8(text: string, at: number, bytes: number[]): Uint8Array {
  const utf8 = Buffer.from(text, 'utf8');
  const i = Math.min(utf8.length, Math.max(0, Math.floor(at * utf8.length)));
  return new Uint8Array(Buffer.concat([utf8.subarray(0, i), Buffer.from(bytes), utf8.subarray(i)]));
}

export const CONTENT_TYPES: (string | null)[] = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/merge-patch+json',
  'application/graphql-response+json',
  'application/graphql',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/xml',
  '*/*',
  '',
  'garbage',
  'a/b/c; x=',
  null,
];

export const ACCEPTS: (string | null)[] = [null, 'application/json', '*/*', 'text/html', 'application/graphql-response+json', 'application/xml', 'garbage', 'application/json;q=0, */*;q=0.1'];
