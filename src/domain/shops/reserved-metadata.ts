/**
 * The metadata keys reserved for shop integrations (spec: POST /v1/invoices, rule 2: "two prefixes, each ending in an
 * underscore"). One prefix per integration family: `cafe24_` for Cafe24 shops, `shoplink_` for every other shop
 * platform (the simulated shop today; Imweb or Godomall would join it, told apart by the connection). An imported
 * invoice carries its link under its family's prefix: `<prefix>connection` (the `shc_` connection id) and
 * `<prefix>order_id` (the shop's order id).
 *
 * The rule for a merchant's own keys (README, Shop integrations): a key starting with a reserved prefix is refused at
 * creation (INVALID_METADATA), so a key under a reserved prefix always means a link the service made, and no invoice
 * can pretend to be a shop order's.
 */
import type { ShopPlatform } from './shop-port.ts';

export const SHOP_METADATA_PREFIXES = ['cafe24_', 'shoplink_'] as const;

export function shopMetadataPrefix(platform: ShopPlatform): (typeof SHOP_METADATA_PREFIXES)[number] {
  return platform === 'CAFE24' ? 'cafe24_' : 'shoplink_';
}

/**
 * The first key of `metadata` under a reserved prefix, or null. Keys are compared in their compatibility form, case
 * folded (NFKC, lower case): `CAFE24_x` and `cafe24＿x` are refused as well, so nothing that reads like a link is a
 * merchant's.
 */
export function reservedMetadataKey(metadata: Record<string, unknown> | null | undefined): string | null {
  if (!metadata) return null;
  for (const key of Object.keys(metadata)) {
    const folded = key.normalize('NFKC').toLowerCase();
    if (SHOP_METADATA_PREFIXES.some((p) => folded.startsWith(p))) return key;
  }
  return null;
}

const CONNECTION_ID = /^shc_[a-z0-9]{24}$/;

/**
 * True when the invoice was imported from a shop order: its metadata carries the link the import writes, a
 * `<prefix>connection` naming a connection id and a `<prefix>order_id` (merchants cannot write either).
 */
export function isShopLinked(metadata: unknown): boolean {
  if (typeof metadata !== 'object' || metadata === null) return false;
  const m = metadata as Record<string, unknown>;
  return SHOP_METADATA_PREFIXES.some((p) => typeof m[`${p}connection`] === 'string' && CONNECTION_ID.test(m[`${p}connection`] as string) && typeof m[`${p}order_id`] === 'string');
}

/** The metadata an imported invoice carries. */
export function shopLinkMetadata(platform: ShopPlatform, connectionId: string, orderId: string): Record<string, string> {
  const prefix = shopMetadataPrefix(platform);
  return { [`${prefix}connection`]: connectionId, [`${prefix}order_id`]: orderId };
}

export const RESERVED_METADATA_MESSAGE = `metadata keys starting with ${SHOP_METADATA_PREFIXES.join(' or ')} are reserved for shop integrations.`;
