/**
 * How a face answers and logs an error (rest-compat/shared/face-errors.ts): the level says whose fault it was — a refusal at
 * info (a rate-limit refusal at debug), a dependency's failure at warn, the service's own at error with its stack —
 * and every line carries the request id.
 */
import { Writable } from 'node:stream';
import { GraphQLError } from 'graphql';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.ts';
import { maskError, toGraphQLError } from '../../src/graphql/common/errors.ts';
import { answerError, errorLog, errorResponse, logGraphQLErrors } from '../../rest-compat/shared/face-errors.ts';

function capture() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, log: errorLog(pino({ level: 'trace' }, sink), 'req-1', 'POST', '/v1/invoices') };
}

const at = (lines: Record<string, any>[]) => lines.map(({ level, msg, requestId, code, field, err }) => ({ level, msg, requestId, ...(code ? { code } : {}), ...(field ? { field } : {}), ...(err ? { err: err.message } : {}) }));

describe('errorLog: the level is whose fault it was, the request id is on every line', () => {
  it('refusal info (rate limit debug), dependency warn, unexpected error', () => {
    const { lines, log } = capture();
    log.domain(new DomainError('INVALID_CUSTOMER_NAME', { path: ['customer', 'name'] }));
    log.domain(new DomainError('RATE_LIMITED'));
    log.domain(new DomainError('SERVICE_UNAVAILABLE'));
    log.domain(new DomainError('AGENCY_API_FAILED'));
    log.unexpected(new TypeError('boom'));
    expect(at(lines)).toEqual([
      { level: 30, msg: 'request refused', requestId: 'req-1', code: 'INVALID_CUSTOMER_NAME', field: 'customer.name' },
      { level: 20, msg: 'request refused', requestId: 'req-1', code: 'RATE_LIMITED' },
      { level: 40, msg: 'dependency failed', requestId: 'req-1', code: 'SERVICE_UNAVAILABLE' },
      { level: 40, msg: 'dependency failed', requestId: 'req-1', code: 'AGENCY_API_FAILED' },
      { level: 50, msg: 'unexpected error', requestId: 'req-1', err: 'boom' },
    ]);
    expect(lines[4].err.stack).toContain('TypeError: boom');
    expect(lines.every((l) => l.method === 'POST' && l.path === '/v1/invoices')).toBe(true);
  });

  it('a GraphQL result: domain errors by their own code, GraphQL’s refusals by theirs, a masked error by its cause', () => {
    const { lines, log } = capture();
    const cause = new TypeError('resolver bug');
    logGraphQLErrors(log, [
      toGraphQLError(new DomainError('FOREIGN_INVOICE')),
      new GraphQLError('Cannot query field "x" on type "Query".', { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }),
      maskError(new GraphQLError('wrapped', { originalError: cause }), 'Unexpected error.'),
      maskError(new Error('connection terminated unexpectedly'), 'Unexpected error.'),
    ]);
    expect(at(lines)).toEqual([
      { level: 30, msg: 'request refused', requestId: 'req-1', code: 'FOREIGN_INVOICE' },
      { level: 30, msg: 'request refused', requestId: 'req-1', code: 'GRAPHQL_VALIDATION_FAILED' },
      { level: 50, msg: 'unexpected error', requestId: 'req-1', err: 'resolver bug' },
      { level: 40, msg: 'dependency failed', requestId: 'req-1', code: 'SERVICE_UNAVAILABLE' },
    ]);
  });
});

describe('answerError: logged, then answered in the face’s body', () => {
  it('a DomainError in its rendering; an unreachable database 503 with Retry-After; anything else masked', async () => {
    const { lines, log } = capture();
    const refused = answerError('v2', new DomainError('FOREIGN_INVOICE'), log);
    expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 404, body: { code: '20014', data: null } });
    const down = answerError('bank', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }), log);
    expect({ status: down.status, retry: down.headers.get('retry-after'), body: await down.json() }).toEqual({
      status: 503,
      retry: '5',
      body: { code: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry later.' },
    });
    const bug = answerError('oauth', new RangeError('secret detail'), log, { headers: { 'cache-control': 'no-store' } });
    expect({ status: bug.status, cache: bug.headers.get('cache-control'), body: await bug.json() }).toEqual({ status: 500, cache: 'no-store', body: { error: 'server_error' } });
    // However it was decided: a 503 always says when to retry.
    const sofaLike = errorResponse('graphql', [new DomainError('SERVICE_UNAVAILABLE'), new DomainError('INVALID_AMOUNT')]);
    expect({ status: sofaLike.status, retry: sofaLike.headers.get('retry-after'), codes: (await sofaLike.json()).errors.map((e: any) => e.extensions.code) }).toEqual({
      status: 503,
      retry: '5',
      codes: ['SERVICE_UNAVAILABLE', 'INVALID_AMOUNT'],
    });
    expect(at(lines).map((l) => [l.level, l.code ?? l.err])).toEqual([
      [30, 'FOREIGN_INVOICE'],
      [40, 'SERVICE_UNAVAILABLE'],
      [50, 'secret detail'],
    ]);
  });
});
