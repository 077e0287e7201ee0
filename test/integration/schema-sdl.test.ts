import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObjectType, isInputObjectType, isEnumType, isInterfaceType } from 'graphql';
import { printedSchema, schema } from '../../src/graphql/schema.ts';

describe('the committed GraphQL SDL', () => {
  it('schema/schema.graphql equals what the code builds (run `npm run schema:write` after a change)', () => {
    const committed = readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(committed).toBe(printedSchema());
  });

  it('every type and every field has a description', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name)) continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInputObjectType(type) || isInterfaceType(type)) {
        for (const f of Object.values(type.getFields())) if (!f.description) missing.push(`${type.name}.${f.name}`);
      }
      if (isEnumType(type)) for (const v of type.getValues()) if (!v.description) missing.push(`${type.name}.${v.name}`);
    }
    expect(missing).toEqual([]);
  });

  it('the contract operations exist with their fixed names', () => {
    const m = schema.getMutationType()!.getFields();
    for (const name of ['signUp', 'logIn', 'registerBankAccount', 'registerBusinessInfo', 'createApiKey', 'disableApiKey', 'deleteApiKey', 'matchTransaction', 'unmatchTransaction', 'setTransactionHidden']) {
      expect(m[name], name).toBeDefined();
    }
  });
});
