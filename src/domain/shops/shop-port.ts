/**
 * The shop port: what the domain needs of an online shop platform whose bank-transfer (무통장입금) orders become
 * invoices. One adapter per platform (src/events/shops/): Cafe24's Admin API, and the simulated shop of the tour and
 * tests. Imweb or Godomall would be one more adapter of this interface, and one more ShopPlatform name.
 *
 * An adapter is stateless: the domain keeps the connection (shop id, sealed tokens) and hands the adapter what a call
 * needs. Tokens never leave the adapter except as return values to the domain, which seals them at once.
 */

export const SHOP_PLATFORMS = ['CAFE24', 'SIMULATED'] as const;
export type ShopPlatform = (typeof SHOP_PLATFORMS)[number];

/** OAuth tokens of one shop install. `refreshToken` may rotate on every refresh (Cafe24 does). */
export interface ShopTokens {
  accessToken: string;
  /** null = does not expire. */
  accessTokenExpiresAt: Date | null;
  refreshToken: string | null;
  refreshTokenExpiresAt: Date | null;
  /** Scopes granted, as the platform names them (informational). */
  scopes?: string[];
}

/** What one API call needs: the shop and a valid access token (and our connection's id: the simulated shop keeps one sandbox per connection). */
export interface ShopSession {
  shopId: string;
  accessToken: string;
  connectionId: string;
}

/** A bank-transfer order awaiting its deposit, as the shop lists it. */
export interface AwaitingOrder {
  /** The shop's order id (Cafe24: e.g. 20261126-0000123). */
  orderId: string;
  /** The depositor name the buyer gave for the transfer (입금자명), or the buyer's name when none was given. */
  depositorName: string;
  /** Whole won. */
  amount: number;
  orderedAt: Date;
  /** The shop cancels the order if it is still unpaid then (its auto-cancel deadline), when it has one. */
  payBy: Date | null;
  buyerEmail?: string | null;
  /** Digits only, when known. */
  buyerPhone?: string | null;
}

/** An order's state at the shop, as far as this service cares. */
export type ShopOrderStatus = 'AWAITING_DEPOSIT' | 'PAID' | 'CANCELED' | 'NOT_FOUND' | 'OTHER';

/**
 * A shop API call failed. `retryable`: a later attempt may succeed (timeout, connection error, 429, 5xx);
 * otherwise the shop refused the request for good (e.g. the order is canceled, 4xx). `authExpired`: the access token
 * was refused (401): refresh and retry once. `reauthorize`: the refresh token itself was refused (the merchant must
 * install again). `code`/`message`: the shop's own error (Cafe24: `{error: {code, message}}`), or ours when the shop
 * gave none ("TIMEOUT", "NETWORK", "HTTP_503", "BAD_RESPONSE").
 */
export class ShopApiError extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  readonly authExpired: boolean;
  readonly reauthorize: boolean;
  constructor(
    code: string,
    message: string,
    opts: { retryable: boolean; status?: number | null; retryAfterMs?: number | null; authExpired?: boolean; reauthorize?: boolean },
  ) {
    super(message);
    this.name = 'ShopApiError';
    this.code = code;
    this.retryable = opts.retryable;
    this.status = opts.status ?? null;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.authExpired = opts.authExpired ?? false;
    this.reauthorize = opts.reauthorize ?? false;
  }
}

export interface ShopAdapter {
  readonly platform: ShopPlatform;
  /** The shop id as the platform writes it (Cafe24: the mall id), or null when `raw` cannot be one. */
  normalizeShopId(raw: string): string | null;
  /** Where the merchant approves the install (OAuth 2.0 authorization-code request); `state` comes back with the code. */
  authorizeUrl(shopId: string, state: string): string;
  /** Exchanges an authorization code for tokens. */
  exchangeCode(shopId: string, code: string): Promise<ShopTokens>;
  /** New tokens from a refresh token (the old refresh token may stop working at once). */
  refresh(shopId: string, refreshToken: string): Promise<ShopTokens>;
  /** Bank-transfer orders awaiting their deposit, ordered between `since` and `until`. */
  listAwaitingOrders(session: ShopSession, since: Date, until: Date): Promise<AwaitingOrder[]>;
  /**
   * The states of these orders: NOT_FOUND for an id searched that the shop does not know. An id left out of the answer is
   * unknown (it could not be searched, or its search failed): the caller leaves that order alone.
   */
  orderStatuses(session: ShopSession, orderIds: readonly string[]): Promise<Map<string, ShopOrderStatus>>;
  /**
   * Marks the order deposit-confirmed (paid). Idempotent: an order the shop already has as paid is a success. An order
   * canceled at the shop is a ShopApiError that is not retryable.
   */
  confirmDeposit(session: ShopSession, orderId: string): Promise<void>;
}

/** The adapters the service was configured with. */
export interface ShopAdapters {
  get(platform: ShopPlatform): ShopAdapter | null;
}
