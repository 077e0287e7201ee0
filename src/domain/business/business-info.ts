/**
 * Business information and the cash-receipt agency link (contract: registerBusinessInfo). Cash receipts need both
 * (spec: prerequisite 6); registering also links the configured agency.
 */
import type { Principal } from '../auth/principal.ts';
import { requireSession } from '../auth/rules.ts';
import type { Deps } from '../deps.ts';
import { check, digitsOnly } from '../validation.ts';

export interface BusinessInfoInput {
  corpNum: string;
  companyName: string;
  representativeName: string;
}

/** Business registration number: 10 digits (hyphens allowed and removed). */
export function normalizeCorpNum(value: string): string | null {
  const d = digitsOnly(value);
  return d && d.length === 10 ? d : null;
}

/** registerBusinessInfo: creates or replaces the workspace's business info and links the agency. */
export async function registerBusinessInfo(deps: Deps, principal: Principal | null, input: BusinessInfoInput) {
  const p = requireSession(principal);
  const corpNum = normalizeCorpNum(input.corpNum);
  check(corpNum !== null, ['corpNum'], 'corpNum must be a 10-digit business registration number.');
  const companyName = input.companyName.trim();
  const representativeName = input.representativeName.trim();
  check(companyName.length >= 1 && companyName.length <= 100, ['companyName'], 'companyName must be 1-100 characters.');
  check(representativeName.length >= 1 && representativeName.length <= 50, ['representativeName'], 'representativeName must be 1-50 characters.');
  const now = deps.clock.now();
  const data = { corpNum: corpNum!, companyName, representativeName, agency: deps.settings.agencyName, agencyLinkedAt: now };
  await deps.prisma.businessInfo.upsert({
    where: { workspaceId: p.workspaceId },
    create: { workspaceId: p.workspaceId, ...data, createdAt: now },
    update: data,
  });
  return { workspaceId: p.workspaceId };
}

/** The workspace's business info when it is registered and linked to an agency; null otherwise. */
export async function linkedBusinessInfo(db: Pick<Deps['prisma'], 'businessInfo'>, workspaceId: string) {
  const info = await db.businessInfo.findUnique({ where: { workspaceId } });
  return info && info.agencyLinkedAt ? info : null;
}
