/**
 * The webhook payload of a stored event per version (rest-compat/shared/webhook-payloads.ts): the shop_order events'
 * `data.shopOrder` reaches V2 webhooks with `confirmedAt` in Unix seconds, like every v2 time; V1 webhooks get none.
 * transaction.received reaches V2 webhooks only: the deposit in v2 times with its source, and its match outcome.
 */
import { describe, expect, it } from 'vitest';
import { webhookPayload } from '../../rest-compat/shared/webhook-payloads.ts';
import { eventTypesFor } from '../../src/domain/webhooks/routing.ts';
import { WEBHOOK_EVENTS } from '../../rest-compat/openapi/webhooks.ts';

const shopOrder = (confirmedAt: string | null) => ({
  id: 'sho_000000000000000000000001',
  platform: 'SIMULATED',
  connectionId: 'shc_000000000000000000000001',
  orderId: '20261126-0000001',
  invoiceId: 'ivc_000000000000000000000001',
  state: confirmedAt ? 'CONFIRMED' : 'FAILED',
  attention: null,
  confirmAttempts: 1,
  error: confirmedAt ? null : { code: 'ORDER_CANCELED', message: 'The order was canceled.' },
  confirmedAt,
});

const event = (type: string, data: Record<string, unknown>) => ({
  id: 'evt_000000000000000000000001',
  type,
  workspaceId: 'wsp_000000000000000000000001',
  createdAt: new Date('2026-11-26T03:00:00.250Z'),
  data,
});

describe('webhook payloads of the shop_order events', () => {
  it('V2: data.shopOrder.confirmedAt in Unix seconds (null stays null), the rest of the order as stored', () => {
    const stored = shopOrder('2026-11-26T03:00:00.250Z');
    const v2 = webhookPayload(event('shop_order.confirmed', { shopOrder: stored }) as never, 'V2', 'acc_000000000000000000000001')!;
    expect(v2).toMatchObject({ type: 'shop_order.confirmed', createdAt: 1795662000 });
    expect((v2.data as { shopOrder: unknown }).shopOrder).toEqual({ ...stored, confirmedAt: 1795662000 });
    const failed = webhookPayload(event('shop_order.confirmation_failed', { shopOrder: shopOrder(null) }) as never, 'V2', 'acc_000000000000000000000001')!;
    expect((failed.data as { shopOrder: { confirmedAt: unknown } }).shopOrder.confirmedAt).toBeNull();
    // The stored event is left as it was.
    expect(stored.confirmedAt).toBe('2026-11-26T03:00:00.250Z');
  });

  it('V1 webhooks do not receive them', () => {
    for (const type of ['shop_order.confirmed', 'shop_order.confirmation_failed', 'shop_order.attention_needed']) {
      expect(webhookPayload(event(type, { shopOrder: shopOrder(null) }) as never, 'V1', 'acc_000000000000000000000001')).toBeNull();
    }
  });

  it('every event type a webhook receives is documented in the OpenAPI webhooks section, with a payload for its version', () => {
    const documented = new Map<string, string[]>();
    for (const ev of WEBHOOK_EVENTS) documented.set(ev.type, ev.payloads.map((p) => String((p.meta() as { id?: string })?.id ?? '').slice(0, 2)));
    for (const version of ['V1', 'V2'] as const) {
      for (const stored of eventTypesFor(version)) {
        const delivered = webhookPayload(event(stored, {}) as never, version, 'acc_000000000000000000000001')!.type as string;
        expect({ version, stored, delivered, documented: documented.get(delivered)?.includes(version) ?? false }).toEqual({ version, stored, delivered, documented: true });
      }
    }
  });
});

describe('webhook payloads of transaction.received', () => {
  const stored = {
    transaction: {
      id: 'trx_000000000000000000000001',
      bankAccount: { id: 'bac_000000000000000000000001', alias: 'main', provider: 'SHINHAN', number: '1100000000001' },
      matchedInvoiceId: null,
      matchMethod: null,
      amount: 41_000,
      description: '모호한',
      hidden: false,
      receivedAt: '2026-11-26T03:00:00.000Z',
      matchedAt: null,
      createdAt: '2026-11-26T03:00:01.400Z',
      source: 'TEXT',
    },
    match: { status: 'UNMATCHED', reason: 'AMBIGUOUS', candidateInvoiceIds: ['ivc_000000000000000000000001', 'ivc_000000000000000000000002'] },
  };

  it('V2: the deposit as invoice.paid renders it (Unix seconds) with its source, and the match outcome as recorded', () => {
    const v2 = webhookPayload(event('transaction.received', stored) as never, 'V2', 'acc_000000000000000000000001')!;
    expect(v2).toEqual({
      id: 'evt_000000000000000000000001',
      type: 'transaction.received',
      createdAt: 1795662000,
      workspaceId: 'wsp_000000000000000000000001',
      data: {
        transaction: {
          id: 'trx_000000000000000000000001',
          bankAccount: stored.transaction.bankAccount,
          matchedInvoiceId: null,
          matchMethod: null,
          amount: 41_000,
          description: '모호한',
          receivedAt: 1795662000,
          matchedAt: null,
          createdAt: 1795662001,
          source: 'TEXT',
        },
        match: stored.match,
      },
    });
    const matched = webhookPayload(
      event('transaction.received', {
        transaction: { ...stored.transaction, matchedInvoiceId: 'ivc_000000000000000000000001', matchMethod: 'EXACT', matchedAt: '2026-11-26T03:00:01.400Z', source: 'NOTIFICATION' },
        match: { status: 'MATCHED', invoiceId: 'ivc_000000000000000000000001', method: 'EXACT' },
      }) as never,
      'V2',
      'acc_000000000000000000000001',
    )!;
    expect(matched.data).toMatchObject({
      transaction: { matchedInvoiceId: 'ivc_000000000000000000000001', matchMethod: 'EXACT', matchedAt: 1795662001, source: 'NOTIFICATION' },
      match: { status: 'MATCHED', invoiceId: 'ivc_000000000000000000000001', method: 'EXACT' },
    });
    // The stored event is left as it was.
    expect(stored.transaction.receivedAt).toBe('2026-11-26T03:00:00.000Z');
  });

  it('V1 webhooks never receive it (the legacy contract)', () => {
    expect(webhookPayload(event('transaction.received', stored) as never, 'V1', 'acc_000000000000000000000001')).toBeNull();
    expect(eventTypesFor('V1')).not.toContain('transaction.received');
    expect(eventTypesFor('V2')).toContain('transaction.received');
  });
});
