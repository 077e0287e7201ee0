/**
 * Accounts, workspaces and dashboard sessions (contract: signUp, logIn). A new account owns a new workspace.
 * Passwords are hashed with scrypt; log-in failures are throttled per e-mail (brute-force protection).
 */
import type { Deps } from '../deps.ts';
import { DomainError } from '../errors.ts';
import { newId } from '../ids.ts';
import { isUniqueViolation } from '../prisma-errors.ts';
import { DUMMY_PASSWORD_HASH, hashPassword, newSecret, SECRET_PREFIXES, sha256Hex, verifyPassword } from '../secrets.ts';
import { EMAIL_RE, check } from '../validation.ts';

export interface SignUpInput {
  email: string;
  password: string;
  name: string;
}

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 200;

function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Validates sign-up input: e-mail 5-255 with a valid shape, password 8-200 characters, name 1-100. */
export function validateSignUp(input: SignUpInput): SignUpInput {
  const email = normalizeEmail(input.email);
  check(email.length >= 5 && email.length <= 255 && EMAIL_RE.test(email), ['email'], 'email must be a valid address of 5-255 characters.');
  check(input.password.length >= PASSWORD_MIN && input.password.length <= PASSWORD_MAX, ['password'], `password must be ${PASSWORD_MIN}-${PASSWORD_MAX} characters.`);
  const name = input.name.trim();
  check(name.length >= 1 && name.length <= 100, ['name'], 'name must be 1-100 characters.');
  return { email, password: input.password, name };
}

/** Creates a session row and returns its token (shown once) and when it expires. */
async function createSession(deps: Deps, accountId: string, workspaceId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = newSecret('session');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.settings.sessionTtlHours * 3600_000);
  await deps.prisma.session.create({
    data: {
      id: newId('session'),
      tokenHash: sha256Hex(token),
      accountId,
      workspaceId,
      createdAt: now,
      expiresAt,
    },
  });
  return { token, expiresAt };
}

/** signUp: a new account (acc_) owning a new workspace, and a session token. */
export async function signUp(deps: Deps, raw: SignUpInput) {
  const input = validateSignUp(raw);
  const passwordHash = await hashPassword(input.password);
  const accountId = newId('account');
  const workspaceId = newId('workspace');
  const now = deps.clock.now();
  try {
    await deps.prisma.$transaction(async (tx) => {
      await tx.account.create({ data: { id: accountId, email: input.email, name: input.name, passwordHash, createdAt: now } });
      await tx.workspace.create({ data: { id: workspaceId, name: input.name, ownerId: accountId, createdAt: now } });
      await tx.workspaceMember.create({ data: { workspaceId, accountId, role: 'OWNER', createdAt: now } });
    });
  } catch (e) {
    if (isUniqueViolation(e, 'email')) throw new DomainError('EMAIL_TAKEN', { path: ['email'] });
    throw e;
  }
  const { token, expiresAt } = await createSession(deps, accountId, workspaceId);
  return { token, accountId, workspaceId, expiresAt };
}

/** logIn: a session token for the account's (first owned) workspace; throttled after repeated failures. */
export async function logIn(deps: Deps, raw: { email: string; password: string }) {
  const account = await verifyCredentials(deps, raw);
  const membership = await deps.prisma.workspaceMember.findFirst({
    where: { accountId: account.id },
    orderBy: [{ role: 'asc' }, { createdAt: 'asc' }],
  });
  if (!membership) throw new DomainError('INVALID_CREDENTIALS');
  const { token, expiresAt } = await createSession(deps, account.id, membership.workspaceId);
  return { token, accountId: account.id, workspaceId: membership.workspaceId, expiresAt };
}

/**
 * The account an e-mail and password name (INVALID_CREDENTIALS otherwise, the same answer and about the same time
 * whether the account exists or not); TOO_MANY_ATTEMPTS after repeated failures for the e-mail. Every check counts.
 */
export async function verifyCredentials(deps: Deps, raw: { email: string; password: string }) {
  const email = normalizeEmail(raw.email);
  const now = deps.clock.now();
  const since = new Date(now.getTime() - deps.settings.loginWindowMinutes * 60_000);
  const failures = await deps.prisma.loginAttempt.count({ where: { email, succeeded: false, createdAt: { gte: since } } });
  if (failures >= deps.settings.maxLoginFailures) throw new DomainError('TOO_MANY_ATTEMPTS');

  const account = await deps.prisma.account.findUnique({ where: { email } });
  const ok = await verifyPassword(raw.password, account?.passwordHash ?? DUMMY_PASSWORD_HASH);
  await deps.prisma.loginAttempt.create({ data: { id: newId('loginAttempt'), email, succeeded: ok && !!account, createdAt: now } });
  if (!account || !ok) throw new DomainError('INVALID_CREDENTIALS');
  return account;
}

/**
 * logOut (the dashboard's session cookie, DELETE /dashboard/session): the session of this token ends now. Anything
 * that is not a live session token changes nothing (a log-out is never refused).
 */
export async function logOut(deps: Deps, token: string | null): Promise<void> {
  if (!token || !token.startsWith(SECRET_PREFIXES.session) || token.length > 512) return;
  await deps.prisma.session.updateMany({ where: { tokenHash: sha256Hex(token), revokedAt: null }, data: { revokedAt: deps.clock.now() } });
}
