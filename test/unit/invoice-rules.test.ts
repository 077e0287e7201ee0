import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { parseCreateInvoiceInput } from '../../src/domain/invoices/invoice-input.ts';
import { INVOICE_TRANSITIONS, assertTransitionAllowed, effectiveStatus, type InvoiceStatusName } from '../../src/domain/invoices/invoice-state.ts';

const valid = { bankAccountIds: [], customer: { name: '홍길동' }, amount: 1000 };

function codeOf(raw: unknown): string | null {
  try {
    parseCreateInvoiceInput(raw);
    return null;
  } catch (e) {
    return (e as DomainError).code;
  }
}

describe('invoice creation rules (spec: POST /v1/invoices)', () => {
  it.each([
    ['valid minimal', valid, null],
    ['not an object', [1], 'BAD_REQUEST'],
    ['bankAccountIds missing', { ...valid, bankAccountIds: undefined }, 'INVALID_BANK_ACCOUNT_IDS'],
    ['bankAccountIds not strings', { ...valid, bankAccountIds: [1] }, 'INVALID_BANK_ACCOUNT_IDS'],
    ['name 16 characters', { ...valid, customer: { name: '가'.repeat(16) } }, null],
    ['name 17 characters', { ...valid, customer: { name: '가'.repeat(17) } }, 'INVALID_CUSTOMER_NAME'],
    ['name empty', { ...valid, customer: { name: '' } }, 'INVALID_CUSTOMER_NAME'],
    ['name with a space', { ...valid, customer: { name: '홍 길동' } }, 'INVALID_CUSTOMER_NAME'],
    ['name with a tab', { ...valid, customer: { name: '홍\t길동' } }, 'INVALID_CUSTOMER_NAME'],
    ['name missing', { ...valid, customer: {} }, 'INVALID_CUSTOMER_NAME'],
    ['customer missing', { ...valid, customer: undefined }, 'INVALID_CUSTOMER_NAME'],
    ['email 5 characters', { ...valid, customer: { name: 'a', email: 'a@b.c' } }, null],
    ['email 4 characters', { ...valid, customer: { name: 'a', email: 'a@bc' } }, 'INVALID_EMAIL'],
    ['email 256 characters', { ...valid, customer: { name: 'a', email: 'a'.repeat(250) + '@b.com' } }, 'INVALID_EMAIL'],
    ['email without @', { ...valid, customer: { name: 'a', email: 'abcdef.com' } }, 'INVALID_EMAIL'],
    ['phone 10 digits', { ...valid, customer: { name: 'a', phoneNumber: '0212345678' } }, null],
    ['phone 11 digits', { ...valid, customer: { name: 'a', phoneNumber: '01012345678' } }, null],
    ['phone 9 digits', { ...valid, customer: { name: 'a', phoneNumber: '012345678' } }, 'INVALID_PHONE_NUMBER'],
    ['phone 12 digits', { ...valid, customer: { name: 'a', phoneNumber: '010123456789' } }, 'INVALID_PHONE_NUMBER'],
    ['phone with hyphens', { ...valid, customer: { name: 'a', phoneNumber: '010-1234-5678' } }, 'INVALID_PHONE_NUMBER'],
    ['amount 0', { ...valid, amount: 0 }, 'INVALID_AMOUNT'],
    ['amount -1', { ...valid, amount: -1 }, 'INVALID_AMOUNT'],
    ['amount 1.5', { ...valid, amount: 1.5 }, 'INVALID_AMOUNT'],
    ['amount as text', { ...valid, amount: '1000' }, 'INVALID_AMOUNT'],
    ['amount at the column maximum', { ...valid, amount: 2_147_483_647 }, null],
    ['amount over the column', { ...valid, amount: 2_147_483_648 }, 'INVALID_AMOUNT'],
    ['cashReceipt PERSONAL with a phone', { ...valid, cashReceipt: { type: 'PERSONAL', identifier: '01012345678' } }, null],
    ['cashReceipt CORPORATE with 10 digits', { ...valid, cashReceipt: { type: 'CORPORATE', identifier: '1234567890' } }, null],
    ['cashReceipt CORPORATE with 11 digits', { ...valid, cashReceipt: { type: 'CORPORATE', identifier: '12345678901' } }, 'INVALID_CASH_RECEIPT_IDENTIFIER'],
    ['cashReceipt PERSONAL with 9 digits', { ...valid, cashReceipt: { type: 'PERSONAL', identifier: '010123456' } }, 'INVALID_CASH_RECEIPT_IDENTIFIER'],
    ['cashReceipt type outside the enum', { ...valid, cashReceipt: { type: 'OTHER', identifier: '1234567890' } }, 'INVALID_CASH_RECEIPT_TYPE'],
    ['expireAfter 365d', { ...valid, expireAfter: '365d' }, null],
    ['expireAfter 366d', { ...valid, expireAfter: '366d' }, 'EXPIRE_AFTER_EXCEEDS_MAXIMUM'],
    ['expireAfter P366D', { ...valid, expireAfter: 'P366D' }, 'EXPIRE_AFTER_EXCEEDS_MAXIMUM'],
    ['expireAfter unparsable', { ...valid, expireAfter: 'soon' }, 'INVALID_DURATION'],
    ['expireAfter zero', { ...valid, expireAfter: '0m' }, 'INVALID_DURATION'],
    ['metadata 5 pairs', { ...valid, metadata: { a: '1', b: '2', c: '3', d: '4', e: '5' } }, null],
    ['metadata 6 pairs', { ...valid, metadata: { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6' } }, 'METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED'],
    ['metadata key 64', { ...valid, metadata: { ['k'.repeat(64)]: 'v' } }, null],
    ['metadata key 65', { ...valid, metadata: { ['k'.repeat(65)]: 'v' } }, 'METADATA_KEY_LENGTH_LIMIT_EXCEEDED'],
    ['metadata value 1024', { ...valid, metadata: { k: 'v'.repeat(1024) } }, null],
    ['metadata value 1025', { ...valid, metadata: { k: 'v'.repeat(1025) } }, 'METADATA_VALUE_LENGTH_LIMIT_EXCEEDED'],
    ['metadata value not a string', { ...valid, metadata: { k: 1 } }, 'INVALID_METADATA'],
  ])('%s → %s', (_name, raw, code) => {
    expect(codeOf(raw)).toBe(code);
  });

  it('fields are checked in the order of the spec table (name before amount)', () => {
    expect(codeOf({ ...valid, customer: { name: '' }, amount: 0 })).toBe('INVALID_CUSTOMER_NAME');
  });

  it('a __proto__ metadata key stays a plain key', () => {
    const input = parseCreateInvoiceInput(JSON.parse('{"bankAccountIds":[],"customer":{"name":"a"},"amount":1,"metadata":{"__proto__":"x"}}'));
    expect(Object.keys(input.metadata!)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(input.metadata)).toBe(Object.prototype);
  });
});

describe('the invoice state machine (spec: States — Invoice)', () => {
  const now = new Date('2026-11-22T00:00:00Z');
  const at: Record<InvoiceStatusName, { status: 'PENDING' | 'PAID' | 'CANCELED'; expiresAt: Date | null }> = {
    PENDING: { status: 'PENDING', expiresAt: null },
    EXPIRED: { status: 'PENDING', expiresAt: new Date('2026-11-21T00:00:00Z') },
    PAID: { status: 'PAID', expiresAt: null },
    CANCELED: { status: 'CANCELED', expiresAt: null },
  };

  it('EXPIRED is a pending invoice past expiresAt', () => {
    expect(effectiveStatus(at.EXPIRED, now)).toBe('EXPIRED');
    expect(effectiveStatus({ status: 'PENDING', expiresAt: new Date('2026-11-23T00:00:00Z') }, now)).toBe('PENDING');
    expect(effectiveStatus({ status: 'PAID', expiresAt: new Date('2026-11-21T00:00:00Z') }, now)).toBe('PAID');
  });

  const expected: Record<string, Record<InvoiceStatusName, string | null>> = {
    DEPOSIT_MATCH: { PENDING: null, EXPIRED: 'INVOICE_NOT_PENDING', PAID: 'INVOICE_ALREADY_PAID', CANCELED: 'INVOICE_NOT_PENDING' },
    MARK_AS_PAID: { PENDING: null, EXPIRED: null, PAID: 'INVOICE_ALREADY_PAID', CANCELED: 'INVOICE_CANCELED' },
    UPDATE: { PENDING: null, EXPIRED: 'INVOICE_NOT_PENDING', PAID: 'INVOICE_NOT_PENDING', CANCELED: 'INVOICE_NOT_PENDING' },
    CANCEL: { PENDING: null, EXPIRED: null, PAID: 'INVOICE_NOT_PENDING', CANCELED: 'INVOICE_NOT_PENDING' },
    DELETE_V1: { PENDING: null, EXPIRED: null, PAID: 'INVOICE_ALREADY_PAID', CANCELED: 'INVOICE_NOT_FOUND' },
    UNMATCH: { PENDING: 'TRANSACTION_NOT_MATCHED', EXPIRED: 'TRANSACTION_NOT_MATCHED', PAID: null, CANCELED: 'TRANSACTION_NOT_MATCHED' },
  };

  for (const trigger of Object.keys(INVOICE_TRANSITIONS) as (keyof typeof INVOICE_TRANSITIONS)[]) {
    for (const from of Object.keys(at) as InvoiceStatusName[]) {
      it(`${trigger} from ${from} → ${expected[trigger][from] ?? INVOICE_TRANSITIONS[trigger].to}`, () => {
        let code: string | null = null;
        try {
          assertTransitionAllowed(trigger, at[from], now);
        } catch (e) {
          code = (e as DomainError).code;
        }
        expect(code).toBe(expected[trigger][from]);
      });
    }
  }
});
