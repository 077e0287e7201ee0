/**
 * HTTP/1.1 over a bare socket, for what `fetch` refuses to send: bytes that are not UTF-8 in the request target and
 * header values, wrong Content-Length, broken chunked encoding, unknown methods, duplicate headers.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  text: string;
  /** The raw bytes, for a failure message. */
  raw: Buffer;
}

/** Sends `request` bytes to host:port and reads until the server closes (requests carry Connection: close). */
export function rawRequest(port: number, request: Buffer, timeoutMs = 15_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e) => {
      // A reset after the answer was written still gives the answer.
      clearTimeout(timer);
      const raw = Buffer.concat(chunks);
      if (raw.length) resolve(parse(raw));
      else reject(e);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      socket.end();
      try {
        resolve(parse(Buffer.concat(chunks)));
      } catch (e) {
        reject(e);
      }
    });
    socket.write(request, () => socket.end());
  });
}

function parse(raw: Buffer): RawAnswer {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no HTTP answer head in ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const head = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0]);
  if (!m) throw new Error(`bad status line ${JSON.stringify(head[0])}`);
  const headers = new Map<string, string>();
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
  }
  let body = raw.subarray(headEnd + 4);
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) body = dechunk(body);
  else if (headers.has('content-length')) body = body.subarray(0, Number(headers.get('content-length')));
  return { status: Number(m[1]), headers, text: body.toString('utf8'), raw };
}

function dechunk(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(b.subarray(i, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(b.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Builds a request: `head` lines are latin1 strings or raw byte buffers (so any byte can be sent). */
export function buildRaw(requestLine: Buffer | string, headers: (Buffer | string)[], body: Buffer | null): Buffer {
  const parts: Buffer[] = [typeof requestLine === 'string' ? Buffer.from(requestLine, 'latin1') : requestLine, Buffer.from('\r\n')];
  for (const h of headers) parts.push(typeof h === 'string' ? Buffer.from(h, 'latin1') : h, Buffer.from('\r\n'));
  parts.push(Buffer.from('\r\n'));
  if (body) parts.push(body);
  return Buffer.concat(parts);
}
