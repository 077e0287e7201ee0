/**
 * The seven bank providers we accept (spec: bankAccount.provider, "one of seven bank identifiers in upper snake
 * case"), with the data matching needs: how many characters of the depositor name each bank's notification keeps.
 * NAME_PREFIX matching (a truncated depositor name) uses `depositorNameLength`, never a magic number.
 */
export interface BankProvider {
  /** Identifier used in the API. */
  id: string;
  /** Korean display name. */
  displayName: string;
  /** Characters of the depositor name the bank keeps in its deposit notification. */
  depositorNameLength: number;
}

export const BANK_PROVIDERS = [
  { id: 'KB_KOOKMIN', displayName: 'KB국민은행', depositorNameLength: 8 },
  { id: 'SHINHAN', displayName: '신한은행', depositorNameLength: 7 },
  { id: 'WOORI', displayName: '우리은행', depositorNameLength: 7 },
  { id: 'HANA', displayName: '하나은행', depositorNameLength: 7 },
  { id: 'NH_NONGHYUP', displayName: 'NH농협은행', depositorNameLength: 6 },
  { id: 'IBK', displayName: 'IBK기업은행', depositorNameLength: 7 },
  { id: 'KAKAOBANK', displayName: '카카오뱅크', depositorNameLength: 10 },
] as const satisfies readonly BankProvider[];

export type BankProviderId = (typeof BANK_PROVIDERS)[number]['id'];

const byId = new Map<string, BankProvider>(BANK_PROVIDERS.map((p) => [p.id, p]));

export function findBankProvider(id: string): BankProvider | undefined {
  return byId.get(id);
}

export function isBankProviderId(id: string): id is BankProviderId {
  return byId.has(id);
}
