import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, type IdKind, newId } from '../../src/domain/ids.ts';
import { routeLabel } from '../../src/http/metrics.ts';

describe('metric route labels (ids folded so label cardinality stays bounded)', () => {
  it.each(Object.keys(ID_PREFIXES) as IdKind[])('a %s id in the path becomes :id', (kind) => {
    expect(routeLabel(`/v1/things/${newId(kind)}/cancel`)).toBe('/v1/things/:id/cancel');
  });

  it.each([
    ['/v1/invoices', '/v1/invoices'],
    ['/v2/invoices/ivc_abc', '/v2/invoices/:id'],
    ['/v1/transactions/trx_' + 'a'.repeat(24) + '/x/crt_' + 'b'.repeat(24), '/v1/transactions/:id/x/:id'],
    ['/v1/invoices/xyz_' + 'a'.repeat(24), '/v1/invoices/xyz_' + 'a'.repeat(24)],
    ['/' + 'a'.repeat(100), '/' + 'a'.repeat(79)],
  ])('%s → %s', (path, label) => {
    expect(routeLabel(path)).toBe(label);
  });
});
