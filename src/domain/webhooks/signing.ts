/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): headers `webhook-id`, `webhook-timestamp` (Unix
 * seconds) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the base64 part of the
 * `whsec_` secret. During a rotation both secrets sign (space-separated signatures) for 24 hours.
 */
import { createHmac } from 'node:crypto';

export const SECRET_ROTATION_OVERLAP_MS = 24 * 3_600_000;

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** `v1,<signature>` for one secret. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  return 'v1,' + createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** The three Standard Webhooks headers, signed by every given secret. */
export function signatureHeaders(secrets: string[], id: string, timestamp: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}
