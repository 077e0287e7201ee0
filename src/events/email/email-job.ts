/** The `email.send` job: sends a stored message through the port and records SENT or, after the last attempt, FAILED. */
import type { PrismaClient } from '../../generated/prisma/client.ts';
import type { Clock } from '../../domain/clock.ts';
import type { EmailPort } from '../../domain/email/email.ts';
import type { JobHandler } from '../job-runner.ts';

export function emailJob(prisma: PrismaClient, clock: Clock, port: EmailPort): JobHandler {
  return {
    maxAttempts: 6,
    backoffMs: (attempt) => Math.min(5_000 * 4 ** (attempt - 1), 3_600_000),
    async run(payload: { emailId: string }) {
      const m = await prisma.emailMessage.findUnique({ where: { id: payload.emailId } });
      if (!m || m.status === 'SENT') return;
      await port.send({ id: m.id, to: m.to, subject: m.subject, text: m.text });
      await prisma.emailMessage.update({ where: { id: m.id }, data: { status: 'SENT', sentAt: clock.now(), error: null } });
    },
    async onGiveUp(payload: { emailId: string }, error: unknown) {
      await prisma.emailMessage.update({ where: { id: payload.emailId }, data: { status: 'FAILED', error: String((error as Error)?.message ?? error).slice(0, 1000) } });
    },
  };
}
