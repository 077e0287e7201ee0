/**
 * `expireAfter` durations (spec: POST /v1/invoices): ISO 8601 (`PT30M`, `PT1H`, `P1D`, `P1DT6H20M`, also `P1W`) or the
 * short form (`30m`, `1h`, `1d`, `1d 6h 20m`, `7d`, also `w` and `s`). Years and months are not accepted (their length
 * varies). Returns milliseconds, or null when the text is not a duration.
 */
const UNIT_MS: Record<string, number> = {
  w: 7 * 86_400_000,
  d: 86_400_000,
  h: 3_600_000,
  m: 60_000,
  s: 1000,
};

const ISO = /^P(?!$)(?:(\d+)W)?(?:(\d+)D)?(?:T(?!$)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const SHORT_TOKEN = /^(\d+)([wdhms])$/;

export function parseDuration(text: string): number | null {
  if (typeof text !== 'string') return null;
  const s = text.trim();
  if (s.length === 0 || s.length > 64) return null;
  const iso = ISO.exec(s.toUpperCase());
  if (iso) {
    const [, w, d, h, m, sec] = iso;
    return (
      Number(w ?? 0) * UNIT_MS.w + Number(d ?? 0) * UNIT_MS.d + Number(h ?? 0) * UNIT_MS.h + Number(m ?? 0) * UNIT_MS.m + Number(sec ?? 0) * UNIT_MS.s
    );
  }
  const tokens = s.toLowerCase().split(/\s+/);
  let total = 0;
  const seen = new Set<string>();
  for (const token of tokens) {
    const t = SHORT_TOKEN.exec(token);
    if (!t || seen.has(t[2])) return null;
    seen.add(t[2]);
    total += Number(t[1]) * UNIT_MS[t[2]];
  }
  return total;
}

/** The longest expiry: 365 days (spec: Limits). */
export const MAX_EXPIRY_MS = 365 * 86_400_000;
