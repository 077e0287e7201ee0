/** E-mail adapters: SMTP through nodemailer when SMTP_URL is set; otherwise the local outbox (stored and logged). */
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { EmailPort } from '../../domain/email/email.ts';

/** Sends through an SMTP server. */
export function smtpEmail(url: string, from: string): EmailPort & { close(): void } {
  const transport = nodemailer.createTransport(url);
  return {
    name: 'smtp',
    async send(m) {
      await transport.sendMail({ from, to: m.to, subject: m.subject, text: m.text, messageId: `<${m.id}@banktransfer.local>` });
    },
    close: () => transport.close(),
  };
}

/** The local outbox: the message is already stored (GraphQL `emails`); sending only logs it. */
export function outboxEmail(log: Logger): EmailPort {
  return {
    name: 'outbox',
    async send(m) {
      log.info({ emailId: m.id, to: m.to, subject: m.subject }, 'e-mail kept in the local outbox');
    },
  };
}
