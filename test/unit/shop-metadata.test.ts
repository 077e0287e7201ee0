/** The shop integrations' reserved metadata prefixes (README, Shop integrations): refused to merchants, the mark of a link. */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { parseCreateInvoiceInput } from '../../src/domain/invoices/invoice-input.ts';
import { isShopLinked, reservedMetadataKey, SHOP_METADATA_PREFIXES, shopLinkMetadata, shopMetadataPrefix } from '../../src/domain/shops/reserved-metadata.ts';

const invoice = (metadata: unknown) => ({ bankAccountIds: [], customer: { name: '홍길동' }, amount: 1000, metadata });

function refusal(raw: unknown): DomainError {
  try {
    parseCreateInvoiceInput(raw);
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('the reserved prefixes', () => {
  it('are two, each ending in an underscore (spec: POST /v1/invoices, rule 2), one per integration family', () => {
    expect(SHOP_METADATA_PREFIXES).toHaveLength(2);
    for (const p of SHOP_METADATA_PREFIXES) expect(p.endsWith('_')).toBe(true);
    expect(shopMetadataPrefix('CAFE24')).toBe('cafe24_');
    expect(shopMetadataPrefix('SIMULATED')).toBe('shoplink_');
  });

  it("refuse a merchant's key under either prefix with INVALID_METADATA, naming the prefixes and the key", () => {
    for (const key of ['cafe24_order_id', 'cafe24_', 'shoplink_connection', 'shoplink_anything']) {
      const e = refusal(invoice({ note: 'ok', [key]: 'x' }));
      expect(e.code).toBe('INVALID_METADATA');
      expect(e.message).toContain('reserved for shop integrations');
      expect(e.message).toContain('cafe24_');
      expect(e.path).toEqual(['metadata', key]);
    }
  });

  it('refuse the prefixes in any case and in compatibility forms (full-width letters and underscore)', () => {
    for (const key of ['Cafe24_x', 'SHOPLINK_x', 'ｃａｆｅ２４_x', 'cafe24＿x']) expect(refusal(invoice({ [key]: 'v' })).code).toBe('INVALID_METADATA');
  });

  it('leave other keys alone, even ones that contain the words', () => {
    for (const key of ['cafe24', 'shoplink', 'my_cafe24_x', 'shop_link_x', 'cafe_24_x', '__proto__']) {
      expect(parseCreateInvoiceInput(invoice({ [key]: 'v' })).metadata).toEqual({ [key]: 'v' });
    }
  });

  it('a link made by the import is recognised; merchant metadata is not a link', () => {
    const shc = 'shc_' + 'a1'.repeat(12);
    const link = shopLinkMetadata('CAFE24', shc, '20261126-0000001');
    expect(link).toEqual({ cafe24_connection: shc, cafe24_order_id: '20261126-0000001' });
    expect(isShopLinked(link)).toBe(true);
    expect(isShopLinked(shopLinkMetadata('SIMULATED', shc, 'o1'))).toBe(true);
    // A link is the import's pair: a connection id of the right form and an order id.
    expect(isShopLinked({ cafe24_connection: 'shc_x', cafe24_order_id: '1' })).toBe(false);
    expect(isShopLinked({ cafe24_connection: shc })).toBe(false);
    expect(isShopLinked({ order: '1', Cafe24_order_id: '1' })).toBe(false);
    expect(isShopLinked(null)).toBe(false);
    expect(isShopLinked('cafe24_x')).toBe(false);
    expect(reservedMetadataKey({ a: '1', shoplink_order_id: '2' })).toBe('shoplink_order_id');
  });
});
