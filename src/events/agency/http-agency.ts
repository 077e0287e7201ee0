/**
 * The cash-receipt agency over HTTP: the CashReceiptAgency port for a Popbill-style API, each request HMAC-signed.
 * Its wire contract, signing, failure codes and management keys: src/events/README.md.
 */
import { boundedExchange, ExchangeFailure, type Exchanged } from '../http-exchange.ts';
import { createHash, createHmac } from 'node:crypto';
import { AgencyError, RECEIPT_PURPOSE, type AgencyIssueRequest, type AgencyResult, type CashReceiptAgency } from '../../domain/cash-receipts/agency.ts';

export interface HttpAgencyOptions {
  baseUrl: string;
  linkId: string;
  secretKey: string;
  /** Per request, including reading the answer (default 10 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Popbill SDKs' code for a call that failed without an answer from the agency. */
export const AGENCY_CALL_FAILED = '-99999999';
/** The agency's code for a management key already registered (a repeated registration). */
export const AGENCY_DUPLICATE_KEY = '-14000003';

const MGT_KEY_RE = /^[A-Za-z0-9_-]{1,24}$/;
const RESPONSE_MAX_CHARS = 1_000_000;

/** The management key as the agency sees it (see the file header). */
export function wireMgtKey(key: string): string {
  if (MGT_KEY_RE.test(key)) return key;
  if (key.startsWith('crt_') && MGT_KEY_RE.test(key.slice(4))) return key.slice(4);
  throw new AgencyError(AGENCY_CALL_FAILED, `The management key ${JSON.stringify(key.slice(0, 40))} does not fit the agency (1-24 characters A-Z a-z 0-9 _ -).`);
}

/** The string an agency request's signature is computed over. */
export function stringToSign(method: string, contentSha256: string, date: string, linkId: string, path: string): string {
  return [method.toUpperCase(), contentSha256, date, linkId, path].join('\n');
}

/** yyyyMMddHHmmss in Korea Standard Time (UTC+9, no daylight saving). */
function kstDateTime(d: Date): string {
  return new Date(d.getTime() + 9 * 3600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

/** Why a call failed, and whether the agency may nevertheless have acted on it. */
class CallFailure extends AgencyError {
  constructor(
    code: string,
    message: string,
    readonly outcomeUnknown: boolean,
  ) {
    super(code, message);
  }
}

export function httpAgency(opts: HttpAgencyOptions): CashReceiptAgency {
  const base = new URL(opts.baseUrl.endsWith('/') ? opts.baseUrl : opts.baseUrl + '/');
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new Error('httpAgency: baseUrl must be an http(s) URL');
  if (!opts.linkId) throw new Error('httpAgency: linkId is required');
  if (!opts.secretKey) throw new Error('httpAgency: secretKey is required');
  const linkId = opts.linkId;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const doFetch = opts.fetch ?? fetch;
  // Kept only in this closure; `sign` is the one reader.
  const secret = Buffer.from(opts.secretKey, 'utf8');
  const sign = (text: string) => createHmac('sha256', secret).update(text, 'utf8').digest('base64');

  const urlFor = (...segments: string[]) => new URL(segments.map(encodeURIComponent).join('/'), base);

  /** One signed call; resolves with any HTTP answer, throws CallFailure when there is none (timeout, network, unreadable). */
  async function call(method: 'GET' | 'POST', url: URL, payload?: unknown): Promise<Answer> {
    const body = payload === undefined ? '' : JSON.stringify(payload);
    const date = new Date().toISOString();
    const contentSha256 = createHash('sha256').update(body, 'utf8').digest('base64');
    const path = url.pathname + url.search;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-pb-date': date,
      'x-pb-content-sha256': contentSha256,
      'x-pb-signature': `LINKHUB ${linkId} ${sign(stringToSign(method, contentSha256, date, linkId, path))}`,
    };
    if (payload !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    let a: Exchanged;
    try {
      // The agency's answers are small JSON: anything past RESPONSE_MAX_CHARS is unreadable (bytes bound the read).
      a = await boundedExchange(doFetch, url, { method, headers, body: payload === undefined ? undefined : body }, { timeoutMs, maxBytes: RESPONSE_MAX_CHARS * 4 });
    } catch (e) {
      if (!(e instanceof ExchangeFailure)) throw e;
      if (e.kind === 'TIMEOUT') throw new CallFailure(AGENCY_CALL_FAILED, `The agency did not answer within ${timeoutMs} ms (${method} ${url.pathname}).`, true);
      if (e.kind === 'TOO_LARGE') throw new CallFailure(AGENCY_CALL_FAILED, `The agency's answer was too large (${method} ${url.pathname}).`, true);
      throw new CallFailure(AGENCY_CALL_FAILED, `The agency could not be reached (${e.reason}; ${method} ${url.pathname}).`, true);
    }
    return { status: a.status, body: a.text.length <= RESPONSE_MAX_CHARS ? a.json : null };
  }

  /** The answer's agency error, if it is one (non-2xx, or a negative `code`); null for a success. */
  function errorOf(a: Answer, what: string): CallFailure | null {
    const code = a.body?.code;
    const ok2xx = a.status >= 200 && a.status < 300;
    const codeIsError = typeof code === 'number' ? code < 0 : typeof code === 'string' ? /^-\d+$/.test(code) : false;
    if (ok2xx && !codeIsError) {
      if (a.body === null) return new CallFailure(AGENCY_CALL_FAILED, `The agency's answer to ${what} was not JSON (HTTP ${a.status}).`, true);
      return null;
    }
    const message = typeof a.body?.message === 'string' && a.body.message ? a.body.message.slice(0, 300) : null;
    const unknown = a.status >= 500 || a.status === 408 || a.status === 429;
    if (codeIsError) return new CallFailure(String(code), message ?? `The agency refused ${what} (HTTP ${a.status}).`, unknown);
    return new CallFailure(AGENCY_CALL_FAILED, `The agency answered ${what} with HTTP ${a.status}${message ? `: ${message}` : ''}.`, unknown);
  }

  async function getInfo(corpNum: string, mgtKey: string): Promise<Answer> {
    return call('GET', urlFor('Cashbill', corpNum, wireMgtKey(mgtKey)));
  }

  return {
    name: 'POPBILL',

    async issue(req: AgencyIssueRequest): Promise<void> {
      const mgtKey = wireMgtKey(req.mgtKey);
      const cancel = req.tradeType === 'CANCEL';
      if (cancel && !req.original) throw new AgencyError(AGENCY_CALL_FAILED, 'A cancellation needs its original receipt.');
      const payload = {
        mgtKey,
        tradeType: cancel ? '취소거래' : '승인거래',
        tradeUsage: RECEIPT_PURPOSE[req.type],
        identityNum: req.identifier,
        franchiseCorpNum: req.corpNum,
        totalAmount: String(req.amount),
        supplyCost: String(req.supplyCost),
        tax: String(req.tax),
        serviceFee: '0',
        tradeDT: kstDateTime(req.requestedAt),
        ...(req.original ? { orgMgtKey: wireMgtKey(req.original.mgtKey), orgConfirmNum: req.original.ntsConfirmNum } : {}),
      };
      let failure: CallFailure;
      try {
        const answer = await call('POST', urlFor('Cashbill', req.corpNum), payload);
        const err = errorOf(answer, 'the registration');
        if (!err || err.code === AGENCY_DUPLICATE_KEY) return;
        failure = err;
      } catch (e) {
        if (!(e instanceof CallFailure)) throw e;
        failure = e;
      }
      if (failure.outcomeUnknown) {
        // The agency may have registered it before failing to answer: if it has the key, the registration stands.
        const probe = await getInfo(req.corpNum, req.mgtKey).catch(() => null);
        if (probe && !errorOf(probe, 'the check') && probe.body?.mgtKey === mgtKey) return;
      }
      throw new AgencyError(failure.code, failure.message);
    },

    async queryResult(req): Promise<AgencyResult> {
      let answer: Answer;
      try {
        answer = await getInfo(req.corpNum, req.mgtKey);
      } catch (e) {
        if (e instanceof CallFailure) throw new AgencyError(e.code, e.message);
        throw e;
      }
      const err = errorOf(answer, 'the result query');
      if (err) throw new AgencyError(err.code, err.message);
      const b = answer.body!;
      const state = Number(b.stateCode);
      const resultCode = typeof b.ntsresultCode === 'string' && b.ntsresultCode ? b.ntsresultCode : null;
      if (state === 304) {
        if (typeof b.confirmNum !== 'string' || !b.confirmNum) throw new AgencyError(AGENCY_CALL_FAILED, 'The agency reported the receipt issued without a confirmation number.');
        return { state: 'ISSUED', ntsConfirmNum: b.confirmNum, ntsResultCode: resultCode ?? '0000' };
      }
      if (state === 305) {
        const message = typeof b.ntsresultMessage === 'string' && b.ntsresultMessage ? b.ntsresultMessage.slice(0, 300) : `The tax authority rejected the receipt (result code ${resultCode ?? 'unknown'}).`;
        return { state: 'FAILED', ntsResultCode: resultCode ?? 'UNKNOWN', message };
      }
      return { state: 'PENDING' };
    },

    async sendEmail(req): Promise<void> {
      let answer: Answer;
      try {
        answer = await call('POST', urlFor('Cashbill', req.corpNum, wireMgtKey(req.mgtKey), 'Email'), { receiver: req.email });
      } catch (e) {
        if (e instanceof CallFailure) throw new AgencyError(e.code, e.message);
        throw e;
      }
      const err = errorOf(answer, 'the e-mail request');
      if (err) throw new AgencyError(err.code, err.message);
    },
  };
}
