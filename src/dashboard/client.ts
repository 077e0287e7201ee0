/**
 * The dashboard's GraphQL client: /graphql of the service that served the page, authenticated by the session cookie
 * (README, "The dashboard's session"); nothing holds the session in script-readable storage.
 */
import { Client, fetchExchange, mapExchange } from '@urql/core';

/**
 * The client of one session. `onSignedOut` runs when the API no longer knows the session (it expired, or was logged
 * out elsewhere): any answer UNAUTHENTICATED, which the shell turns into the log-in form.
 */
export function dashboardClient(onSignedOut: () => void = () => {}): Client {
  return new Client({
    url: '/graphql',
    exchanges: [
      mapExchange({
        onError(error) {
          if (error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED') || error.response?.status === 401) onSignedOut();
        },
      }),
      fetchExchange,
    ],
    // POST, never GET: the API refuses a GET without a CSRF header, and a POST's Origin tells the service it is its own page.
    preferGetMethod: false,
    fetchOptions: { credentials: 'same-origin', headers: { accept: 'application/graphql-response+json, application/json' } },
    requestPolicy: 'cache-and-network',
  });
}

/** Log in (POST /dashboard/session): true when the service set the session cookie. */
export async function logIn(email: string, password: string): Promise<{ ok: true } | { ok: false; code: string }> {
  const res = await fetch('/dashboard/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.ok) return { ok: true };
  const body = (await res.json().catch(() => null)) as { code?: string } | null;
  return { ok: false, code: body?.code ?? `HTTP_${res.status}` };
}

/** Sign up (POST /dashboard/sign-up): a new account and workspace, logged in at once by the same cookie. */
export async function signUp(email: string, password: string, name: string): Promise<{ ok: true } | { ok: false; code: string; message: string }> {
  const res = await fetch('/dashboard/sign-up', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, name }),
  });
  if (res.ok) return { ok: true };
  const body = (await res.json().catch(() => null)) as { code?: string; message?: string } | null;
  return { ok: false, code: body?.code ?? `HTTP_${res.status}`, message: body?.message ?? '' };
}

/** Log out (DELETE /dashboard/session): the session ends and the cookie is cleared. */
export async function logOut(): Promise<void> {
  await fetch('/dashboard/session', { method: 'DELETE', credentials: 'same-origin' });
}
