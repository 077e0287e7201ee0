/**
 * A shop's install, the browser's side (README, Shop integrations, "Connecting a shop"), against the fake Cafe24 and
 * the simulated shop:
 *
 * - simulated shops are sandboxes: any number of workspaces connect the README tour's `demo-shop`;
 * - each install's approval has its own cookie and the form names its install: two installs in one browser each
 *   connect their own shop, a form is refused with another install's cookie, and a success clears its cookie only;
 * - a pending approval (its live tokens) is erased when it expires (the sweep), when the connection is disconnected,
 *   and when a new install of the connection starts; a disconnected connection is never connected again by one;
 * - the one-workspace-per-shop rule: not told at startShopInstall, not held by a pending approval elsewhere, and a
 *   refusal does not spend the approval; an approval posted on another platform's path changes nothing;
 * - the cookie's Secure flag; the page's workspace name cleaned and capped, its owner's e-mail masked;
 * - the cap on connections per workspace.
 *
 * The clock is an OffsetClock, moved past the approval's 10 minutes where a test needs it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap, ServiceClient, type Bootstrapped } from '../../src/cli/client.ts';
import { connectSimulatedShop } from '../../src/cli/shops.ts';
import { loadConfig } from '../../src/config/config.ts';
import { OffsetClock } from '../../src/domain/clock.ts';
import { approvalWorkspaceName, clearExpiredApprovals, MAX_SHOP_CONNECTIONS, MAX_SIMULATED_CONNECTIONS, maskEmail } from '../../src/domain/shops/connections.ts';
import { buildApp, type App } from '../../src/http/app.ts';
import { cookieSecure as approvalCookieSecure } from '../../src/http/cookies.ts';
import { dbLabel, freshDatabase, type TestDatabase } from '../helpers/app.ts';
import { startFakeCafe24, type FakeCafe24 } from '../helpers/fake-cafe24.ts';
import { openCallback, submitApproval, type ApprovalAnswer } from '../helpers/shop-install.ts';

const CLIENT_ID = 'btp-cafe24-install';
const CLIENT_SECRET = 'cafe24-install-secret-4Rt8Uw1Xz6Qa';
const REDIRECT_URI = 'https://pay.example.test/shops/cafe24/callback';
const START = `mutation($i: StartShopInstallInput!) { startShopInstall(input: $i) { __typename ... on ShopInstallPayload { authorizeUrl connection { id state shopId } } ... on DomainError { code message } } }`;
const DISCONNECT = `mutation($id: ID!) { disconnectShop(id: $id) { __typename ... on ShopConnectionPayload { connection { state } } ... on DomainError { code message } } }`;
const ELSEWHERE = 'This shop is connected to another workspace of this service; disconnect it there, or contact support.';

describe(`shop installs in the browser on ${dbLabel}`, () => {
  let fake: FakeCafe24;
  let db: TestDatabase;
  let dataDir: string;
  let app: App;
  let url: string;
  let client: ServiceClient;
  let a: Bootstrapped;
  let b: Bootstrapped;
  const clock = new OffsetClock();

  const start = async (who: Bootstrapped, platform: string, shopId: string) => (await client.gql(START, { i: { platform, shopId } }, who.sessionToken)).startShopInstall;
  /** Cafe24's consent (the fake approves any browser): the service's callback URL, on `base`. */
  const consent = async (authorizeUrl: string, base = url) => {
    const r = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(r.status).toBe(302);
    return `${base}/shops/cafe24/callback${new URL(r.headers.get('location')!).search}`;
  };
  /** A Cafe24 install started by `who` and approved at Cafe24: the callback's answer (the approval asked for). */
  const approvedAtCafe24 = async (who: Bootstrapped, shopId: string) => {
    const s = await start(who, 'CAFE24', shopId);
    expect(s.__typename).toBe('ShopInstallPayload');
    const opened = await openCallback(await consent(s.authorizeUrl));
    expect(opened.status).toBe(200);
    return { id: s.connection.id as string, opened };
  };
  const row = async (id: string) =>
    (
      await app.db.sql.query<{ state: string; pending: boolean; hash: boolean; expires: boolean; access: boolean }>(
        `SELECT state, "pendingTokensSealed" IS NOT NULL AS pending, "approvalHash" IS NOT NULL AS hash, "approvalExpiresAt" IS NOT NULL AS expires, "accessTokenSealed" IS NOT NULL AS access
           FROM "ShopConnection" WHERE id = $1`,
        [id],
      )
    )[0]!;
  const PENDING = { pending: true, hash: true, expires: true };
  const NONE_PENDING = { pending: false, hash: false, expires: false };
  const approvalOf = (opened: ApprovalAnswer) => opened.body.approval as { approveUrl: string; connection: { id: string; shopId: string } };

  beforeAll(async () => {
    fake = await startFakeCafe24({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: REDIRECT_URI });
    db = await freshDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'shop-install-'));
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      AGENCY_SIM_DELAY_MS: '0',
      SHOP_SYNC_INTERVAL_MS: '3600000',
      ...fake.serviceEnv(),
    });
    app = await buildApp(config, { database: db.database, clock, logger: pino({ level: 'silent' }) });
    url = (await app.start()).url;
    client = new ServiceClient(url);
    a = await bootstrap(client);
    b = await bootstrap(client);
  });
  afterAll(async () => {
    await app?.stop({ graceMs: 100 });
    await fake?.close();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("the README tour's demo-shop connects for every workspace: a simulated shop is each connection's own sandbox", async () => {
    const one = await connectSimulatedShop(client, a.sessionToken, 'demo-shop');
    const two = await connectSimulatedShop(client, b.sessionToken, 'demo-shop');
    expect(one).toMatchObject({ platform: 'SIMULATED', shopId: 'demo-shop', state: 'CONNECTED' });
    expect(two).toMatchObject({ platform: 'SIMULATED', shopId: 'demo-shop', state: 'CONNECTED' });
    expect(two.id).not.toBe(one.id);
    // A third workspace, through the GraphQL mutation and the callback in process, likewise.
    const c = await bootstrap(client);
    const s = await start(c, 'SIMULATED', 'demo-shop');
    expect(s.__typename).toBe('ShopInstallPayload');
    const approval = await app.fetch(new Request(new URL(s.authorizeUrl, url)));
    const done = await app.fetch(new Request(new URL(approval.headers.get('location')!, url), { headers: { accept: 'application/json' } }));
    expect(done.status).toBe(200);
    expect(((await done.json()) as { connection: unknown }).connection).toMatchObject({ shopId: 'demo-shop', state: 'CONNECTED' });
  });

  it('two installs in one browser: each form connects its own shop, and a success clears its own cookie only', async () => {
    const one = await approvedAtCafe24(a, 'tabone01');
    const two = await approvedAtCafe24(a, 'tabtwo02');
    // Two cookies, one per install: the second did not replace the first.
    expect(one.opened.cookie).toMatch(new RegExp(`^shop_install_approval_${one.id}=`));
    expect(two.opened.cookie).toMatch(new RegExp(`^shop_install_approval_${two.id}=`));
    expect(one.opened.setCookie).toMatch(/; Path=\/shops; HttpOnly; SameSite=Lax; Max-Age=600/);
    const jar = [one.opened.cookie!, two.opened.cookie!];
    // Tab 1's form (the page asked about tabone01) with both cookies: tabone01 is connected, not tabtwo02.
    const first = await submitApproval(url, approvalOf(one.opened), jar, a);
    expect(first.status).toBe(200);
    expect(first.body.connection).toEqual({ id: one.id, platform: 'CAFE24', shopId: 'tabone01', state: 'CONNECTED' });
    expect(first.setCookie).toMatch(new RegExp(`^shop_install_approval_${one.id}=; Path=/shops; .*Max-Age=0`));
    expect(await row(two.id)).toMatchObject({ state: 'INSTALLING', ...PENDING });
    // Tab 2's own approval is intact.
    const second = await submitApproval(url, approvalOf(two.opened), [two.opened.cookie!], a);
    expect(second.status).toBe(200);
    expect(second.body.connection).toEqual({ id: two.id, platform: 'CAFE24', shopId: 'tabtwo02', state: 'CONNECTED' });
    expect(await row(one.id)).toMatchObject({ state: 'CONNECTED', ...NONE_PENDING });
  });

  it("a form is refused with another install's cookie: nothing changes", async () => {
    const one = await approvedAtCafe24(a, 'mixone01');
    const two = await approvedAtCafe24(a, 'mixtwo02');
    const nonceOf = (o: ApprovalAnswer) => o.cookie!.split('=')[1]!;
    // Install one's form with only install two's cookie; then with install two's nonce under install one's name.
    const other = await submitApproval(url, approvalOf(one.opened), [two.opened.cookie!], a);
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('BAD_REQUEST');
    const swapped = await submitApproval(url, approvalOf(one.opened), [`shop_install_approval_${one.id}=${nonceOf(two.opened)}`], a);
    expect(swapped.status).toBe(400);
    // No install named, or a made-up one.
    const unnamed = await submitApproval(url, { approveUrl: '/shops/cafe24/approve', connection: { id: '' } }, [one.opened.cookie!], a);
    expect(unnamed.status).toBe(400);
    for (const id of [one.id, two.id]) expect(await row(id)).toMatchObject({ state: 'INSTALLING', ...PENDING });
    // Each still completes with its own cookie.
    expect((await submitApproval(url, approvalOf(two.opened), [two.opened.cookie!], a)).status).toBe(200);
    expect((await submitApproval(url, approvalOf(one.opened), [one.opened.cookie!], a)).status).toBe(200);
  });

  it('a pending approval is erased when it expires (the sweep), when the shop is disconnected, and when a new install starts', async () => {
    // Expiry: after 10 minutes the sweep erases the pending tokens; an approval still in time is left alone.
    const late = await approvedAtCafe24(a, 'latemall');
    clock.advance(9 * 60_000);
    const timely = await approvedAtCafe24(a, 'timelymall');
    clock.advance(2 * 60_000);
    expect(await clearExpiredApprovals(app.deps)).toBeGreaterThanOrEqual(1);
    expect(await row(late.id)).toMatchObject({ state: 'INSTALLING', ...NONE_PENDING });
    expect(await row(timely.id)).toMatchObject({ state: 'INSTALLING', ...PENDING });
    expect((await submitApproval(url, approvalOf(late.opened), late.opened.cookie, a)).status).toBe(400);
    expect((await submitApproval(url, approvalOf(timely.opened), timely.opened.cookie, a)).status).toBe(200);

    // Disconnect: the approval goes with the install, and a later approval does not connect the shop again.
    const disc = await approvedAtCafe24(a, 'discmall');
    const d = await client.gql(DISCONNECT, { id: disc.id }, a.sessionToken);
    expect(d.disconnectShop).toMatchObject({ __typename: 'ShopConnectionPayload', connection: { state: 'DISCONNECTED' } });
    expect(await row(disc.id)).toMatchObject({ state: 'DISCONNECTED', ...NONE_PENDING, access: false });
    const afterDisconnect = await submitApproval(url, approvalOf(disc.opened), disc.opened.cookie, a);
    expect(afterDisconnect.status).toBe(400);
    expect(await row(disc.id)).toMatchObject({ state: 'DISCONNECTED', access: false });

    // A connected shop disconnected while a new install of it waits for its approval: likewise.
    const again = await approvedAtCafe24(a, 'tabone01');
    expect(await row(again.id)).toMatchObject({ state: 'CONNECTED', ...PENDING });
    await client.gql(DISCONNECT, { id: again.id }, a.sessionToken);
    expect((await submitApproval(url, approvalOf(again.opened), again.opened.cookie, a)).status).toBe(400);
    expect(await row(again.id)).toMatchObject({ state: 'DISCONNECTED', ...NONE_PENDING, access: false });

    // A new install of the same connection replaces the approval waiting from the last one.
    const replaced = await approvedAtCafe24(a, 'replmall');
    const restarted = await start(a, 'CAFE24', 'replmall');
    expect(restarted.connection.id).toBe(replaced.id);
    expect(await row(replaced.id)).toMatchObject({ state: 'INSTALLING', ...NONE_PENDING });
    expect((await submitApproval(url, approvalOf(replaced.opened), replaced.opened.cookie, a)).status).toBe(400);
  });

  it('one workspace per shop: not told at the start, not held by a pending approval elsewhere, and a refusal does not spend the approval', async () => {
    // Workspace A has the mall; B starting an install of it learns nothing (the same answer as for an unknown mall).
    const owned = await approvedAtCafe24(a, 'ownedmall');
    expect((await submitApproval(url, approvalOf(owned.opened), owned.opened.cookie, a)).status).toBe(200);
    expect((await start(b, 'CAFE24', 'ownedmall')).__typename).toBe('ShopInstallPayload');
    expect((await start(b, 'CAFE24', 'nobodymall')).__typename).toBe('ShopInstallPayload');

    // A stranger's install of the owner's mall waits for its approval (the owner was tricked into approving the link
    // at Cafe24, and closed the page); the owner's own install completes all the same.
    const strangers = await approvedAtCafe24(b, 'racemall2');
    const owners = await approvedAtCafe24(a, 'racemall2');
    const mine = await submitApproval(url, approvalOf(owners.opened), owners.opened.cookie, a);
    expect(mine.status).toBe(200);
    expect(mine.body.connection).toMatchObject({ id: owners.id, state: 'CONNECTED' });
    // The stranger's approval, completed now, is refused with the owner's message, and is not spent...
    const refused = await submitApproval(url, approvalOf(strangers.opened), strangers.opened.cookie, b);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT', message: ELSEWHERE });
    expect(await row(strangers.id)).toMatchObject({ state: 'INSTALLING', ...PENDING });
    // ...so once the shop is disconnected where it was, the same approval completes.
    await client.gql(DISCONNECT, { id: owners.id }, a.sessionToken);
    const moved = await submitApproval(url, approvalOf(strangers.opened), strangers.opened.cookie, b);
    expect(moved.status).toBe(200);
    expect(moved.body.connection).toMatchObject({ id: strangers.id, shopId: 'racemall2', state: 'CONNECTED' });
  });

  it("an approval posted on another platform's path is refused before anything changes", async () => {
    const p = await approvedAtCafe24(a, 'pathmall');
    const wrongPath = await submitApproval(url, { ...approvalOf(p.opened), approveUrl: '/shops/simulated/approve' }, p.opened.cookie, a);
    expect(wrongPath.status).toBe(400);
    expect(await row(p.id)).toMatchObject({ state: 'INSTALLING', ...PENDING });
    expect((await submitApproval(url, approvalOf(p.opened), p.opened.cookie, a)).status).toBe(200);
  });

  it('the approval cookie is Secure unless the page is plain http on a loopback host with no proxy saying https', async () => {
    const req = (u: string, headers: Record<string, string> = {}) => new Request(u, { headers });
    expect(approvalCookieSecure(req('https://pay.example.test/shops/cafe24/callback'))).toBe(true);
    expect(approvalCookieSecure(req('http://pay.example.test/shops/cafe24/callback'))).toBe(true);
    expect(approvalCookieSecure(req('http://10.0.0.5:3000/shops/cafe24/callback'))).toBe(true);
    expect(approvalCookieSecure(req('http://127.0.0.1:3000/shops/cafe24/callback', { 'x-forwarded-proto': 'https' }))).toBe(true);
    expect(approvalCookieSecure(req('http://localhost:3000/shops/cafe24/callback', { forwarded: 'for=192.0.2.1;proto=https' }))).toBe(true);
    for (const u of ['http://localhost:3000/x', 'http://127.0.0.1:3000/x', 'http://[::1]:3000/x', 'http://app.localhost/x']) expect(approvalCookieSecure(req(u))).toBe(false);
    expect(approvalCookieSecure(req('http://127.0.0.1:3000/x', { 'x-forwarded-proto': 'http' }))).toBe(false);

    // The callback itself: behind a TLS-terminating proxy (plain http to the service, the public host name).
    const s = await start(a, 'CAFE24', 'securemall');
    const behindProxy = await app.fetch(new Request(await consent(s.authorizeUrl, 'http://pay.example.test'), { headers: { accept: 'application/json' } }));
    expect(behindProxy.status).toBe(200);
    expect(behindProxy.headers.get('set-cookie')).toMatch(new RegExp(`^shop_install_approval_${s.connection.id}=[A-Za-z0-9_-]{43}; Path=/shops; HttpOnly; SameSite=Lax; Max-Age=600; Secure$`));
    // On this machine's loopback address (the tests' server): not Secure, or a browser on http://127.0.0.1 would drop it.
    const local = await approvedAtCafe24(a, 'localmall');
    expect(local.opened.setCookie).not.toContain('Secure');
  });

  it("the approval page names the workspace cleaned of control and bidi characters, at most 40 characters, with its owner's e-mail masked", async () => {
    expect(approvalWorkspaceName('Acme\u202E moc.liamg\u202C\u200B\n\tShop\u0000')).toBe('Acme moc.liamg Shop');
    expect(approvalWorkspaceName('\u2066\u2067\u200F')).toBe('(unnamed)');
    const long = approvalWorkspaceName('가'.repeat(100));
    expect(Array.from(long)).toHaveLength(40);
    expect(long.endsWith('…')).toBe(true);
    expect(maskEmail('merchant@example.com')).toBe('me***@ex***.com');
    expect(maskEmail('m@shop.co.kr')).toBe('m***@sh***.kr');

    const stranger = await bootstrap(client);
    const instructions = `Cafe24 security check\u202E: log in with verify@example.net / Temp#1234 \u2066now\u2069 ${'x'.repeat(60)}`;
    // Any name a workspace's owner may give it (set here directly).
    await app.db.sql.query(`UPDATE "Workspace" SET name = $2 WHERE id = $1`, [stranger.workspaceId, instructions]);
    const s = await start(stranger, 'CAFE24', 'namedmall');
    const page = await fetch(await consent(s.authorizeUrl));
    expect(page.status).toBe(200);
    const html = await page.text();
    const shown = approvalWorkspaceName(instructions);
    expect(Array.from(shown)).toHaveLength(40);
    expect(shown).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(html).toContain(`“${shown.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}”`);
    expect(html).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(html).not.toContain('x'.repeat(30));
    expect(html).toContain(`(owner ${maskEmail(stranger.email)})`);
    expect(html).not.toContain(stranger.email);
    // The form names its install.
    expect(html).toContain(`<input type="hidden" name="connection" value="${s.connection.id}">`);
  });

  it(`a workspace may have ${MAX_SIMULATED_CONNECTIONS} simulated shops and ${MAX_SHOP_CONNECTIONS} in all, connected or being installed`, async () => {
    const w = await bootstrap(client);
    const sims = [];
    for (let i = 0; i < MAX_SIMULATED_CONNECTIONS; i++) sims.push(await start(w, 'SIMULATED', `cap-sim-${i}`));
    expect(sims.every((s) => s.__typename === 'ShopInstallPayload')).toBe(true);
    const over = await start(w, 'SIMULATED', 'cap-sim-extra');
    expect(over).toMatchObject({ __typename: 'DomainError', code: 'SHOP_CONNECTION_LIMIT_REACHED', message: expect.stringContaining(`at most ${MAX_SIMULATED_CONNECTIONS} simulated shops`) });
    // Installing one of them again is not one more; a disconnected one no longer counts.
    expect((await start(w, 'SIMULATED', 'cap-sim-0')).connection.id).toBe(sims[0].connection.id);
    await client.gql(DISCONNECT, { id: sims[0].connection.id }, w.sessionToken);
    expect((await start(w, 'SIMULATED', 'cap-sim-extra')).__typename).toBe('ShopInstallPayload');
    // Real shops up to the cap in all (simulated ones count too), then refused.
    for (let i = 0; i < MAX_SHOP_CONNECTIONS - MAX_SIMULATED_CONNECTIONS; i++) expect((await start(w, 'CAFE24', `capmall${i}`)).__typename).toBe('ShopInstallPayload');
    expect(await start(w, 'CAFE24', 'capmallextra')).toMatchObject({ __typename: 'DomainError', code: 'SHOP_CONNECTION_LIMIT_REACHED', message: expect.stringContaining(`at most ${MAX_SHOP_CONNECTIONS} shops`) });
    // Another workspace is not affected.
    expect((await start(b, 'CAFE24', 'capmallextra')).__typename).toBe('ShopInstallPayload');
  });
});
