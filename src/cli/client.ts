/** A small HTTP client for the service, used by the CLI and by the tests. */
import { randomBytes } from 'node:crypto';

export class ServiceError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface GraphQLResponse<T> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string; [k: string]: unknown }; path?: (string | number)[] }[];
}

/** What `ServiceClient.request` received, for an `onResponse` hook. */
export interface ReceivedResponse {
  method: string;
  path: string;
  status: number;
  body: unknown;
  headers: Headers;
}

export class ServiceClient {
  /** Called with every response `request` receives (tests check them against /openapi.json); a throw fails the call. */
  onResponse?: (r: ReceivedResponse) => void;

  constructor(
    readonly baseUrl: string,
    private readonly rawFetch: typeof fetch = fetch,
  ) {}

  /** fetch, with the network-level cause (ECONNREFUSED, ECONNRESET ...) in the message when the call fails. */
  private async fetchImpl(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.rawFetch(url, init);
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new ServiceError(`${init.method ?? 'GET'} ${url} failed: ${cause?.code ?? ''} ${cause?.message ?? (e as Error).message}`.replace(/\s+/g, ' '), 0, null);
    }
  }

  /** POST /graphql; returns the whole response (data and errors). */
  async graphql<T = Record<string, any>>(query: string, variables: Record<string, unknown> = {}, token?: string): Promise<GraphQLResponse<T>> {
    const res = await this.fetchImpl(`${this.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as GraphQLResponse<T>;
  }

  /** POST /graphql and return `data`, throwing on any error. */
  async gql<T = Record<string, any>>(query: string, variables: Record<string, unknown> = {}, token?: string): Promise<T> {
    const r = await this.graphql<T>(query, variables, token);
    if (r.errors?.length) throw new ServiceError(r.errors.map((e) => `${e.extensions?.code ?? ''} ${e.message}`).join('; '), 200, r);
    return r.data as T;
  }

  /** A raw request with JSON in and out. */
  async request(method: string, path: string, opts: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await this.fetchImpl(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let json: any = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    this.onResponse?.({ method, path, status: res.status, body: json, headers: res.headers });
    return { status: res.status, body: json, headers: res.headers };
  }

  /** Posts a simulated bank deposit notification. */
  async deposit(notificationToken: string, d: { depositorName: string; amount: number; notificationId?: string; receivedAt?: string }) {
    return this.request('POST', '/bank-notifications', {
      token: notificationToken,
      body: {
        notificationId: d.notificationId ?? `sim-${Date.now()}-${randomBytes(4).toString('hex')}`,
        depositorName: d.depositorName,
        amount: d.amount,
        receivedAt: d.receivedAt ?? new Date().toISOString(),
      },
    });
  }
}

export interface Bootstrapped {
  email: string;
  password: string;
  sessionToken: string;
  accountId: string;
  workspaceId: string;
  bankAccount: { id: string; provider: string; number: string; verificationCode: string; notificationToken: string; verifiedAt: string | null };
  businessInfo: { corpNum: string; companyName: string } | null;
  apiKey: { id: string; secret: string };
}

/** A unique-enough 10-16 digit account number. */
function randomAccountNumber(): string {
  return '1' + BigInt('0x' + randomBytes(6).toString('hex')).toString().padStart(13, '0').slice(0, 13);
}

/** Registers and verifies one more bank account in the session's workspace. */
export async function addVerifiedBankAccount(client: ServiceClient, sessionToken: string, opts: { provider?: string; alias?: string; verify?: boolean } = {}) {
  const provider = opts.provider ?? 'SHINHAN';
  const number = randomAccountNumber();
  const r = await client.gql<{ registerBankAccount: { bankAccount: { id: string; verifiedAt: string | null }; verificationCode: string; notificationToken: string } }>(
    `mutation($input: RegisterBankAccountInput!) { registerBankAccount(input: $input) { bankAccount { id verifiedAt } verificationCode notificationToken } }`,
    { input: { provider, type: 'PERSONAL', number, alias: opts.alias ?? 'main' } },
    sessionToken,
  );
  const reg = r.registerBankAccount;
  let verifiedAt: string | null = null;
  if (opts.verify !== false) {
    const v = await client.deposit(reg.notificationToken, { depositorName: reg.verificationCode, amount: 1, notificationId: `verify-${reg.bankAccount.id}` });
    if (v.status !== 201) throw new ServiceError('1-won verification failed', v.status, v.body);
    verifiedAt = new Date().toISOString();
  }
  return { id: reg.bankAccount.id, provider, number, verificationCode: reg.verificationCode, notificationToken: reg.notificationToken, verifiedAt };
}

/** bootstrap: account + workspace, a verified bank account, business info and an API key. */
export async function bootstrap(client: ServiceClient, opts: { email?: string; password?: string; name?: string; businessInfo?: boolean } = {}): Promise<Bootstrapped> {
  const email = opts.email ?? `merchant-${randomBytes(5).toString('hex')}@example.com`;
  const password = opts.password ?? `pw-${randomBytes(9).toString('base64url')}`;
  const signUp = await client.gql<{ signUp: { token: string; account: { id: string }; workspace: { id: string } } }>(
    `mutation($input: SignUpInput!) { signUp(input: $input) { token account { id } workspace { id } } }`,
    { input: { email, password, name: opts.name ?? 'Merchant' } },
  );
  const sessionToken = signUp.signUp.token;
  const bankAccount = await addVerifiedBankAccount(client, sessionToken);
  let businessInfo: Bootstrapped['businessInfo'] = null;
  if (opts.businessInfo !== false) {
    businessInfo = { corpNum: '1234567890', companyName: 'Example Shop' };
    await client.gql(
      `mutation($input: RegisterBusinessInfoInput!) { registerBusinessInfo(input: $input) { workspace { id } } }`,
      { input: { ...businessInfo, representativeName: 'Hong' } },
      sessionToken,
    );
  }
  const key = await client.gql<{ createApiKey: { apiKey: { id: string }; secret: string } }>(
    `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } secret } }`,
    { input: { name: 'default' } },
    sessionToken,
  );
  return {
    email,
    password,
    sessionToken,
    accountId: signUp.signUp.account.id,
    workspaceId: signUp.signUp.workspace.id,
    bankAccount,
    businessInfo,
    apiKey: { id: key.createApiKey.apiKey.id, secret: key.createApiKey.secret },
  };
}
