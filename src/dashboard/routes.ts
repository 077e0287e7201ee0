/**
 * Which screen an address shows, without the browser: the path as the app reads it, and the screen it is (or is
 * below). Pure: router.ts and screens.ts pass the address and the screens in.
 */

/** The path as the app reads it: trailing slashes dropped, the bare root read as the home screen's. */
export const pathOf = (pathname: string) => pathname.replace(/\/+$/, '') || '/dashboard';

/**
 * The route a path shows (the longest route path it is, or is below), and the path below it; null: no such route.
 * /dashboard/<unknown> is not the home screen (/dashboard): only the home screen's own path is.
 */
export function routeOf<R extends { path: string }>(routes: readonly R[], path: string): { screen: R; rest: string } | null {
  let best: R | null = null;
  for (const s of routes) if ((path === s.path || path.startsWith(`${s.path}/`)) && (!best || s.path.length > best.path.length)) best = s;
  if (!best) return null;
  const rest = path.slice(best.path.length);
  if (best.path === '/dashboard' && rest !== '') return null;
  return { screen: best, rest };
}
