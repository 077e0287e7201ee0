/**
 * One error taxonomy: a DomainError carries a stable `code`; one table maps it to the HTTP status and v1 code, and the
 * v2 status and numeric code, of the spec. Each face renders errors with one pure function over it (end of this file).
 */

/** RFC 6749 §5.2 error codes (the OAuth endpoints' `error`), and RFC 6749's `server_error` / `temporarily_unavailable`. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'server_error' | 'temporarily_unavailable';

export interface ErrorRendering {
  /** HTTP status and code of the v1 envelope. */
  v1: { status: number; code: string };
  /** HTTP status and code of the v2 envelope. */
  v2: { status: number; code: string };
  /** Default human-readable message. */
  message: string;
  /** The OAuth endpoints' status and `error`, for the codes only they answer (others: see oauthErrorBody). */
  oauth?: { status: number; error: OAuthErrorCode };
}

const r = (v1Status: number, v1Code: string, v2Status: number, v2Code: string, message: string): ErrorRendering => ({
  v1: { status: v1Status, code: v1Code },
  v2: { status: v2Status, code: v2Code },
  message,
});
/** A refusal of the OAuth endpoints (RFC 6749 §5.2); the v1/v2 renderings are those of a bad request or credential. */
const oauth = (status: 400 | 401, error: OAuthErrorCode, message: string): ErrorRendering => ({
  ...(status === 401 ? r(401, 'NOT_AUTHORIZED', 401, '290006', message) : r(400, 'BAD_REQUEST', 422, '30007', message)),
  oauth: { status, error },
});

/** The table: every domain code, its v1 and v2 renderings. Codes not shown in the spec are ours (see README). */
export const ERROR_TABLE = {
  // Authentication and permissions
  UNAUTHENTICATED: r(401, 'NOT_AUTHORIZED', 401, '290006', 'The API key or token is missing, invalid, expired, disabled or deleted.'),
  READ_ONLY_KEY: r(403, 'INSUFFICIENT_PERMISSIONS', 403, '290007', 'This key is read-only and cannot write.'),
  SESSION_TOKEN_NOT_ALLOWED: r(403, 'INSUFFICIENT_PERMISSIONS', 403, '290007', 'Dashboard login tokens cannot call this API; use an API key.'),
  OUT_OF_SCOPE: r(403, 'INSUFFICIENT_PERMISSIONS', 403, '80002', 'The resource is outside the bank accounts this key may use.'),
  DASHBOARD_ONLY: r(403, 'INSUFFICIENT_PERMISSIONS', 403, '290007', 'This operation needs a dashboard login.'),
  INVALID_CREDENTIALS: r(401, 'NOT_AUTHORIZED', 401, '290006', 'E-mail or password is wrong.'),
  TOO_MANY_ATTEMPTS: r(429, 'TOO_MANY_REQUESTS', 429, '290029', 'Too many attempts; try again later.'),
  RATE_LIMITED: r(429, 'TOO_MANY_REQUESTS', 429, '290029', 'Rate limit exceeded; retry after the time in Retry-After.'),

  EMAIL_TAKEN: r(409, 'EMAIL_TAKEN', 409, '290010', 'An account with this e-mail already exists.'),
  BANK_ACCOUNT_ALREADY_REGISTERED: r(409, 'BANK_ACCOUNT_ALREADY_REGISTERED', 409, '290011', 'This bank account is already registered in the workspace.'),

  WEBHOOK_URL_FORBIDDEN: r(422, 'WEBHOOK_URL_FORBIDDEN', 422, '290020', 'The webhook URL must be http(s) and must not resolve to a loopback, private, link-local or metadata address.'),
  WEBHOOK_LIMIT_REACHED: r(409, 'WEBHOOK_LIMIT_REACHED', 409, '290021', 'A workspace may have at most 20 webhooks.'),

  // Not found
  INVOICE_NOT_FOUND: r(404, 'INVOICE_NOT_FOUND', 404, '20014', 'Invoice not found.'),
  CASH_RECEIPT_NOT_FOUND: r(404, 'CASH_RECEIPT_NOT_FOUND', 404, '20015', 'Cash receipt not found.'),
  TRANSACTION_NOT_FOUND: r(404, 'TRANSACTION_NOT_FOUND', 404, '20016', 'Transaction not found.'),
  BANK_ACCOUNT_NOT_FOUND: r(404, 'BANK_ACCOUNT_NOT_FOUND', 422, '220008', 'A bank account in bankAccountIds does not exist.'),
  BUSINESS_INFO_NOT_REGISTERED: r(404, 'BUSINESS_INFO_NOT_REGISTERED', 409, '240005', 'Business information and the agency link are not registered.'),
  NOT_FOUND: r(404, 'NOT_FOUND', 404, '20000', 'Not found.'),
  // Another workspace's resource by id: v1 says 403 "other account's resource" (spec, v1 error body); v2 and GraphQL
  // do not tell it from a missing one (see publicCode): a foreign id reveals nothing there.
  FOREIGN_INVOICE: r(403, 'INSUFFICIENT_PERMISSIONS', 404, '20014', 'Invoice not found.'),
  FOREIGN_CASH_RECEIPT: r(403, 'INSUFFICIENT_PERMISSIONS', 404, '20015', 'Cash receipt not found.'),
  FOREIGN_TRANSACTION: r(403, 'INSUFFICIENT_PERMISSIONS', 404, '20016', 'Transaction not found.'),

  // Invoice state and conflicts
  INVOICE_ALREADY_EXISTS: r(409, 'INVOICE_ALREADY_EXISTS', 409, '220010', 'A pending invoice with the same depositor name and amount already exists on an overlapping receiving account.'),
  INVOICE_ALREADY_PAID: r(403, 'INVOICE_ALREADY_PAID', 409, '220011', 'The invoice is already paid.'),
  INVOICE_NOT_PENDING: r(409, 'INVOICE_NOT_PENDING', 409, '220011', 'The invoice is not pending.'),
  INVOICE_CANCELED: r(404, 'INVOICE_NOT_FOUND', 409, '220011', 'The invoice is canceled.'),
  BANK_ACCOUNT_NOT_VERIFIED: r(403, 'BANK_ACCOUNT_NOT_VERIFIED', 422, '220018', 'A bank account in bankAccountIds has not completed the 1-won verification.'),
  // Ours: an account the merchant took out of use (updateBankAccount) receives no new invoice; the nearest spec code's statuses.
  BANK_ACCOUNT_INACTIVE: r(403, 'BANK_ACCOUNT_INACTIVE', 422, '220019', 'A bank account in bankAccountIds is deactivated; reactivate it in the dashboard or name another.'),
  GUIDE_EMAIL_NO_ACCOUNT: r(409, 'GUIDE_EMAIL_NO_ACCOUNT', 409, '220022', 'The payment-guide e-mail needs at least one usable receiving account.'),
  GUIDE_EMAIL_NO_EXPIRY: r(409, 'GUIDE_EMAIL_NO_EXPIRY', 409, '220023', 'The payment-guide e-mail needs an expiry.'),
  TRANSACTION_ALREADY_MATCHED: r(409, 'TRANSACTION_ALREADY_MATCHED', 409, '220030', 'The transaction is already matched to an invoice.'),
  TRANSACTION_NOT_MATCHED: r(409, 'TRANSACTION_NOT_MATCHED', 409, '220031', 'The transaction is not matched.'),
  TRANSACTION_NOT_MATCHABLE: r(409, 'TRANSACTION_NOT_MATCHABLE', 409, '220032', 'This transaction cannot be matched to that invoice.'),

  // Invoice field validation (v2 220002-220009 per field, see README)
  INVALID_INVOICE_ID: r(404, 'INVOICE_NOT_FOUND', 422, '220001', 'The invoice id is malformed.'),
  INVALID_CUSTOMER_NAME: r(422, 'INVALID_CUSTOMER_NAME', 422, '220002', 'customer.name must be 1-16 characters without spaces.'),
  INVALID_EMAIL: r(422, 'INVALID_EMAIL', 422, '220003', 'customer.email must be a valid address of 5-255 characters.'),
  INVALID_PHONE_NUMBER: r(422, 'INVALID_PHONE_NUMBER', 422, '220004', 'customer.phoneNumber must be 10-11 digits.'),
  INVALID_AMOUNT: r(422, 'INVALID_AMOUNT', 422, '220005', 'amount must be a whole number of won greater than 0 (at most 2,147,483,647).'),
  INVALID_DURATION: r(422, 'INVALID_DURATION', 422, '220006', 'expireAfter must be an ISO 8601 duration (P1DT6H20M) or a short form (1d 6h 20m).'),
  EXPIRE_AFTER_EXCEEDS_MAXIMUM: r(422, 'EXPIRE_AFTER_EXCEEDS_MAXIMUM', 422, '220006', 'The expiry may be at most 365 days away.'),
  INVALID_EXPIRES_AT: r(422, 'INVALID_EXPIRES_AT', 422, '220006', 'expiresAt must be Unix seconds later than now and within 365 days.'),
  INVALID_EXTEND_DAYS: r(422, 'INVALID_EXTEND_DAYS', 422, '220007', 'extendDays must be a whole number from 1 to 365.'),
  INVALID_BANK_ACCOUNT_IDS: r(400, 'BAD_REQUEST', 422, '220008', 'bankAccountIds must be an array of bank account ids.'),
  INVALID_CASH_RECEIPT_IDENTIFIER: r(422, 'INVALID_CASH_RECEIPT_IDENTIFIER', 422, '220009', 'cashReceipt.identifier does not fit cashReceipt.type.'),
  INVALID_CASH_RECEIPT_TYPE: r(400, 'BAD_REQUEST', 422, '220009', 'cashReceipt.type must be PERSONAL or CORPORATE.'),
  METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED: r(422, 'METADATA_KEY_VALUE_PAIR_LIMIT_EXCEEDED', 422, '220012', 'metadata may hold at most 5 pairs.'),
  METADATA_KEY_LENGTH_LIMIT_EXCEEDED: r(422, 'METADATA_KEY_LENGTH_LIMIT_EXCEEDED', 422, '220013', 'metadata keys may be at most 64 characters.'),
  METADATA_VALUE_LENGTH_LIMIT_EXCEEDED: r(422, 'METADATA_VALUE_LENGTH_LIMIT_EXCEEDED', 422, '220014', 'metadata values may be at most 1024 characters.'),
  INVALID_METADATA: r(400, 'BAD_REQUEST', 422, '220015', 'metadata must be an object of string keys to string values.'),
  CANCEL_REASON_TOO_LONG: r(422, 'INVALID_CANCEL_REASON', 422, '220020', 'reason may be at most 200 characters.'),
  NO_FIELD_TO_CHANGE: r(422, 'NO_FIELD_TO_CHANGE', 422, '30009', 'The request changes no field.'),

  // Listing
  INVALID_OFFSET: r(422, 'INVALID_OFFSET', 422, '30010', 'offset must be a whole number of 0 or more.'),
  INVALID_LIMIT: r(422, 'INVALID_LIMIT', 422, '30011', 'limit must be a whole number from 1 to 100.'),
  LIMIT_EXCEEDS_MAXIMUM: r(403, 'LIMIT_EXCEEDS_MAXIMUM', 422, '30012', 'limit may be at most 100.'),
  INVALID_DATE_RANGE_FORMAT: r(422, 'INVALID_DATE_RANGE_FORMAT', 422, '30013', 'Dates must be YYYY-MM-DD.'),

  // Cash receipts
  INVALID_CASH_RECEIPT_ID: r(404, 'CASH_RECEIPT_NOT_FOUND', 422, '240001', 'The cash receipt id is malformed.'),
  INVALID_CASH_RECEIPT_AMOUNT: r(422, 'INVALID_CASH_RECEIPT_AMOUNT', 422, '240004', 'amount must be a whole number of won greater than 0.'),
  RECEIPT_INVALID_TYPE: r(400, 'BAD_REQUEST', 422, '240002', 'type must be PERSONAL or CORPORATE, and a self-issued receipt cannot be CORPORATE.'),
  RECEIPT_INVALID_IDENTIFIER: r(422, 'INVALID_CASH_RECEIPT_IDENTIFIER', 422, '240003', 'identifier is missing or does not fit the type.'),
  RECEIPT_NOT_CANCELABLE: r(409, 'CASH_RECEIPT_NOT_CANCELABLE', 409, '240006', 'The cash receipt cannot be canceled.'),
  RECEIPT_NOT_REISSUABLE: r(409, 'CASH_RECEIPT_NOT_REISSUABLE', 409, '240007', 'Only a failed receipt that was not reissued before can be reissued.'),
  RECEIPT_NOT_REVOCABLE: r(409, 'CASH_RECEIPT_NOT_REVOCABLE', 409, '240006', 'Only an issued cash receipt can be revoked.'),
  RECEIPT_CANCEL_REASON_INVALID: r(422, 'INVALID_CANCEL_REASON', 422, '240010', 'reason must be 1-100 characters.'),
  RECEIPT_EMAIL_INVALID: r(422, 'INVALID_EMAIL', 422, '240018', 'email must be a valid address of at most 100 characters.'),
  INVOICE_RECEIPT_NOT_ISSUABLE: r(409, 'CONFLICT', 409, '240021', 'Only a paid invoice without a pending or issued cash receipt can be given one.'),
  RECEIPT_EMAIL_NOT_SENDABLE: r(409, 'CASH_RECEIPT_NOT_CONFIRMED', 409, '240020', 'The receipt failed or has no tax-authority confirmation number yet.'),
  AGENCY_API_FAILED: r(500, 'AGENCY_API_FAILED', 422, '240008', 'The call to the cash-receipt agency failed; retry later.'),
  AGENCY_EMAIL_FAILED: r(500, 'AGENCY_API_FAILED', 502, '240009', 'The agency could not send the e-mail.'),

  // Shop integrations (GraphQL and the install callback; ours, not in the spec)
  SHOP_CONNECTION_NOT_FOUND: r(404, 'NOT_FOUND', 404, '20020', 'Shop connection not found.'),
  SHOP_ORDER_NOT_FOUND: r(404, 'NOT_FOUND', 404, '20021', 'Shop order not found.'),
  SHOP_PLATFORM_NOT_CONFIGURED: r(409, 'CONFLICT', 409, '260001', 'This shop platform is not configured on this service (see the README, Shop integrations).'),
  INVALID_SHOP_ID: r(422, 'VALIDATION_FAILED', 422, '260002', 'The shop id is not one the platform could have (Cafe24 mall ids: 4-16 lower-case letters and digits).'),
  SHOP_INSTALL_DECLINED: r(400, 'BAD_REQUEST', 422, '260008', 'The shop install was not approved at the platform; start it again to connect the shop.'),
  SHOP_CONNECTED_ELSEWHERE: r(409, 'CONFLICT', 409, '260009', 'This shop is connected to another workspace of this service; disconnect it there, or contact support.'),
  SHOP_CONNECTION_LIMIT_REACHED: r(409, 'CONFLICT', 409, '260012', 'A workspace may have at most 10 simulated shops and 50 shops in all, connected or being installed; disconnect one first.'),
  SHOP_APPROVAL_WRONG_WORKSPACE: r(403, 'INSUFFICIENT_PERMISSIONS', 403, '260010', 'This account is not a member of the workspace that started the install.'),
  SHOP_INSTALL_INVALID: r(400, 'BAD_REQUEST', 422, '260003', 'The install is unknown, expired or already completed: start it again.'),
  SHOP_NOT_CONNECTED: r(409, 'CONFLICT', 409, '260004', 'The shop connection is not connected (installing, needing re-authorization, or disconnected).'),
  SHOP_API_FAILED: r(502, 'SHOP_API_FAILED', 502, '260005', 'The shop platform refused the call or did not answer; retry later.'),
  SHOP_ORDER_NOT_RETRYABLE: r(409, 'CONFLICT', 409, '260006', 'Only a shop order whose confirmation failed (or is under way), and whose invoice is paid, can be confirmed again.'),
  SHOP_NOT_SIMULATED: r(409, 'CONFLICT', 409, '260007', 'Orders can be simulated only in a simulated shop.'),
  SHOP_LINKED_INVOICE: r(409, 'CONFLICT', 409, '260011', "This invoice is a shop order's: change the order in the shop (the amount, the depositor name, the receiving accounts and the expiry follow the order)."),

  // Deposits by text and by history (GraphQL; ours, not in the spec)
  BANK_TEXT_NOT_FOUND: r(404, 'NOT_FOUND', 404, '20023', 'Bank text not found.'),
  BANK_TEXT_NOT_OPEN: r(409, 'CONFLICT', 409, '270001', 'Only a text the service could not take (UNRECOGNIZED or REFUSED) and nobody dealt with yet can be entered by hand or dismissed.'),
  HISTORY_FEED_NOT_FOUND: r(404, 'NOT_FOUND', 404, '20022', 'Account-history feed not found.'),
  AGGREGATOR_NOT_CONFIGURED: r(409, 'CONFLICT', 409, '270002', 'This aggregator is not configured on this service (see the README, Account history).'),
  HISTORY_FEED_NOT_ACTIVE: r(409, 'CONFLICT', 409, '270003', 'The account-history feed is paused or needs attention: resume it first.'),
  HISTORY_FEED_NOT_SIMULATED: r(409, 'CONFLICT', 409, '270004', 'History rows can be simulated only on a feed of the simulated aggregator.'),
  AGGREGATOR_API_FAILED: r(502, 'AGGREGATOR_API_FAILED', 502, '270005', 'The aggregator refused the call or did not answer; retry later.'),
  HISTORY_FEED_CONNECTED_ELSEWHERE: r(409, 'CONFLICT', 409, '270006', "This account's history is polled for another workspace of this service; disconnect it there, or contact support."),

  // The dashboard's session (README, "The dashboard's session")
  CROSS_ORIGIN_REFUSED: r(403, 'INSUFFICIENT_PERMISSIONS', 403, '290030', "This endpoint answers only the service's own pages (the request's Origin is another site)."),

  // Requests
  BAD_REQUEST: r(400, 'BAD_REQUEST', 422, '30007', 'The request body is not readable JSON of the expected shape.'),
  VALIDATION_FAILED: r(422, 'VALIDATION_FAILED', 422, '30008', 'The input is not valid.'),
  PAYLOAD_TOO_LARGE: r(413, 'PAYLOAD_TOO_LARGE', 413, '30006', 'The request body is too large.'),
  CONFLICT: r(409, 'CONFLICT', 409, '30005', 'The request conflicts with the current state.'),
  IDEMPOTENCY_KEY_REUSED: r(422, 'IDEMPOTENCY_KEY_REUSED', 422, '30020', 'This Idempotency-Key was used with a different request.'),
  IDEMPOTENCY_KEY_IN_PROGRESS: r(409, 'IDEMPOTENCY_KEY_IN_PROGRESS', 409, '30021', 'A request with this Idempotency-Key is still running.'),
  // The first answer is sealed with the service's encryption key; after ENCRYPTION_KEY changed it cannot be read. The
  // request ran once, so it is not run again either: the client checks the resource and retries with a new key.
  IDEMPOTENCY_ANSWER_UNREADABLE: r(409, 'IDEMPOTENCY_ANSWER_UNREADABLE', 409, '30025', 'This Idempotency-Key was used and its stored answer can no longer be read (the encryption key changed); the request ran once. Check the resource, and use a new key to send it again.'),
  METHOD_NOT_ALLOWED: r(405, 'METHOD_NOT_ALLOWED', 405, '30004', 'Method not allowed on this path.'),
  ROUTE_NOT_FOUND: r(404, 'NOT_FOUND', 404, '30003', 'No such endpoint.'),
  NOT_ACCEPTABLE: r(406, 'NOT_ACCEPTABLE', 406, '30001', 'The Accept header allows no media type this endpoint answers with.'),
  UNSUPPORTED_MEDIA_TYPE: r(415, 'UNSUPPORTED_MEDIA_TYPE', 415, '30002', 'Content-Type must be application/json.'),
  // Requests Node's HTTP parser refuses before any face sees them (answered in the {code, message} body).
  REQUEST_TIMEOUT: r(408, 'REQUEST_TIMEOUT', 408, '30014', 'The request did not arrive in time.'),
  REQUEST_HEADER_FIELDS_TOO_LARGE: r(431, 'REQUEST_HEADER_FIELDS_TOO_LARGE', 431, '30015', 'The request headers are too large.'),

  // OAuth app endpoints (POST /v2/oauth-apps/token and /revoke), RFC 6749 §5.2 / RFC 7009
  OAUTH_INVALID_REQUEST: oauth(400, 'invalid_request', 'The request is malformed: not form-urlencoded, or a parameter missing or repeated.'),
  OAUTH_INVALID_CLIENT: oauth(401, 'invalid_client', 'Client authentication failed.'),
  OAUTH_INVALID_GRANT: oauth(400, 'invalid_grant', 'The authorization code is invalid, expired, used, revoked or for another redirect URI.'),
  OAUTH_UNSUPPORTED_GRANT_TYPE: oauth(400, 'unsupported_grant_type', 'Only authorization_code is supported.'),
  // Subscriptions (GraphQL only; the REST renderings are never sent)
  CATCH_UP_TOO_LARGE: r(422, 'CATCH_UP_TOO_LARGE', 422, '30022', 'Too many events to catch up on in a subscription: page through them with the events query, then subscribe with the last sequence it returned.'),
  EVENTS_NOT_RETAINED: r(410, 'EVENTS_NOT_RETAINED', 410, '30023', 'Events after sinceSequence are no longer stored: reload the invoices and subscribe without sinceSequence.'),
  // GraphQL over WebSocket: operations running at once on one connection (README, Abuse protection).
  TOO_MANY_SUBSCRIPTIONS: r(429, 'TOO_MANY_SUBSCRIPTIONS', 429, '30024', 'Too many operations at once on this connection: complete a subscription before starting another, or open another connection.'),

  // Server
  SERVICE_UNAVAILABLE: r(503, 'SERVICE_UNAVAILABLE', 503, '50003', 'The service is temporarily unavailable; retry later.'),
  INTERNAL_SERVER_ERROR: r(500, 'INTERNAL_SERVER_ERROR', 500, '50000', 'Internal server error.'),
} as const satisfies Record<string, ErrorRendering>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** The code GraphQL shows for a domain code: another workspace's resource reads as a missing one. */
const PUBLIC_CODES: Partial<Record<ErrorCode, ErrorCode>> = {
  FOREIGN_INVOICE: 'INVOICE_NOT_FOUND',
  FOREIGN_CASH_RECEIPT: 'CASH_RECEIPT_NOT_FOUND',
  FOREIGN_TRANSACTION: 'TRANSACTION_NOT_FOUND',
};
export function publicCode(code: ErrorCode): ErrorCode {
  return PUBLIC_CODES[code] ?? code;
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_TABLE, code);
}

/** A rule of the spec was broken; `code` is stable and `data` carries the details the spec returns. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown> | null;
  /** Field path for validation errors (e.g. ["customer", "name"]). */
  readonly path: string[] | null;

  constructor(code: ErrorCode, opts: { message?: string; data?: Record<string, unknown> | null; path?: string[] } = {}) {
    super(opts.message ?? ERROR_TABLE[code].message);
    this.name = 'DomainError';
    this.code = code;
    this.data = opts.data ?? null;
    this.path = opts.path ?? null;
  }
}

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}

// ───────────────────────────── the faces' renderings ─────────────────────────────
// One pure function per face: `status` and the JSON `body` it answers. Another workspace's resource (FOREIGN_*) reads
// as missing except in v1 (publicCode); the message is the table's unless the error carries its own.

/** A DomainError, or a code standing for one with the table's message. */
export type ErrorLike = DomainError | ErrorCode;

export interface Rendered<B> {
  status: number;
  body: B;
}

const asError = (e: ErrorLike): DomainError => (typeof e === 'string' ? new DomainError(e) : e);

/** What a face other than v1 shows: the public code; for another workspace's resource, exactly a missing one's error. */
function shown(e: DomainError): { code: ErrorCode; message: string; path: string[] | null; data: Record<string, unknown> | null } {
  const code = publicCode(e.code);
  if (code !== e.code) return { code, message: ERROR_TABLE[code].message, path: null, data: null };
  return { code, message: e.message, path: e.path, data: e.data };
}

/** v1 envelope (spec: Response envelope, v1 error body): the v1 status and `{code, data: null}`. */
export function v1Envelope(e: ErrorLike): Rendered<{ code: string; data: null }> {
  const { status, code } = ERROR_TABLE[asError(e).code].v1;
  return { status, body: { code, data: null } };
}

/** v2 error body (spec: v2 error body): the v2 status and `{code, data}`; `data` is the face's wire form of the details. */
export function v2Envelope(e: ErrorLike, data: unknown = null): Rendered<{ code: string; data: unknown }> {
  const { status, code } = ERROR_TABLE[shown(asError(e)).code].v2;
  return { status, body: { code, data } };
}

/** One GraphQL error (`/graphql` and `/api`): `extensions.code` the public code, the field path and details if any; the status of the table. */
export function graphQLErrorBody(e: ErrorLike): Rendered<{ message: string; extensions: { code: ErrorCode; field?: string[]; data?: Record<string, unknown> } }> {
  const s = shown(asError(e));
  return {
    status: ERROR_TABLE[s.code].v1.status,
    body: { message: s.message, extensions: { code: s.code, ...(s.path ? { field: s.path } : {}), ...(s.data ? { data: s.data } : {}) } },
  };
}

/** Bank notifications' body (also the service's own paths: an unknown path, the documents): `{code, message, field?}` with v1 codes. */
export function bankNotificationBody(e: ErrorLike): Rendered<{ code: string; message: string; field?: string }> {
  const s = shown(asError(e));
  const { status, code } = ERROR_TABLE[s.code].v1;
  return { status, body: { code, message: s.message, ...(s.path ? { field: s.path.join('.') } : {}) } };
}

/**
 * The OAuth endpoints' body (RFC 6749 §5.2, RFC 7009) `{error, error_description}`: the OAUTH_* codes say their own;
 * any other code by its status — 5xx `server_error` (without a description), 503 and 429 `temporarily_unavailable`,
 * 401 `invalid_client`, anything else `invalid_request` (400, or 405 / 413 for a method or a body size).
 */
export function oauthErrorBody(e: ErrorLike): Rendered<{ error: OAuthErrorCode; error_description?: string }> {
  const s = shown(asError(e));
  const row: ErrorRendering = ERROR_TABLE[s.code];
  if (row.oauth) return { status: row.oauth.status, body: { error: row.oauth.error, error_description: s.message } };
  const status = row.v1.status;
  if (status === 503 || status === 429) return { status, body: { error: 'temporarily_unavailable', error_description: s.message } };
  if (status >= 500) return { status: 500, body: { error: 'server_error' } };
  if (status === 401) return { status, body: { error: 'invalid_client', error_description: s.message } };
  return { status: status === 405 || status === 413 ? status : 400, body: { error: 'invalid_request', error_description: s.message } };
}

/** Renders a code for the v1 envelope (v1Envelope of the code). */
export function renderV1(code: ErrorCode): Rendered<{ code: string; data: null }> {
  return v1Envelope(code);
}

/** Renders a code for the v2 envelope (v2Envelope of the code). */
export function renderV2(code: ErrorCode, data: unknown = null): Rendered<{ code: string; data: unknown }> {
  return v2Envelope(code, data);
}

/** Whether a code is the caller's doing (a refusal, 4xx) rather than the service's or a dependency's (5xx). */
export function isRefusal(code: ErrorCode): boolean {
  return ERROR_TABLE[code].v1.status < 500;
}
