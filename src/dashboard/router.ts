/**
 * The dashboard's routes live in the address (/dashboard/...): `navigate` changes it without a page load, `usePath`
 * re-renders on every change (a link, the browser's back and forward).
 */
import { useEffect, useState } from 'preact/hooks';
import { pathOf } from './routes.ts';

const CHANGED = 'dashboard:navigate';

/** Goes to `path` (and `search`) inside the app; the browser's history keeps the step. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new Event(CHANGED));
}

/** The current path and query, re-read on every change. */
export function useLocation(): { path: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const changed = () => setTick((n) => n + 1);
    addEventListener('popstate', changed);
    addEventListener(CHANGED, changed);
    return () => {
      removeEventListener('popstate', changed);
      removeEventListener(CHANGED, changed);
    };
  }, []);
  return { path: pathOf(location.pathname), search: new URLSearchParams(location.search) };
}

/** A link's click handler for in-app navigation (a modified click still opens a new tab, as links do). */
export function onLink(to: string) {
  return (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
}
