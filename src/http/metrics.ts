/**
 * Prometheus metrics at GET /metrics: HTTP and GraphQL timings, deposit match outcomes and write statements, webhook
 * attempts and failures, outbox lag, and the process's own metrics. One registry per app (tests run several apps in one process).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { ID_PREFIXES } from '../domain/ids.ts';

/** A path segment that is a prefixed id of any kind (any body length, so malformed ids are folded too). */
const ID_SEGMENT = new RegExp(`/(?:${Object.values(ID_PREFIXES).join('|')})[a-z0-9]+`, 'g');

/** A route label without ids, so label cardinality stays bounded. */
export function routeLabel(path: string): string {
  const p = path.replace(ID_SEGMENT, '/:id');
  return p.length > 80 ? p.slice(0, 80) : p;
}

export class Metrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly graphqlDuration: Histogram<'operation' | 'type'>;
  readonly matchOutcomes: Counter<'outcome'>;
  readonly matchedDepositBatch: Histogram;
  readonly webhookAttempts: Counter<'result'>;
  readonly outboxLag: Gauge;
  readonly rateLimited: Counter;

  constructor(opts: { outboxLagSeconds: () => Promise<number> }) {
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.graphqlDuration = new Histogram({
      name: 'graphql_operation_duration_seconds',
      help: 'GraphQL execution time by operation name and type.',
      labelNames: ['operation', 'type'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [this.registry],
    });
    this.matchOutcomes = new Counter({
      name: 'deposit_match_outcomes_total',
      help: 'Deposits by matching outcome (EXACT, BRACKET_REMOVAL, NAME_PREFIX, AMBIGUOUS, TOO_MANY_CANDIDATES, ALREADY_PAID, NONE, VERIFICATION).',
      labelNames: ['outcome'],
      registers: [this.registry],
    });
    this.matchedDepositBatch = new Histogram({
      name: 'deposit_matched_statement_deposits',
      help: 'Matched deposits of one workspace written by one statement (those that arrive while the previous one commits share the next; a deposit whose invoice changed meanwhile falls back and is counted too).',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [this.registry],
    });
    this.rateLimited = new Counter({
      name: 'http_rate_limited_total',
      help: 'Requests refused with 429 by the per-credential rate limit.',
      registers: [this.registry],
    });
    this.webhookAttempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts by result (success, failure).',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.outboxLag = new Gauge({
      name: 'outbox_lag_seconds',
      help: 'Age of the oldest committed event not yet dispatched (0 when none).',
      registers: [this.registry],
      async collect() {
        this.set(await opts.outboxLagSeconds());
      },
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
