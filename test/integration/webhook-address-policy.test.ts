/**
 * Webhook SSRF through IPv6 spellings of private addresses: with WEBHOOK_ALLOW_PRIVATE unset, an IPv4-mapped,
 * IPv4-compatible or NAT64 address (and the other spellings) is judged as the IPv4 address it carries — at
 * registration (createWebhook, updateWebhook) and when a delivery connects (a stored URL, or a name that resolves to
 * such an address). A local receiver proves nothing reaches 127.0.0.1.
 */
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, type Bootstrapped } from '../../src/cli/client.ts';
import { WebhookHttpClient } from '../../src/events/http-post.ts';
import { dbLabel, startTestApp, type TestApp } from '../helpers/app.ts';
import { Receiver } from '../helpers/receiver.ts';

const CREATE = `mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { webhook { id url } signingSecret } }`;

describe(`webhook addresses in every spelling on ${dbLabel}`, () => {
  let t: TestApp;
  let m: Bootstrapped;
  const rx = new Receiver();
  let port = 0;
  const dns: Record<string, string[]> = {
    'hooks.example': ['203.0.113.10'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'mapped-hex.example': ['203.0.113.12', '::ffff:a9fe:a9fe'],
    'nat64.example': ['64:ff9b::a00:1'],
  };

  beforeAll(async () => {
    await rx.start();
    port = Number(new URL(rx.url).port);
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    // Like dns.lookup: an IP literal resolves to itself; names from the table above.
    (t.app.deps as { resolveHost: (h: string) => Promise<string[]> }).resolveHost = async (h) => {
      if (isIP(h)) return [h];
      if (!dns[h]) throw new Error('ENOTFOUND');
      return dns[h];
    };
    m = await bootstrap(t.client);
  });
  afterAll(async () => {
    await t?.stop();
    await rx.stop();
  });

  it.each([
    ['http://[::ffff:127.0.0.1]:PORT/hook', '[::ffff:7f00:1]', '127.0.0.1 (loopback), carried by the IPv4-mapped address ::ffff:7f00:1'],
    ['http://[0:0:0:0:0:ffff:7f00:1]:PORT/hook', '[::ffff:7f00:1]', '127.0.0.1 (loopback), carried by the IPv4-mapped address ::ffff:7f00:1'],
    ['http://[::ffff:a9fe:a9fe]/latest/meta-data/', '[::ffff:a9fe:a9fe]', '169.254.169.254 (link-local (cloud metadata)), carried by the IPv4-mapped address ::ffff:a9fe:a9fe'],
    ['http://[::ffff:10.0.0.1]/', '[::ffff:a00:1]', '10.0.0.1 (private), carried by the IPv4-mapped address ::ffff:a00:1'],
    ['http://[::7f00:1]:PORT/hook', '[::7f00:1]', '127.0.0.1 (loopback), carried by the IPv4-compatible address ::7f00:1'],
    ['http://[64:ff9b::7f00:1]/', '[64:ff9b::7f00:1]', '127.0.0.1 (loopback), carried by the NAT64 address 64:ff9b::7f00:1'],
    ['http://[::FFFF:0:7F00:0001]/', '[::ffff:0:7f00:1]', '127.0.0.1 (loopback), carried by the IPv4-translated address ::ffff:0:7f00:1'],
    ['http://[2002:7f00:1::1]/', '[2002:7f00:1::1]', '127.0.0.1 (loopback), carried by the 6to4 address 2002:7f00:1::1'],
    ['http://[2001:db8::1]/', '[2001:db8::1]', '2001:db8::1 (documentation)'],
    ['http://2130706433:PORT/hook', '127.0.0.1', '127.0.0.1 (loopback)'],
    ['http://0x7f.1:PORT/hook', '127.0.0.1', '127.0.0.1 (loopback)'],
  ])('createWebhook(%s) is refused with WEBHOOK_URL_FORBIDDEN at the url field', async (url, host, what) => {
    const r = await t.client.graphql(CREATE, { input: { url: url.replace('PORT', String(port)), version: 'V1' } }, m.sessionToken);
    expect(r.data).toBeNull();
    expect(r.errors).toHaveLength(1);
    expect(r.errors![0]).toMatchObject({
      message: `url host ${host} is not allowed: ${what}.`,
      extensions: { code: 'WEBHOOK_URL_FORBIDDEN', field: ['url'] },
    });
  });

  it.each(['mapped.example', 'mapped-hex.example', 'nat64.example'])('a name resolving to an IPv6 spelling of a private address (%s) is refused', async (host) => {
    const r = await t.client.graphql(CREATE, { input: { url: `http://${host}/hook`, version: 'V2' } }, m.sessionToken);
    expect(r.data).toBeNull();
    expect(r.errors![0]).toMatchObject({
      message: 'The webhook URL must be http(s) and must not resolve to a loopback, private, link-local or metadata address.',
      extensions: { code: 'WEBHOOK_URL_FORBIDDEN', field: ['url'] },
    });
  });

  it('updateWebhook to a mapped loopback address is refused in the DomainError union', async () => {
    const w = await t.client.gql(CREATE, { input: { url: 'https://hooks.example/x', version: 'V1' } }, m.sessionToken);
    const r = await t.client.gql(
      `mutation($id: ID!, $url: String!) { updateWebhook(id: $id, url: $url) { __typename ... on DomainError { code message field } } }`,
      { id: w.createWebhook.webhook.id, url: `http://[::ffff:7f00:1]:${port}/hook` },
      m.sessionToken,
    );
    expect(r.updateWebhook).toEqual({
      __typename: 'DomainError',
      code: 'WEBHOOK_URL_FORBIDDEN',
      message: 'url host [::ffff:7f00:1] is not allowed: 127.0.0.1 (loopback), carried by the IPv4-mapped address ::ffff:7f00:1.',
      field: ['url'],
    });
  });

  it('an IPv6 spelling of a public address is accepted (judged as that IPv4 address)', async () => {
    const r = await t.client.gql(CREATE, { input: { url: 'https://[::ffff:8.8.8.8]/hook', version: 'V2' } }, m.sessionToken);
    expect(r.createWebhook.webhook.url).toBe('https://[::ffff:808:808]/hook');
  });

  it('a stored webhook URL on a mapped loopback address (registered before this rule) is refused when delivering; the receiver gets nothing', async () => {
    const ws = await bootstrap(t.client);
    const w = await t.client.gql(CREATE, { input: { url: 'https://hooks.example/x', version: 'V1' } }, ws.sessionToken);
    const id = w.createWebhook.webhook.id;
    await t.app.db.sql.query(`UPDATE "Webhook" SET url = $1 WHERE id = $2`, [`http://[::ffff:7f00:1]:${port}/hook`, id]);
    await t.client.request('POST', '/v1/invoices', { token: ws.apiKey.secret, body: { bankAccountIds: [], customer: { name: '매핑' }, amount: 11 } });
    await t.app.workers.dispatcher.loop.drain();
    await t.app.workers.webhooks.loop.drain();
    const r = await t.client.gql(`query($id: ID!) { webhook(id: $id) { url deliveries { attempt status responseStatus error } } }`, { id }, ws.sessionToken);
    expect(r.webhook).toEqual({
      url: `http://[::ffff:7f00:1]:${port}/hook`,
      deliveries: [
        { attempt: 1, status: 'FAILED', responseStatus: null, error: 'refused: private or reserved address 127.0.0.1 (loopback), carried by the IPv4-mapped address ::ffff:7f00:1' },
      ],
    });
    expect(rx.received).toEqual([]);
  });
});

describe('the connection-time check on the address a name resolves to', () => {
  const rx = new Receiver();
  let port = 0;
  /** A resolver that answers every name with the IPv4-mapped spelling of 127.0.0.1 (as /etc/hosts or DNS may). */
  const mappedLoopback = ((_host: string, _opts: object, cb: (err: Error | null, addresses: LookupAddress[]) => void) =>
    cb(null, [{ address: '::ffff:127.0.0.1', family: 6 }])) as unknown as typeof import('node:dns').lookup;

  beforeAll(async () => {
    await rx.start();
    port = Number(new URL(rx.url).port);
  });
  afterAll(() => rx.stop());

  it('with private addresses allowed the resolver does lead to the local receiver (so the refusal below is what stops it)', async () => {
    const client = new WebhookHttpClient({ allowPrivate: true, timeoutMs: 2000, lookup: mappedLoopback });
    const r = await client.post(`http://rebind.example:${port}/hook`, '{}', {});
    client.close();
    expect([r.status, r.error]).toEqual([200, null]);
    expect(rx.received).toHaveLength(1);
    rx.received.length = 0;
  });

  it.each([
    [`http://rebind.example:PORT/hook`, 'refused: rebind.example resolves to a private or reserved address'],
    [`http://[::ffff:7f00:1]:PORT/hook`, 'refused: private or reserved address 127.0.0.1 (loopback), carried by the IPv4-mapped address ::ffff:7f00:1'],
    [`http://[::7f00:1]:PORT/hook`, 'refused: private or reserved address 127.0.0.1 (loopback), carried by the IPv4-compatible address ::7f00:1'],
    [`http://[64:ff9b::7f00:1]:PORT/hook`, 'refused: private or reserved address 127.0.0.1 (loopback), carried by the NAT64 address 64:ff9b::7f00:1'],
    [`http://2130706433:PORT/hook`, 'refused: private or reserved address 127.0.0.1 (loopback)'],
  ])('without, a POST to %s is refused before connecting', async (url, error) => {
    const client = new WebhookHttpClient({ allowPrivate: false, timeoutMs: 2000, lookup: mappedLoopback });
    const r = await client.post(url.replace('PORT', String(port)), '{}', {});
    client.close();
    expect({ status: r.status, error: r.error }).toEqual({ status: null, error });
    expect(rx.received).toEqual([]);
  });
});
