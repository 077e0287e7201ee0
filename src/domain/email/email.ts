/**
 * E-mail: messages are stored (EmailMessage) and queued as a durable job in the caller's transaction; a worker sends
 * them through the configured port (SMTP, or the local outbox that only records and logs them).
 */
import { noteJobsQueued, type Tx } from '../deps.ts';
import { newId } from '../ids.ts';

export interface OutgoingEmail {
  to: string;
  subject: string;
  text: string;
}

/** The port every e-mail adapter implements; `send` throws when the message could not be handed over. */
export interface EmailPort {
  readonly name: string;
  send(message: OutgoingEmail & { id: string }): Promise<void>;
}

/** Stores a message and queues its sending (durable: survives a restart). */
export async function enqueueEmail(
  tx: Tx,
  m: OutgoingEmail & { workspaceId: string | null; kind: string; invoiceId?: string | null; now: Date },
): Promise<string> {
  const id = newId('email');
  await tx.emailMessage.create({
    data: { id, workspaceId: m.workspaceId, kind: m.kind, to: m.to, subject: m.subject, text: m.text, invoiceId: m.invoiceId ?? null, createdAt: m.now },
  });
  noteJobsQueued(tx);
  await tx.job.create({ data: { id: newId('job'), kind: 'email.send', payload: { emailId: id }, runAt: m.now, createdAt: m.now, updatedAt: m.now } });
  return id;
}

const won = (n: number) => `${n.toLocaleString('ko-KR')}원`;

/** The buyer's "payment received" e-mail, sent on a deposit match when the workspace enabled it (never on mark-as-paid). */
export function paidEmail(args: { workspaceName: string; customerName: string; amount: number; invoiceNumber: number; paidAt: string }): Omit<OutgoingEmail, 'to'> {
  return {
    subject: `[${args.workspaceName}] 입금이 확인되었습니다 (${won(args.amount)})`,
    text: [
      `${args.customerName}님, 입금이 확인되었습니다.`,
      '',
      `주문 번호: ${args.invoiceNumber}`,
      `입금 금액: ${won(args.amount)}`,
      `확인 시각: ${args.paidAt}`,
      '',
      `${args.workspaceName}`,
    ].join('\n'),
  };
}
