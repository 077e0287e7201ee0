/** Translates Prisma errors where they occur (unique violation → conflict, record missing → not found). */

/** Whether `e` is a unique-constraint violation (Prisma P2002, or SQLSTATE 23505 from raw SQL). */
export function isUniqueViolation(e: unknown, field?: string): boolean {
  const err = e as { code?: string; meta?: Record<string, unknown>; message?: string; cause?: unknown };
  if (!err || typeof err !== 'object') return false;
  if (err.code === 'P2002') {
    if (!field) return true;
    return JSON.stringify(err.meta ?? {}).includes(field) || String(err.message).includes(field);
  }
  if (err.code === '23505') return !field || String(err.message).includes(field);
  return false;
}

/** Whether `e` is Prisma's "record to update/delete not found" (P2025). */
export function isRecordNotFound(e: unknown): boolean {
  return (e as { code?: string })?.code === 'P2025';
}
