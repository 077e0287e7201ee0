/**
 * A merchant's browser through a real shop's install (README, Shop integrations): the platform's redirect to the
 * service's callback (which sets the install's approval cookie and asks for the workspace's log-in), then the approval
 * form, which carries the install's connection id (the page's hidden field) with the browser's cookies.
 */

export interface ApprovalAnswer {
  status: number;
  body: any;
  /** The first Set-Cookie's `name=value` (what a browser sends back), or null. */
  cookie: string | null;
  /** The whole Set-Cookie header (its attributes: Path, Secure, Max-Age…), or null. */
  setCookie: string | null;
}

/** What the approval form needs of the callback's answer: where it posts, and the install it is for. */
export interface ApprovalForm {
  approveUrl: string;
  connection: { id: string };
}

/** GET the callback (as JSON): the approval asked for, and the cookie it set. */
export async function openCallback(callbackUrl: string, headers: Record<string, string> = {}): Promise<ApprovalAnswer> {
  const r = await fetch(callbackUrl, { headers: { accept: 'application/json', ...headers } });
  const setCookie = r.headers.get('set-cookie');
  return { status: r.status, body: await r.json(), cookie: setCookie?.split(';')[0] ?? null, setCookie };
}

/**
 * POST the approval form of `form` (the callback's `approval`, or any install id and path to post another's) with the
 * browser's cookies (`name=value`, one or several) and the credentials of a member of the workspace.
 */
export async function submitApproval(
  baseUrl: string,
  form: ApprovalForm,
  cookies: string | readonly string[] | null,
  creds: { email: string; password: string },
): Promise<ApprovalAnswer> {
  const cookie = (typeof cookies === 'string' ? [cookies] : (cookies ?? [])).join('; ');
  const r = await fetch(new URL(form.approveUrl, baseUrl), {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams({ connection: form.connection.id, email: creds.email, password: creds.password }).toString(),
  });
  const setCookie = r.headers.get('set-cookie');
  return { status: r.status, body: await r.json(), cookie: setCookie?.split(';')[0] ?? null, setCookie };
}

/** The callback, then the approval by `creds`: the connection's summary (throws unless both steps succeeded). */
export async function completeInstallInBrowser(baseUrl: string, callbackUrl: string, creds: { email: string; password: string }) {
  const opened = await openCallback(callbackUrl);
  if (opened.status !== 200 || !opened.body.approval) throw new Error(`callback answered ${opened.status}: ${JSON.stringify(opened.body)}`);
  const approved = await submitApproval(baseUrl, opened.body.approval, opened.cookie, creds);
  if (approved.status !== 200) throw new Error(`approval answered ${approved.status}: ${JSON.stringify(approved.body)}`);
  return approved.body.connection as { id: string; platform: string; shopId: string; state: string };
}
