/** pino logs; secrets are redacted wherever they could appear. */
import pino, { type Logger } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'password',
  'secret',
  'token',
  'notificationToken',
  'signingSecret',
  'clientSecret',
  'secretKey',
  '*.secretKey',
  'AGENCY_SECRET_KEY',
  '*.password',
  '*.secret',
  '*.token',
  '*.authorization',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { service: 'banktransfer-pay' } });
}
