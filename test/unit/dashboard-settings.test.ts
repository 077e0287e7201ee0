/** The Settings screen's logic outside the browser: a validation refusal in the merchant's words, a business number. */
import { CombinedError } from '@urql/core';
import { describe, expect, it } from 'vitest';
import { corpNumShown } from '../../src/dashboard/screens/settings/business.ts';
import { refusalWords, refusedField } from '../../src/dashboard/screens/settings/refusals.ts';
import { w } from '../../src/dashboard/screens/settings/words.ts';

describe("a refusal in Settings' words", () => {
  it('the field a refusal names: the last segment of its path, from a GraphQL error or a DomainError result', () => {
    const thrown = new CombinedError({ graphQLErrors: [{ message: 'bad', extensions: { code: 'VALIDATION_FAILED', field: ['input', 'corpNum'] } }] });
    expect(refusedField({ error: thrown }, 'registerBusinessInfo')).toBe('corpNum');
    expect(refusedField({ data: { updateBankAccount: { __typename: 'DomainError', field: ['input', 'alias'] } } }, 'updateBankAccount')).toBe('alias');
    expect(refusedField({ data: { updateBankAccount: { __typename: 'DomainError', field: [] } } }, 'updateBankAccount')).toBeNull();
    expect(refusedField({ data: { updateBankAccount: { __typename: 'DomainError', field: null } } }, 'updateBankAccount')).toBeNull();
    expect(refusedField({ data: null }, 'updateBankAccount')).toBeNull();
  });

  it("a validation of a field the screen sends is the field's rule in words; any other keeps the API's message and code", () => {
    const rules = { corpNum: w('ko', 'badCorpNum'), alias: w('en', 'badAlias') };
    const invalid = { code: 'VALIDATION_FAILED', message: 'corpNum: invalid' };
    expect(refusalWords(invalid, 'corpNum', rules)).toBe('사업자등록번호는 숫자 10자리여야 합니다 (하이픈은 빼도 되고 넣어도 됩니다).');
    expect(refusalWords(invalid, 'alias', rules)).toBe('The alias must be 1-50 characters (spaces around it do not count).');
    expect(refusalWords(invalid, 'companyName', rules)).toBe('corpNum: invalid (VALIDATION_FAILED)');
    expect(refusalWords(invalid, null, rules)).toBe('corpNum: invalid (VALIDATION_FAILED)');
    // Another code on a known field is not a rule broken: the API says what happened.
    expect(refusalWords({ code: 'AGENCY_API_FAILED', message: 'The agency refused.' }, 'corpNum', rules)).toBe('The agency refused. (AGENCY_API_FAILED)');
  });
});

describe('a business registration number', () => {
  it('is written as on paper, 3-2-5 digits; another length as stored', () => {
    expect(corpNumShown('1234567890')).toBe('123-45-67890');
    expect(corpNumShown('123456789')).toBe('123456789');
    expect(corpNumShown('')).toBe('');
  });
});
