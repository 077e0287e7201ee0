/**
 * A validation refusal in the merchant's language: the API names the input field at fault (a GraphQL error's
 * `extensions.field`, or a DomainError result's `field`); the screen has the rule in words for each field it sends.
 * Any other refusal keeps the API's message and code.
 */
import type { CombinedError } from '@urql/core';

/** The last segment of the field path a mutation's refusal names ('corpNum', 'alias'), or null. */
export function refusedField(result: { error?: CombinedError | undefined; data?: unknown }, mutation: string): string | null {
  const thrown = result.error?.graphQLErrors[0]?.extensions?.field;
  const inBand = ((result.data as Record<string, unknown> | null | undefined)?.[mutation] as { __typename?: string; field?: unknown } | undefined)?.field;
  const path = thrown ?? inBand;
  return Array.isArray(path) && path.length > 0 ? String(path[path.length - 1]) : null;
}

/** The words for a refusal: the field's rule when the refusal is a validation of a field in `rules`, else the API's. */
export function refusalWords(refusal: { code: string; message: string }, field: string | null, rules: Record<string, string>): string {
  if (refusal.code === 'VALIDATION_FAILED' && field && rules[field]) return rules[field];
  return `${refusal.message} (${refusal.code})`;
}
