/** Depositor names as banks show them, for simulated deposits. */
import { findBankProvider } from '../domain/bank-accounts/bank-providers.ts';

/** The depositor name a bank would show: with a bracketed suffix, and/or truncated to the bank's (or a given) length. */
export function simulatedDepositorName(name: string, o: { bracket?: string; bank?: string; truncate?: string }): string {
  let n = name + (o.bracket ?? '');
  const len = o.truncate ? Number(o.truncate) : o.bank ? findBankProvider(o.bank)?.depositorNameLength : undefined;
  if (len && len > 0) n = [...n].slice(0, len).join('');
  return n;
}
