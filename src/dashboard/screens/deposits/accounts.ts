/** The workspace's bank accounts as the Deposits pages name them (the list's filter, a text's account, a feed's). */
import { graphql, type ResultOf } from '../../graphql.ts';

export const AccountsQuery = graphql(`
  query DashboardDepositAccounts {
    bankAccounts { id alias number provider active verifiedAt }
  }
`);

type Account = ResultOf<typeof AccountsQuery>['bankAccounts'][number];

/** "Alias · BANK 110123456789", or the bank and number alone; the id when the account is not (or no longer) listed. */
export function accountLabel(accounts: readonly Account[] | undefined, id: string): string {
  const a = accounts?.find((x) => x.id === id);
  return a ? `${a.alias ? `${a.alias} · ` : ''}${a.provider} ${a.number}` : id;
}
