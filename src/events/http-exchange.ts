/**
 * One HTTP exchange with an outside API (the cash-receipt agency, a shop platform): bounded in time — the headers and
 * the body, even with a fetch that ignores its abort signal — and in size, redirects refused; the body parsed as a
 * JSON object when it is one. Each adapter turns an ExchangeFailure into its own error.
 */

export interface Exchanged {
  status: number;
  headers: Headers;
  text: string;
  /** The body when it is a JSON object, else null. */
  json: Record<string, any> | null;
}

export class ExchangeFailure extends Error {
  constructor(
    /** TIMEOUT: no complete answer in time; NETWORK: no answer at all; TOO_LARGE: the body passed the limit. */
    readonly kind: 'TIMEOUT' | 'NETWORK' | 'TOO_LARGE',
    /** For NETWORK: the system's code (ECONNREFUSED, ...) or the error's name. */
    readonly reason: string,
  ) {
    super(`${kind}: ${reason}`);
    this.name = 'ExchangeFailure';
  }
}

/** Reads at most `maxBytes` of a response body (the stream is canceled past it). */
async function readBounded(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return await res.text();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ExchangeFailure('TOO_LARGE', `larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function boundedExchange(
  doFetch: typeof fetch,
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string },
  limits: { timeoutMs: number; maxBytes: number },
): Promise<Exchanged> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new ExchangeFailure('TIMEOUT', `no answer within ${limits.timeoutMs} ms`));
    }, limits.timeoutMs);
  });
  try {
    const run = (async () => {
      const res = await doFetch(url, { method: init.method, headers: init.headers, body: init.body, signal: controller.signal, redirect: 'error' });
      return { status: res.status, headers: res.headers, text: await readBounded(res, limits.maxBytes) };
    })();
    run.catch(() => {});
    const { status, headers, text } = await Promise.race([run, expired]);
    let json: Record<string, any> | null = null;
    if (text) {
      try {
        const v = JSON.parse(text);
        if (v && typeof v === 'object' && !Array.isArray(v)) json = v;
      } catch {
        json = null;
      }
    }
    return { status, headers, text, json };
  } catch (e) {
    if (e instanceof ExchangeFailure) throw e;
    if (controller.signal.aborted) throw new ExchangeFailure('TIMEOUT', `no answer within ${limits.timeoutMs} ms`);
    throw new ExchangeFailure('NETWORK', (e as { cause?: { code?: string } })?.cause?.code ?? (e as Error)?.name ?? 'error');
  } finally {
    clearTimeout(timer);
  }
}
