/**
 * The simulated agency (documented in the README like test card numbers); its answers are a function of the request
 * (no state), so a restart changes nothing. Which identifiers fail how: src/events/README.md.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../domain/clock.ts';
import { AgencyError, type AgencyResult, type CashReceiptAgency } from '../../domain/cash-receipts/agency.ts';

export const SIM_REJECT_PREFIX = '0100009';
export const SIM_FAIL_PREFIX = '0100008';
export const SIM_FAIL_EMAIL_DOMAIN = 'fail.example';

/**
 * `mail`: where the e-mails it is asked to send go (the service's own e-mail: the caller wires it); absent, they are
 * accepted and go nowhere.
 */
export function simulatedAgency(clock: Clock, delayMs: number, mail?: (req: { mgtKey: string; email: string }) => Promise<void>): CashReceiptAgency {
  return {
    name: 'SIMULATED',
    async issue(req) {
      if (req.identifier.startsWith(SIM_FAIL_PREFIX)) throw new AgencyError('-99999999', 'Simulated agency failure (identifier 0100008...).');
    },
    async queryResult(req): Promise<AgencyResult> {
      if (clock.now().getTime() < req.requestedAt.getTime() + delayMs) return { state: 'PENDING' };
      if (req.identifier.startsWith(SIM_REJECT_PREFIX)) return { state: 'FAILED', ntsResultCode: 'SIM-REJECT', message: 'The tax authority rejected the receipt (simulated, identifier 0100009...).' };
      const confirm = createHash('sha256').update(req.mgtKey).digest('hex').slice(0, 9).toUpperCase();
      return { state: 'ISSUED', ntsConfirmNum: confirm, ntsResultCode: '0000' };
    },
    async sendEmail(req) {
      if (req.email.toLowerCase().endsWith('@' + SIM_FAIL_EMAIL_DOMAIN)) throw new AgencyError('-11000005', 'Simulated agency could not send the e-mail (fail.example).');
      await mail?.({ mgtKey: req.mgtKey, email: req.email });
    },
  };
}
