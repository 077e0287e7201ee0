/**
 * E-mail: messages are stored (EmailMessage) and queued as a durable job in the caller's transaction; a worker sends
 * them through the configured port (SMTP, or the local outbox that only records and logs them).
 */
import { asRaw, noteJobsQueued, type Sql } from '../deps.ts';
import { SqlParams } from '../sql.ts';
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
export async function enqueueEmail(db: Sql, m: QueuedEmail): Promise<string> {
  const q = asRaw(db);
  noteJobsQueued(q);
  const s = new SqlParams();
  const { sql, id } = emailInsertCtes(s, m, { name: 'email' });
  await q(`WITH ${sql} SELECT 1`, s.values);
  return id;
}

export type QueuedEmail = OutgoingEmail & { workspaceId: string | null; kind: string; invoiceId?: string | null; now: Date };

/**
 * The CTEs that store a message and queue its `email.send` job, for a statement of the caller's (`WITH ..., <these>`);
 * with `guard` (an SQL condition over earlier CTEs), only if it holds. The caller wakes the job runner after commit.
 */
export function emailInsertCtes(s: SqlParams, m: QueuedEmail, opts: { name: string; guard?: string }): { sql: string; id: string } {
  const id = newId('email');
  const now = s.p(m.now.toISOString(), '::timestamptz');
  const sql = `${opts.name} AS (
       INSERT INTO "EmailMessage" (id, "workspaceId", kind, "to", subject, text, "invoiceId", "createdAt")
       SELECT ${s.p(id)}, ${s.p(m.workspaceId)}, ${s.p(m.kind)}, ${s.p(m.to)}, ${s.p(m.subject)}, ${s.p(m.text)}, ${s.p(m.invoiceId ?? null)}, ${now}
       ${opts.guard ? `WHERE ${opts.guard}` : ''}
       RETURNING id
     ), ${opts.name}_job AS (
       INSERT INTO "Job" (id, kind, payload, "runAt", "createdAt", "updatedAt")
       SELECT ${s.p(newId('job'))}, 'email.send', jsonb_build_object('emailId', ${opts.name}.id), ${now}, ${now}, ${now} FROM ${opts.name}
     )`;
  return { sql, id };
}

/** An amount as the e-mails write it: 12,000원. */
export const won = (n: number) => `${n.toLocaleString('ko-KR')}원`;

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
