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

/** The first key of `metadata` under a reserved prefix, or null. */
export function reservedMetadataKey(metadata: Record<string, unknown> | null | undefined): string | null {
  if (!metadata) return null;
  for (const key of Object.keys(metadata)) if (SHOP_METADATA_PREFIXES.some((p) => key.startsWith(p))) return key;
  return null;
}

/** True when the invoice was imported from a shop order (its metadata carries a link; merchants cannot write one). */
export function isShopLinked(metadata: unknown): boolean {
  return typeof metadata === 'object' && metadata !== null && reservedMetadataKey(metadata as Record<string, unknown>) !== null;
}

/** The metadata an imported invoice carries. */
export function shopLinkMetadata(platform: ShopPlatform, connectionId: string, orderId: string): Record<string, string> {
  const prefix = shopMetadataPrefix(platform);
  return { [`${prefix}connection`]: connectionId, [`${prefix}order_id`]: orderId };
}

export const RESERVED_METADATA_MESSAGE = `metadata keys starting with ${SHOP_METADATA_PREFIXES.join(' or ')} are reserved for shop integrations.`;
