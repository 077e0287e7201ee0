/**
 * A merchant's browser through a real shop's install (README, Shop integrations): the platform's redirect to the
 * service's callback (which sets the approval cookie and asks for the workspace's log-in), then the approval form.
 */

export interface ApprovalAnswer {
  status: number;
  body: any;
  cookie: string | null;
}

/** GET the callback (as JSON): the approval asked for, and the cookie it set. */
export async function openCallback(callbackUrl: string): Promise<ApprovalAnswer> {
  const r = await fetch(callbackUrl, { headers: { accept: 'application/json' } });
  const cookie = r.headers.get('set-cookie')?.split(';')[0] ?? null;
  return { status: r.status, body: await r.json(), cookie };
}

/** POST the approval form with the callback's cookie and the credentials of a member of the workspace. */
export async function submitApproval(baseUrl: string, approveUrl: string, cookie: string | null, creds: { email: string; password: string }): Promise<ApprovalAnswer> {
  const r = await fetch(new URL(approveUrl, baseUrl), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(creds).toString(),
  });
  return { status: r.status, body: await r.json(), cookie: r.headers.get('set-cookie')?.split(';')[0] ?? null };
}

/** The callback, then the approval by `creds`: the connection's summary (throws unless both steps succeeded). */
export async function completeInstallInBrowser(baseUrl: string, callbackUrl: string, creds: { email: string; password: string }) {
  const opened = await openCallback(callbackUrl);
  if (opened.status !== 200 || !opened.body.approval) throw new Error(`callback answered ${opened.status}: ${JSON.stringify(opened.body)}`);
  const approved = await submitApproval(baseUrl, opened.body.approval.approveUrl, opened.cookie, creds);
  if (approved.status !== 200) throw new Error(`approval answered ${approved.status}: ${JSON.stringify(approved.body)}`);
  return approved.body.connection as { id: string; platform: string; shopId: string; state: string };
}
