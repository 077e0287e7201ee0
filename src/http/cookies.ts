/** Cookies of this service (the shop install's approval, the dashboard's session): reading them, and their flags. */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Whether a cookie of this service gets `Secure`: always, except on a page reached over plain http on a loopback host
 * (development: localhost, 127.x, ::1) with no proxy in front saying the browser came over https
 * (`X-Forwarded-Proto: https` or `Forwarded: proto=https`). So behind a TLS-terminating proxy it is Secure whatever
 * the proxy forwards, unless it rewrites the Host to a loopback address and says nothing of https.
 */
export function cookieSecure(request: Request): boolean {
  const url = new URL(request.url);
  if (url.protocol === 'https:') return true;
  const host = url.hostname.toLowerCase();
  const loopback = LOOPBACK_HOSTS.has(host) || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host);
  if (!loopback) return true;
  const forwardedProto = (request.headers.get('x-forwarded-proto') ?? '').split(',')[0]!.trim().toLowerCase();
  return forwardedProto === 'https' || /(^|[;,\s])proto="?https"?($|[;,\s])/i.test(request.headers.get('forwarded') ?? '');
}

/** A cookie's value in the request, or null. */
export function cookieValue(request: Request, name: string): string | null {
  return cookieValueIn(request.headers.get('cookie'), name);
}

/** A cookie's value in a Cookie header, or null. */
export function cookieValueIn(header: string | null | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return null;
}
