/** The v1 face's envelopes and timestamps as the golden v1 tests assert them (spec: v1 response and error bodies). */
import { expect } from 'vitest';

/** The v1 error envelope: exactly `{code, data: null}` with the status of the spec's Errors table. */
export function expectV1Error(res: { status: number; body: unknown }, status: number, code: string) {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { code, data: null } });
}

/** A single-object response: 200 `{code: OK, data}`. */
export function expectOk(res: { status: number; body: unknown }, data: unknown) {
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { code: 'OK', data } });
}

/** A list response: 200, `{code: OK, data, totalItems}` in that order, data = the expected items in order. */
export function expectList(res: { status: number; body: any }, expected: unknown[], totalItems = expected.length) {
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['code', 'data', 'totalItems']);
  expect(res.body).toEqual({ code: 'OK', data: expected, totalItems });
}

/** A v1 timestamp: seconds precision, `.000+00:00`. */
export function v1Time(ms: number | string): string {
  return new Date(ms).toISOString().slice(0, 19) + '.000+00:00';
}
