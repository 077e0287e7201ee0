import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObjectType, isInputObjectType, isEnumType, isInterfaceType } from 'graphql';
import { printedSchema, schema } from '../../src/graphql/schema.ts';
import { NODE_TYPES, nodeTypeOf } from '../../src/graphql/common/node.ts';
import { ID_PREFIXES, newId } from '../../src/domain/ids.ts';

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

  it('node(id:) names a type for the id kind of every Node implementation, and nothing else', () => {
    const nodeTypes = schema.getPossibleTypes(schema.getType('Node') as never).map((t) => t.name).sort();
    expect(Object.values(NODE_TYPES).sort()).toEqual(nodeTypes);
    for (const [kind, type] of Object.entries(NODE_TYPES)) expect(nodeTypeOf(newId(kind as keyof typeof ID_PREFIXES))).toBe(type);
    for (const kind of Object.keys(ID_PREFIXES).filter((k) => !(k in NODE_TYPES))) expect(nodeTypeOf(newId(kind as keyof typeof ID_PREFIXES))).toBeNull();
  });
});
