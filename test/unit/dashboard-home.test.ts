/** The home screen's logic outside the browser: the onboarding checklist's step states from the API's answer. */
import { describe, expect, it } from 'vitest';
import { allDone, doneSteps, watchesDeposits, type OnboardingFacts } from '../../src/dashboard/screens/home/steps.ts';

const NEW: OnboardingFacts = { bankAccounts: [], historyFeeds: [], bankTexts: [], viewer: { workspace: { businessInfo: null } }, apiKeys: [], webhooks: [], paid: { totalItems: 0 } };
const ALL: OnboardingFacts = {
  bankAccounts: [{ verifiedAt: '2026-11-26T01:00:00Z' }],
  historyFeeds: [{ id: 'hfd_1' }],
  bankTexts: [],
  viewer: { workspace: { businessInfo: { corpNum: '1234567890' } } },
  apiKeys: [{ id: 'key_1' }],
  webhooks: [{ id: 'whk_1' }],
  paid: { totalItems: 1 },
};

describe('the onboarding checklist', () => {
  it('a new workspace has no step done, and nothing to watch before an account exists', () => {
    const done = doneSteps(NEW);
    expect(done).toEqual({ bankAccount: false, feed: false, business: false, apiKey: false, webhook: false, paid: false });
    expect(allDone(done)).toBe(false);
    expect(watchesDeposits(NEW, done)).toBe(false);
  });

  it('an account registered but not verified: its step open, the API read again for the 1-won deposit', () => {
    const d = { ...NEW, bankAccounts: [{ verifiedAt: null }] };
    expect(doneSteps(d).bankAccount).toBe(false);
    expect(watchesDeposits(d, doneSteps(d))).toBe(true);
    // One verified account among others is enough.
    const two = { ...NEW, bankAccounts: [{ verifiedAt: null }, { verifiedAt: '2026-11-26T01:00:00Z' }] };
    expect(doneSteps(two).bankAccount).toBe(true);
  });

  it('the feed step is done by a connected history feed or by a first bank text, either', () => {
    expect(doneSteps({ ...NEW, historyFeeds: [{}] }).feed).toBe(true);
    expect(doneSteps({ ...NEW, bankTexts: [{}] }).feed).toBe(true);
    // Verified but no feed yet: still watching for the first text.
    const verified = { ...NEW, bankAccounts: [{ verifiedAt: '2026-11-26T01:00:00Z' }] };
    expect(watchesDeposits(verified, doneSteps(verified))).toBe(true);
    const fed = { ...verified, bankTexts: [{}] };
    expect(watchesDeposits(fed, doneSteps(fed))).toBe(false);
  });

  it('each other step is done by what the API holds; all done only when every one is', () => {
    const done = doneSteps(ALL);
    expect(allDone(done)).toBe(true);
    expect(watchesDeposits(ALL, done)).toBe(false);
    for (const [patch, step] of [
      [{ viewer: { workspace: { businessInfo: null } } }, 'business'],
      [{ apiKeys: [] }, 'apiKey'],
      [{ webhooks: [] }, 'webhook'],
      [{ paid: { totalItems: 0 } }, 'paid'],
    ] as const) {
      const one = doneSteps({ ...ALL, ...patch });
      expect(one[step], step).toBe(false);
      expect(allDone(one), step).toBe(false);
    }
  });
});
