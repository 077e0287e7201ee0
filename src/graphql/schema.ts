/** The GraphQL schema: every type registers itself on the builder; this file imports them and builds once. */
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './common/enums.ts';
import './common/error-types.ts';
import './account/account.type.ts';
import './account/account.mutations.ts';
import './bank-account/bank-account.type.ts';
import './business/business.type.ts';
import './api-key/api-key.type.ts';
import './invoice/invoice.type.ts';
import './invoice/invoice.queries.ts';
import './invoice/invoice.mutations.ts';
import './transaction/transaction.type.ts';
import './webhook/webhook.type.ts';
import './cash-receipt/cash-receipt.type.ts';
import './oauth/oauth.type.ts';
import './node.query.ts';
import './event/event.type.ts';
import './settings/settings.type.ts';
import './shop/shop.type.ts';
import './bank-text/bank-text.type.ts';
import './deposit-capture/deposit-capture.type.ts';

export const schema = builder.toSchema({ sortSchema: false });

/** The SDL committed in schema/schema.graphql (sorted, so it diffs cleanly). */
export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
