/**
 * The onboarding checklist's step states, derived from the API's answer (never kept in the page: a reload resumes
 * where the merchant was). Pure: the screen passes the query's data in.
 */

/** What the checklist reads of OnboardingQuery's answer. */
export interface OnboardingFacts {
  bankAccounts: readonly { verifiedAt: string | null }[];
  historyFeeds: readonly unknown[];
  bankTexts: readonly unknown[];
  viewer: { workspace: { businessInfo: unknown } };
  apiKeys: readonly unknown[];
  webhooks: readonly unknown[];
  paid: { totalItems: number };
}

export interface DoneSteps {
  bankAccount: boolean;
  feed: boolean;
  business: boolean;
  apiKey: boolean;
  webhook: boolean;
  paid: boolean;
}

/** Each step's done state: an account verified, a feed connected or a text received, business info, a key, a webhook, an invoice paid. */
export function doneSteps(d: OnboardingFacts): DoneSteps {
  return {
    bankAccount: d.bankAccounts.some((a) => a.verifiedAt),
    feed: d.historyFeeds.length > 0 || d.bankTexts.length > 0,
    business: d.viewer.workspace.businessInfo !== null,
    apiKey: d.apiKeys.length > 0,
    webhook: d.webhooks.length > 0,
    paid: d.paid.totalItems > 0,
  };
}

/** Every step done: the checklist says so and points to the invoices. */
export const allDone = (done: DoneSteps) => Object.values(done).every(Boolean);

/**
 * Whether the screen reads the API again on a timer: a step that completes from outside (the 1-won verification
 * deposit, the first forwarded text) is open, and there is an account for it to arrive on.
 */
export const watchesDeposits = (d: OnboardingFacts, done: DoneSteps) => d.bankAccounts.length > 0 && (!done.bankAccount || !done.feed);
