/**
 * A local fake of the Popbill-style cash-receipt agency (node:http) for tests of the HTTP agency adapter
 * (src/events/agency/http-agency.ts documents the wire contract and the signature; this file re-implements both
 * independently, so a mismatch fails the tests).
 *
 * It verifies every request's signature (link id, HMAC-SHA256 over method, body hash, date, link id and path; the
 * body hash; a date within 5 minutes), stores receipts by corporate number and management key, checks cancellations
 * against their original, and settles the tax authority's result later: automatically `settleAfterMs` after
 * registration, or only when told (`autoSettle = false`, then `settle(mgtKey)`). Like the simulated agency:
 * identifiers starting 0100009 are rejected by the tax authority, 0100008 are refused by the agency, e-mail to
 * fail.example fails. `next(op, behaviour)` scripts the next request of a kind: refuse with a code, fail with a
 * status (before or after storing), or hang without answering.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_CODES = {
  badSignature: -11000010,
  staleDate: -11000011,
  duplicateKey: -14000003,
  notFound: -14000008,
  invalidRequest: -14000001,
  originalMismatch: -14000020,
  identityRefused: -14000010,
  emailFailed: -11000005,
} as const;

export const FAKE_NTS_REJECT_CODE = '2001';

export interface FakeReceipt {
  corpNum: string;
  mgtKey: string;
  tradeType: '승인거래' | '취소거래';
  tradeUsage: string;
  identityNum: string;
  totalAmount: number;
  supplyCost: number;
  tax: number;
  tradeDT: string;
  orgMgtKey: string | null;
  orgConfirmNum: string | null;
  /** 300 issued (waiting for the tax authority), 304 accepted, 305 refused. */
  stateCode: 300 | 304 | 305;
  confirmNum: string | null;
  ntsresultCode: string | null;
  ntsresultMessage: string | null;
  registeredAt: number;
  emails: string[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The status answered (undefined while hanging or for a request never answered). */
  status?: number;
}

export type Op = 'issue' | 'query' | 'email';
export type Behaviour =
  /** Refuse with this agency code (HTTP 400 unless `status`). */
  | { refuse: number; message?: string; status?: number }
  /** Answer this status (e.g. 500, 503) with `body` (default: a plain-text page), without storing anything. */
  | { status: number; body?: string }
  /** Register the receipt, then answer 500 as if the agency fell over before answering. */
  | { storeThenStatus: number }
  /** Never answer (the connection stays open until the client gives up or the fake closes). */
  | { hang: true };

export interface FakeAgency {
  url: string;
  linkId: string;
  receipts: Map<string, FakeReceipt>;
  requests: RecordedRequest[];
  /** Settle results by themselves `settleAfterMs` after registration (default true, 0 ms). */
  autoSettle: boolean;
  settleAfterMs: number;
  /** The next request of that kind behaves so (once). */
  next(op: Op, behaviour: Behaviour): void;
  /** Settles a registered receipt now: accepted, or refused by the tax authority. */
  settle(mgtKey: string, verdict?: 'accept' | 'reject'): FakeReceipt;
  /** The receipt by management key (any corporate number). */
  find(mgtKey: string): FakeReceipt | undefined;
  /** How many GET (result) requests reached a management key. */
  queries(mgtKey: string): number;
  close(): Promise<void>;
}

const DATE_SKEW_MS = 5 * 60_000;
const MGT_KEY_RE = /^[A-Za-z0-9_-]{1,24}$/;

export async function startFakeAgency(opts: { linkId: string; secretKey: string; autoSettle?: boolean; settleAfterMs?: number }): Promise<FakeAgency> {
  const receipts = new Map<string, FakeReceipt>();
  const requests: RecordedRequest[] = [];
  const scripted: Record<Op, Behaviour[]> = { issue: [], query: [], email: [] };
  const hanging = new Set<ServerResponse>();
  const queryCounts = new Map<string, number>();
  let confirmSeq = 0;

  const keyOf = (corpNum: string, mgtKey: string) => `${corpNum}/${mgtKey}`;

  function verify(req: IncomingMessage, path: string, body: string): { code: number; message: string } | null {
    const date = String(req.headers['x-pb-date'] ?? '');
    const contentSha = String(req.headers['x-pb-content-sha256'] ?? '');
    const m = /^LINKHUB (\S+) (\S+)$/.exec(String(req.headers['x-pb-signature'] ?? ''));
    if (!m || m[1] !== opts.linkId) return { code: FAKE_CODES.badSignature, message: 'Unknown link id or malformed signature header.' };
    if (createHash('sha256').update(body, 'utf8').digest('base64') !== contentSha) return { code: FAKE_CODES.badSignature, message: 'The body does not match x-pb-content-sha256.' };
    const expected = createHmac('sha256', Buffer.from(opts.secretKey, 'utf8'))
      .update([req.method!.toUpperCase(), contentSha, date, m[1], path].join('\n'), 'utf8')
      .digest();
    const given = Buffer.from(m[2], 'base64');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { code: FAKE_CODES.badSignature, message: 'Signature mismatch.' };
    const at = Date.parse(date);
    if (!Number.isFinite(at) || Math.abs(Date.now() - at) > DATE_SKEW_MS) return { code: FAKE_CODES.staleDate, message: 'x-pb-date is too far from the agency clock.' };
    return null;
  }

  function settleNow(r: FakeReceipt, verdict: 'accept' | 'reject') {
    if (r.stateCode !== 300) return;
    if (verdict === 'accept') {
      r.stateCode = 304;
      r.confirmNum = 'TB' + String(++confirmSeq).padStart(7, '0');
      r.ntsresultCode = '0000';
      r.ntsresultMessage = '정상 처리되었습니다.';
    } else {
      r.stateCode = 305;
      r.ntsresultCode = FAKE_NTS_REJECT_CODE;
      r.ntsresultMessage = `The tax authority refused identity number ${r.identityNum} (fake).`;
    }
  }

  /** Auto-settles a PENDING receipt whose time has come (lazily, when asked about). */
  function maybeAutoSettle(r: FakeReceipt) {
    if (fake.autoSettle && r.stateCode === 300 && Date.now() >= r.registeredAt + fake.settleAfterMs) settleNow(r, r.identityNum.startsWith('0100009') ? 'reject' : 'accept');
  }

  const toInt = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN);

  function register(corpNum: string, b: Record<string, any>): [number, object] {
    const mgtKey = String(b.mgtKey ?? '');
    if (!MGT_KEY_RE.test(mgtKey)) return [400, { code: FAKE_CODES.invalidRequest, message: 'mgtKey must be 1-24 characters A-Z a-z 0-9 _ -.' }];
    if (b.tradeType !== '승인거래' && b.tradeType !== '취소거래') return [400, { code: FAKE_CODES.invalidRequest, message: 'tradeType must be 승인거래 or 취소거래.' }];
    if (b.tradeUsage !== '소득공제용' && b.tradeUsage !== '지출증빙용') return [400, { code: FAKE_CODES.invalidRequest, message: 'tradeUsage must be 소득공제용 or 지출증빙용.' }];
    const [total, supply, tax, fee] = [b.totalAmount, b.supplyCost, b.tax, b.serviceFee].map(toInt);
    if (![total, supply, tax, fee].every(Number.isSafeInteger) || supply + tax + fee !== total || total <= 0) return [400, { code: FAKE_CODES.invalidRequest, message: 'Amounts must be whole won with supplyCost + tax + serviceFee = totalAmount.' }];
    if (typeof b.identityNum !== 'string' || !/^\d{10,13}$/.test(b.identityNum)) return [400, { code: FAKE_CODES.invalidRequest, message: 'identityNum is invalid.' }];
    if (b.franchiseCorpNum !== corpNum || typeof b.tradeDT !== 'string' || !/^\d{14}$/.test(b.tradeDT)) return [400, { code: FAKE_CODES.invalidRequest, message: 'franchiseCorpNum or tradeDT is invalid.' }];
    if (receipts.has(keyOf(corpNum, mgtKey))) return [400, { code: FAKE_CODES.duplicateKey, message: 'This management key is already in use.' }];
    if (b.identityNum.startsWith('0100008')) return [400, { code: FAKE_CODES.identityRefused, message: 'The agency refused the identity number (fake, 0100008...).' }];
    let orgMgtKey: string | null = null;
    let orgConfirmNum: string | null = null;
    if (b.tradeType === '취소거래') {
      const original = receipts.get(keyOf(corpNum, String(b.orgMgtKey ?? '')));
      if (!original || original.tradeType !== '승인거래' || original.stateCode !== 304 || original.confirmNum !== b.orgConfirmNum) {
        return [400, { code: FAKE_CODES.originalMismatch, message: 'The original receipt (orgMgtKey, orgConfirmNum) is not an accepted approval.' }];
      }
      const canceled = [...receipts.values()].filter((r) => r.orgMgtKey === original.mgtKey && r.corpNum === corpNum && r.stateCode !== 305).reduce((s, r) => s + r.totalAmount, 0);
      if (canceled + total > original.totalAmount) return [400, { code: FAKE_CODES.invalidRequest, message: 'More canceled than the original amount.' }];
      orgMgtKey = original.mgtKey;
      orgConfirmNum = original.confirmNum;
    }
    receipts.set(keyOf(corpNum, mgtKey), {
      corpNum,
      mgtKey,
      tradeType: b.tradeType,
      tradeUsage: b.tradeUsage,
      identityNum: b.identityNum,
      totalAmount: total,
      supplyCost: supply,
      tax,
      tradeDT: b.tradeDT,
      orgMgtKey,
      orgConfirmNum,
      stateCode: 300,
      confirmNum: null,
      ntsresultCode: null,
      ntsresultMessage: null,
      registeredAt: Date.now(),
      emails: [],
    });
    return [200, { code: 1, message: '발행되었습니다.' }];
  }

  function info(r: FakeReceipt) {
    return { mgtKey: r.mgtKey, tradeType: r.tradeType, stateCode: r.stateCode, confirmNum: r.confirmNum, ntsresultCode: r.ntsresultCode, ntsresultMessage: r.ntsresultMessage, totalAmount: String(r.totalAmount) };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname + url.search;
    const record: RecordedRequest = { method: req.method ?? '', path, headers: { ...req.headers }, body };
    requests.push(record);
    const send = (status: number, payload: object | string) => {
      record.status = status;
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      res.writeHead(status, { 'content-type': typeof payload === 'string' ? 'text/html' : 'application/json; charset=utf-8' });
      res.end(text);
    };

    const bad = verify(req, path, body);
    if (bad) return send(401, bad);

    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const at = parts.indexOf('Cashbill');
    const [corpNum, mgtKey, action] = at >= 0 ? parts.slice(at + 1) : [];
    const op: Op | null =
      req.method === 'POST' && corpNum && !mgtKey ? 'issue' : req.method === 'GET' && corpNum && mgtKey && !action ? 'query' : req.method === 'POST' && action === 'Email' ? 'email' : null;
    if (!op || !/^\d{10}$/.test(corpNum)) return send(404, { code: FAKE_CODES.notFound, message: 'No such operation.' });

    let parsed: Record<string, any> = {};
    if (req.method === 'POST') {
      try {
        parsed = JSON.parse(body);
      } catch {
        return send(400, { code: FAKE_CODES.invalidRequest, message: 'The body is not JSON.' });
      }
    }

    const behaviour = scripted[op].shift();
    if (behaviour && 'hang' in behaviour) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (behaviour && 'refuse' in behaviour) return send(behaviour.status ?? 400, { code: behaviour.refuse, message: behaviour.message ?? 'Refused (scripted).' });
    if (behaviour && 'status' in behaviour) return send(behaviour.status, behaviour.body ?? '<html><body>Service Unavailable</body></html>');

    if (op === 'issue') {
      const [status, answer] = register(corpNum, parsed);
      if (behaviour && 'storeThenStatus' in behaviour) return send(behaviour.storeThenStatus, '<html><body>Internal Server Error</body></html>');
      return send(status, answer);
    }
    const r = receipts.get(keyOf(corpNum, mgtKey));
    if (!r) return send(404, { code: FAKE_CODES.notFound, message: 'No receipt with this management key.' });
    if (op === 'query') {
      queryCounts.set(mgtKey, (queryCounts.get(mgtKey) ?? 0) + 1);
      maybeAutoSettle(r);
      return send(200, info(r));
    }
    const receiver = parsed.receiver;
    if (typeof receiver !== 'string' || !receiver.includes('@')) return send(400, { code: FAKE_CODES.invalidRequest, message: 'receiver is invalid.' });
    if (r.stateCode !== 304) return send(400, { code: FAKE_CODES.invalidRequest, message: 'Only accepted receipts can be e-mailed.' });
    if (receiver.toLowerCase().endsWith('@fail.example')) return send(400, { code: FAKE_CODES.emailFailed, message: 'The agency could not send the e-mail (fake, fail.example).' });
    r.emails.push(receiver);
    return send(200, { code: 1, message: '전송되었습니다.' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const fake: FakeAgency = {
    url: `http://127.0.0.1:${port}/popbill`,
    linkId: opts.linkId,
    receipts,
    requests,
    autoSettle: opts.autoSettle ?? true,
    settleAfterMs: opts.settleAfterMs ?? 0,
    next(op, behaviour) {
      scripted[op].push(behaviour);
    },
    settle(mgtKey, verdict) {
      const r = fake.find(mgtKey);
      if (!r) throw new Error(`fake agency: no receipt ${mgtKey}`);
      settleNow(r, verdict ?? (r.identityNum.startsWith('0100009') ? 'reject' : 'accept'));
      return r;
    },
    find(mgtKey) {
      for (const r of receipts.values()) if (r.mgtKey === mgtKey) return r;
      return undefined;
    },
    queries(mgtKey) {
      return queryCounts.get(mgtKey) ?? 0;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
