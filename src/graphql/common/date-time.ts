/**
 * The DateTime scalar's input side (the domain's timestamp rule, src/domain/dates.ts). A refused string becomes a
 * RefusedDateTime instead of a coercion error, so ./argument-checks.ts reports VALIDATION_FAILED at its argument's path.
 */
import {
  GraphQLError,
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLResolveInfo,
} from 'graphql';
import { isTimestampRefusal, parseTimestamp } from '../../domain/dates.ts';
import { DomainError } from '../../domain/errors.ts';

/** A DateTime input the domain rule refused; never reaches a resolver (the plugin throws first). */
export class RefusedDateTime {
  constructor(readonly rule: string) {}
}

/** The DateTime scalar's parseValue/parseLiteral: a Date, or a RefusedDateTime for a string the rule refuses. */
export function parseDateTimeInput(value: unknown): Date {
  if (typeof value !== 'string') throw new GraphQLError('DateTime must be a string, an ISO 8601 time with a zone, e.g. 2026-11-21T10:00:00Z.');
  const at = parseTimestamp(value);
  // The scalar's declared input type is Date; a refused one is caught by the plugin before any resolver sees it.
  return (isTimestampRefusal(at) ? new RefusedDateTime(at.rule) : at) as Date;
}

const carries = new Map<GraphQLNamedType, boolean>();

/** Whether values of `type` can hold a DateTime (through input objects and lists; JSON cannot). */
function carriesDateTime(type: GraphQLInputType): boolean {
  const named = getNamedType(type);
  const known = carries.get(named);
  if (known !== undefined) return known;
  if (isScalarType(named)) return named.name === 'DateTime';
  if (!isInputObjectType(named)) return false;
  carries.set(named, false); // a recursive input type is not walked twice
  const result = Object.values(named.getFields()).some((f) => carriesDateTime(f.type));
  carries.set(named, result);
  return result;
}

/** The path and rule of the first RefusedDateTime in `value` of `type`, walking only where a DateTime can be. */
function findRefused(value: unknown, type: GraphQLInputType, path: string[]): { path: string[]; rule: string } | null {
  if (value === null || value === undefined) return null;
  if (value instanceof RefusedDateTime) return { path, rule: value.rule };
  const t = isNonNullType(type) ? type.ofType : type;
  if (isListType(t)) {
    const items = Array.isArray(value) ? value : [value];
    for (let i = 0; i < items.length; i++) {
      const found = findRefused(items[i], t.ofType, [...path, String(i)]);
      if (found) return found;
    }
    return null;
  }
  if (isInputObjectType(t) && typeof value === 'object') {
    for (const f of Object.values(t.getFields())) {
      if (!carriesDateTime(f.type)) continue;
      const found = findRefused((value as Record<string, unknown>)[f.name], f.type, [...path, f.name]);
      if (found) return found;
    }
  }
  return null;
}

/** Throws VALIDATION_FAILED at the first refused DateTime among a field's arguments. */
export function assertDateTimeArgs(args: Record<string, unknown>, info: GraphQLResolveInfo): void {
  const field = info.parentType.getFields()[info.fieldName];
  if (!field) return;
  for (const arg of field.args) {
    if (!carriesDateTime(arg.type)) continue;
    const found = findRefused(args[arg.name], arg.type, [arg.name]);
    if (found) {
      const name = [...found.path].reverse().find((k) => !/^\d+$/.test(k)) ?? arg.name;
      throw new DomainError('VALIDATION_FAILED', { message: `${name} must be ${found.rule}.`, path: found.path });
    }
  }
}
