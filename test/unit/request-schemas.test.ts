/**
 * The request parsers are zod schemas whose first failing field (in the spec's order) becomes the DomainError:
 * code, path and message as the faces render them (v1/v2 codes, GraphQL `extensions.field`, bank-notification `field`).
 */
import { describe, expect, it } from 'vitest';
import { resolveReissue } from '../../src/domain/cash-receipts/reissue.ts';
import { parseCancelRequest, parseIssueRequest, parseReissueRequest, parseSendEmailRequest } from '../../src/domain/cash-receipts/requests.ts';
import { parseBankNotification } from '../../src/domain/deposits/bank-notification.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { parseCancelInvoiceRequest, parseCreateInvoiceInput } from '../../src/domain/invoices/invoice-input.ts';
import { parseInvoiceChanges } from '../../src/domain/invoices/update-invoice.ts';
import { V2_EXPIRES_AT } from '../../rest-compat/v2/wire.ts';

function refusal(f: () => unknown): { code: string; path: string[] | null; message: string } | null {
  try {
    f();
    return null;
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return { code: e.code, path: e.path, message: e.message };
  }
}

const invoice = { bankAccountIds: [], customer: { name: '홍길동' }, amount: 1000 };
const now = new Date('2026-11-22T00:00:00Z');

describe('request schemas: the first failing field decides (code, path, message)', () => {
  it.each([
    ['create: not an object', () => parseCreateInvoiceInput('x'), 'BAD_REQUEST', null],
    ['create: an id that is not a string reports at bankAccountIds', () => parseCreateInvoiceInput({ ...invoice, bankAccountIds: ['bac_a', 5] }), 'INVALID_BANK_ACCOUNT_IDS', ['bankAccountIds']],
    ['create: no customer reports at customer.name', () => parseCreateInvoiceInput({ ...invoice, customer: null }), 'INVALID_CUSTOMER_NAME', ['customer', 'name']],
    ['create: a customer that is not an object reports at customer', () => parseCreateInvoiceInput({ ...invoice, customer: 'x' }), 'INVALID_CUSTOMER_NAME', ['customer']],
    ['create: name before amount', () => parseCreateInvoiceInput({ ...invoice, customer: { name: '' }, amount: 0 }), 'INVALID_CUSTOMER_NAME', ['customer', 'name']],
    ['create: cash receipt type before identifier', () => parseCreateInvoiceInput({ ...invoice, cashReceipt: { type: 'X', identifier: 5 } }), 'INVALID_CASH_RECEIPT_TYPE', ['cashReceipt', 'type']],
    ['create: identifier unfit for its type', () => parseCreateInvoiceInput({ ...invoice, cashReceipt: { type: 'CORPORATE', identifier: '01012345678' } }), 'INVALID_CASH_RECEIPT_IDENTIFIER', ['cashReceipt', 'identifier']],
    ['create: a metadata value that is not a string reports at metadata', () => parseCreateInvoiceInput({ ...invoice, metadata: { ['k'.repeat(65)]: 'v', b: 1 } }), 'INVALID_METADATA', ['metadata']],
    ['create: a metadata key too long reports at its key', () => parseCreateInvoiceInput({ ...invoice, metadata: { ['k'.repeat(65)]: 'v' } }), 'METADATA_KEY_LENGTH_LIMIT_EXCEEDED', ['metadata', 'k'.repeat(65)]],
    ['update: nothing to change', () => parseInvoiceChanges({ customer: {} }, now), 'NO_FIELD_TO_CHANGE', null],
    ['update: expiresAt in the past', () => parseInvoiceChanges({ expiresAt: new Date(now.getTime() - 1) }, now), 'INVALID_EXPIRES_AT', ['expiresAt']],
    ['update: expiresAt not a Date (the domain takes instants, not Unix seconds)', () => parseInvoiceChanges({ expiresAt: now.getTime() / 1000 + 60 }, now), 'INVALID_EXPIRES_AT', ['expiresAt']],
    ['update (v2 seconds): expiresAt in the past', () => parseInvoiceChanges({ expiresAt: now.getTime() / 1000 - 1 }, now, V2_EXPIRES_AT), 'INVALID_EXPIRES_AT', ['expiresAt']],
    ['update (v2 seconds): expiresAt before extendDays', () => parseInvoiceChanges({ expiresAt: 'soon', extendDays: 0 }, now, V2_EXPIRES_AT), 'INVALID_EXPIRES_AT', ['expiresAt']],
    ['update: resendGuideEmail not a boolean', () => parseInvoiceChanges({ amount: 5, resendGuideEmail: 'yes' }, now), 'BAD_REQUEST', ['resendGuideEmail']],
    ['issue: identifier before amount (the fit is judged once type is known)', () => parseIssueRequest({ type: 'PERSONAL', identifier: '12', amount: 1.5 }), 'INVALID_CASH_RECEIPT_IDENTIFIER', ['identifier']],
    ['receipt cancel: no body → reason is required', () => parseCancelRequest(undefined), 'BAD_REQUEST', ['reason']],
    ['receipt cancel: a blank reason', () => parseCancelRequest({ reason: '  ' }), 'RECEIPT_CANCEL_REASON_INVALID', ['reason']],
    ['reissue: self-issued as CORPORATE (original type)', () => resolveReissue(parseReissueRequest({ selfIssued: true }), 'CORPORATE'), 'RECEIPT_INVALID_TYPE', ['selfIssued']],
    ['reissue: self-issued as CORPORATE (requested type)', () => resolveReissue(parseReissueRequest({ selfIssued: true, type: 'CORPORATE' }), 'PERSONAL'), 'RECEIPT_INVALID_TYPE', ['selfIssued']],
    ['reissue: type before selfIssued', () => parseReissueRequest({ type: 'X', selfIssued: 'x' }), 'RECEIPT_INVALID_TYPE', ['type']],
    ['reissue: selfIssued not a boolean', () => parseReissueRequest({ selfIssued: 'x' }), 'BAD_REQUEST', ['selfIssued']],
    ['reissue: identifier missing', () => resolveReissue(parseReissueRequest({}), 'PERSONAL'), 'RECEIPT_INVALID_IDENTIFIER', ['identifier']],
    ['reissue: identifier unfit for the original type', () => resolveReissue(parseReissueRequest({ identifier: '01012345678' }), 'CORPORATE'), 'RECEIPT_INVALID_IDENTIFIER', ['identifier']],
    ['bank notification: receivedAt without a zone', () => parseBankNotification({ notificationId: 'n', depositorName: 'a', amount: 1, receivedAt: '2026-11-21T19:00:00' }), 'VALIDATION_FAILED', ['receivedAt']],
    ['invoice cancel: reason over 200 characters', () => parseCancelInvoiceRequest({ reason: 'r'.repeat(201) }), 'CANCEL_REASON_TOO_LONG', ['reason']],
    ['invoice cancel: reason not text', () => parseCancelInvoiceRequest({ reason: 5 }), 'BAD_REQUEST', ['reason']],
    ['send-email: no email', () => parseSendEmailRequest({}), 'BAD_REQUEST', ['email']],
    ['send-email: not an address', () => parseSendEmailRequest({ email: 'nope' }), 'RECEIPT_EMAIL_INVALID', ['email']],
    ['send-email: longer than 100 characters', () => parseSendEmailRequest({ email: `${'a'.repeat(95)}@b.com` }), 'RECEIPT_EMAIL_INVALID', ['email']],
    ['send-email: a body that is not an object', () => parseSendEmailRequest('x'), 'BAD_REQUEST', null],
  ])('%s → %s %j', (_name, f, code, path) => {
    expect(refusal(f)).toMatchObject({ code, path });
  });

  it('messages the spec returns are kept (bank notifications, required fields)', () => {
    expect(refusal(() => parseBankNotification({ notificationId: '', depositorName: 'a', amount: 1, receivedAt: '2026-11-21T19:00:00Z' }))?.message).toBe(
      'notificationId must be a string of 1-200 characters.',
    );
    expect(refusal(() => parseCancelRequest({}))?.message).toBe('reason is required.');
    expect(refusal(() => parseSendEmailRequest(undefined))?.message).toBe('email is required.');
    expect(refusal(() => resolveReissue(parseReissueRequest({ selfIssued: true }), 'CORPORATE'))?.message).toBe('A self-issued receipt cannot be CORPORATE.');
    expect(refusal(() => parseCreateInvoiceInput({ ...invoice, amount: 0 }))?.message).toBe('amount must be a whole number of won greater than 0 (at most 2,147,483,647).');
  });

  it('parsed values are the ones the domain uses (deduplicated ids, trimmed depositor, defaults)', () => {
    expect(parseCreateInvoiceInput({ ...invoice, bankAccountIds: ['bac_a', 'bac_a'], expireAfter: '1h' })).toEqual({
      bankAccountIds: ['bac_a'],
      customer: { name: '홍길동', email: null, phoneNumber: null },
      amount: 1000,
      cashReceipt: null,
      expireAfterMs: 3_600_000,
      metadata: null,
    });
    expect(parseBankNotification({ notificationId: 'n', depositorName: ' 홍길동 ', amount: 5, receivedAt: '2026-11-21T19:00:00+09:00' })).toEqual({
      notificationId: 'n',
      depositorName: '홍길동',
      amount: 5,
      receivedAt: new Date('2026-11-21T10:00:00Z'),
    });
    expect(parseInvoiceChanges({ customer: { email: null }, extendDays: 3 }, now)).toEqual({ resendGuideEmail: false, customer: { email: null }, extendDays: 3 });
    const at = new Date(now.getTime() + 60_123);
    expect(parseInvoiceChanges({ expiresAt: at }, now)).toEqual({ resendGuideEmail: false, expiresAt: at });
    expect(parseInvoiceChanges({ expiresAt: now.getTime() / 1000 + 60, resendGuideEmail: true }, now, V2_EXPIRES_AT)).toEqual({ resendGuideEmail: true, expiresAt: new Date(now.getTime() + 60_000) });
    expect(resolveReissue(parseReissueRequest({ selfIssued: true, identifier: 5 }), 'PERSONAL')).toEqual({ type: 'PERSONAL', identifier: '0100001234', selfIssued: true });
    expect(resolveReissue(parseReissueRequest({ identifier: '1234567890' }), 'CORPORATE')).toEqual({ type: 'CORPORATE', identifier: '1234567890', selfIssued: false });
    expect(parseCancelInvoiceRequest(undefined)).toEqual({ reason: null });
    expect(parseCancelRequest({ reason: 'x' })).toEqual({ reason: 'x', amount: null });
  });
});
