// Admin operations. Each mutation and its audit entry commit in one transaction; the audit
// details name the change, never the account's personal data. Missing targets throw the
// catalogue's flag_not_found / user_not_found.
import type { Db } from '../store/database.js';
import type { Plan, User } from '../store/schema.js';
import * as admin from '../store/repos/admin.js';
import { listFlags, setFlag } from '../store/repos/flags.js';
import { ErrorCode, ServiceError } from './errors.js';

/** Who acted, as the audit log records it (the admin's email, else the identity's subject). */
export type Actor = string;

export interface FlagView {
  flagKey: string;
  enabled: boolean;
  updatedAt: string | null;
  updatedBy: string | null;
}

const flagOf = (r: { flagKey: string; enabled: boolean; updatedAt: Date | null; updatedBy: string | null }): FlagView => ({
  flagKey: r.flagKey,
  enabled: r.enabled,
  updatedAt: r.updatedAt?.toISOString() ?? null,
  updatedBy: r.updatedBy,
});

export async function allFlags(db: Db): Promise<FlagView[]> {
  return (await listFlags(db)).map(flagOf);
}

/** Toggles a seeded flag (flags are never created here). */
export async function toggleFlag(db: Db, actor: Actor, key: string, enabled: boolean): Promise<FlagView> {
  const row = await db.transaction().execute(async (trx) => {
    const updated = await setFlag(trx, key, enabled, actor);
    if (!updated) throw new ServiceError(ErrorCode.FlagNotFound);
    await admin.insertAudit(trx, { actorEmail: actor, action: 'FLAG_TOGGLE', targetType: 'feature_flag', targetId: key, details: `Flag ${key} set to ${enabled ? 'enabled' : 'disabled'}.` });
    return updated;
  });
  return flagOf(row);
}

export const listAccounts = admin.listAccounts;
export const auditLogPage = admin.auditLogPage;

/** Adds top-up credit (no payment check); the caller has checked that one amount is positive. */
export async function grantCredits(db: Db, actor: Actor, userId: string, minutes: number, transcripts: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (!(await admin.addCredits(trx, userId, minutes, transcripts))) throw new ServiceError(ErrorCode.UserNotFound);
    await admin.insertAudit(trx, { actorEmail: actor, action: 'CREDIT_GRANT', targetType: 'user', targetId: userId, details: `Granted ${minutes} minutes and ${transcripts} transcripts.` });
  });
}

/** Sets the account status; the reason is kept for a blocked account only. */
export async function changeAccountStatus(db: Db, actor: Actor, userId: string, status: User['accountStatus'], reason: string | null | undefined): Promise<User> {
  return db.transaction().execute(async (trx) => {
    const updated = await admin.setAccountStatus(trx, userId, status, status === 'ACTIVE' ? null : reason?.trim() || null);
    if (!updated) throw new ServiceError(ErrorCode.UserNotFound);
    await admin.insertAudit(trx, {
      actorEmail: actor,
      action: 'ACCOUNT_STATUS_CHANGE',
      targetType: 'user',
      targetId: userId,
      details: `Account status set to ${status}${reason ? ` (reason: ${reason})` : ''}.`,
    });
    return updated;
  });
}

/** Changes the plan (no payment flow). */
export async function changePlan(db: Db, actor: Actor, userId: string, plan: Plan): Promise<User> {
  return db.transaction().execute(async (trx) => {
    const updated = await admin.setPlan(trx, userId, plan);
    if (!updated) throw new ServiceError(ErrorCode.UserNotFound);
    await admin.insertAudit(trx, { actorEmail: actor, action: 'PLAN_CHANGE', targetType: 'user', targetId: userId, details: `Plan set to ${plan}.` });
    return updated;
  });
}
