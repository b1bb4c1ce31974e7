// Billing of a completed call's minutes, in the transaction that completes the call: the usage
// ledger gets the measured length, and the minutes beyond the plan allowance (measured before
// the call was counted) come off the top-up balance. The pipeline's completion step is the
// caller (src/pipeline is restructured separately; it still runs these statements inline today).
import type { Tx } from '../store/database.js';
import { setLedgerDuration, spendMinutesTopup } from '../store/repos/usage.js';
import { minutesBeyondAllowance, type UsageLimits } from './usage.js';

/** `limitsBefore`: the user's limits without this call, or null when billing is off. */
export async function billCallMinutes(trx: Tx, userId: string, callId: string, durationSeconds: number, limitsBefore: UsageLimits | null): Promise<void> {
  await setLedgerDuration(trx, userId, callId, durationSeconds);
  if (!limitsBefore) return;
  const extra = minutesBeyondAllowance(limitsBefore, Math.ceil(durationSeconds / 60));
  if (extra > 0) await spendMinutesTopup(trx, userId, extra);
}
