import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, renderV1, renderV2, type ErrorCode } from '../../src/domain/errors.ts';

// The spec's v1 error table: HTTP status per v1 code.
const SPEC_V1: Record<string, number> = {
  NOT_AUTHORIZED: 401,
  INSUFFICIENT_PERMISSIONS: 403,
  BANK_ACCOUNT_NOT_VERIFIED: 403,
  INVOICE_ALREADY_PAID: 403,
  LIMIT_EXCEEDS_MAXIMUM: 403,
  BANK_ACCOUNT_NOT_FOUND: 404,
  INVOICE_NOT_FOUND: 404,
  TRANSACTION_NOT_FOUND: 404,
  BUSINESS_INFO_NOT_REGISTERED: 404,
  INVOICE_ALREADY_EXISTS: 409,
  INVALID_CUSTOMER_NAME: 422,
  INVALID_EMAIL: 422,
  INVALID_PHONE_NUMBER: 422,
  INVALID_AMOUNT: 422,
  INVALID_DURATION: 422,
  EXPIRE_AFTER_EXCEEDS_MAXIMUM: 422,
  METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED: 422,
  METADATA_KEY_LENGTH_LIMIT_EXCEEDED: 422,
  METADATA_VALUE_LENGTH_LIMIT_EXCEEDED: 422,
  INVALID_OFFSET: 422,
  INVALID_LIMIT: 422,
  INVALID_DATE_RANGE_FORMAT: 422,
  INVALID_CASH_RECEIPT_IDENTIFIER: 422,
  INVALID_CASH_RECEIPT_AMOUNT: 422,
  BAD_REQUEST: 400,
  AGENCY_API_FAILED: 500,
  INTERNAL_SERVER_ERROR: 500,
};

// The spec's v2 error table: HTTP status per v2 code.
const SPEC_V2: Record<string, number> = {
  '290006': 401, '290007': 403, '80002': 403, '20014': 404, '20015': 404, '220010': 409, '220011': 409, '220022': 409,
  '220023': 409, '240005': 409, '240006': 409, '240007': 409, '240020': 409, '30007': 422, '30009': 422, '220001': 422,
  '220018': 422, '220020': 422, '240001': 422, '240002': 422, '240003': 422, '240004': 422, '240008': 422, '240010': 422,
  '240018': 422, '240009': 502,
};

const codes = Object.keys(ERROR_TABLE) as ErrorCode[];

describe('one error table, three renderings', () => {
  it('every v1 code of the spec is produced by some domain code, with the spec status', () => {
    for (const [v1, status] of Object.entries(SPEC_V1)) {
      const producers = codes.filter((c) => ERROR_TABLE[c].v1.code === v1);
      expect(producers.length, `no domain code renders v1 ${v1}`).toBeGreaterThan(0);
      for (const c of producers) expect(ERROR_TABLE[c].v1.status, `${c} → ${v1}`).toBe(status);
    }
  });

  it('every v2 code of the spec is produced by some domain code, with the spec status', () => {
    for (const [v2, status] of Object.entries(SPEC_V2)) {
      const producers = codes.filter((c) => ERROR_TABLE[c].v2.code === v2);
      expect(producers.length, `no domain code renders v2 ${v2}`).toBeGreaterThan(0);
      for (const c of producers) expect(ERROR_TABLE[c].v2.status, `${c} → ${v2}`).toBe(status);
    }
  });

  it('the v2 invoice field codes 220002-220009 are all used', () => {
    for (let n = 220002; n <= 220009; n++) expect(codes.some((c) => ERROR_TABLE[c].v2.code === String(n)), String(n)).toBe(true);
  });

  it('v2 codes are numeric strings; v1 codes are upper snake case', () => {
    for (const c of codes) {
      expect(ERROR_TABLE[c].v2.code).toMatch(/^\d+$/);
      expect(ERROR_TABLE[c].v1.code).toMatch(/^[A-Z_]+$/);
    }
  });

  it('renderV1 gives {code, data: null}; renderV2 carries data', () => {
    expect(renderV1('INVOICE_ALREADY_EXISTS')).toEqual({ status: 409, body: { code: 'INVOICE_ALREADY_EXISTS', data: null } });
    expect(renderV2('INVOICE_ALREADY_EXISTS', { invoiceId: 'ivc_x', number: 3 })).toEqual({ status: 409, body: { code: '220010', data: { invoiceId: 'ivc_x', number: 3 } } });
    expect(renderV1('READ_ONLY_KEY')).toEqual({ status: 403, body: { code: 'INSUFFICIENT_PERMISSIONS', data: null } });
    expect(renderV2('READ_ONLY_KEY').body.code).toBe('290007');
    expect(renderV2('OUT_OF_SCOPE')).toEqual({ status: 403, body: { code: '80002', data: null } });
  });
});
