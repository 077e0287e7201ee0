/**
 * The operations of /openapi.json: the entries of the faces' route tables (v1, v2, the OAuth app endpoints, bank
 * notifications), in the document's order. The routers are read from the same tables.
 */
import { BANK_ROUTES } from '../bank/notifications.ts';
import type { RouteDoc } from '../shared/route.ts';
import { V1_ROUTES } from '../v1/routes.ts';
import { OAUTH_ROUTES } from '../v2/oauth.ts';
import { V2_ROUTES } from '../v2/routes.ts';

export const OPERATIONS: readonly RouteDoc[] = [...V1_ROUTES, ...V2_ROUTES, ...OAUTH_ROUTES, ...BANK_ROUTES];
