/** Rows written by SQL for tests that seed a workspace directly (plans, row reads), without the service's API. */

/**
 * An account `acc_<tag>`, its workspace `wsp_<tag>` and a verified bank account `bac_<tag>` (Shinhan, personal), as
 * statements to run in order.
 */
export function workspaceRowsSql(tag: string): string[] {
  return [
    `INSERT INTO "Account" (id, email, name, "passwordHash") VALUES ('acc_${tag}', '${tag}@example.com', 'p', 'x')`,
    `INSERT INTO "Workspace" (id, name, "ownerId") VALUES ('wsp_${tag}', 'w', 'acc_${tag}')`,
    `INSERT INTO "BankAccount" (id, "workspaceId", "ownerId", provider, type, number, alias, "verificationCode", "verifiedAt", "notificationTokenHash")
       VALUES ('bac_${tag}', 'wsp_${tag}', 'acc_${tag}', 'SHINHAN', 'PERSONAL', '1100000000', 'a', '123456', now(), 'h_${tag}')`,
  ];
}
