/**
 * The dashboard's screens, each in a folder of its own under screens/ and loaded the first time it is shown (a chunk of
 * its own: the initial script stays small). A screen gets the language and the path below its own.
 */
import type { ComponentType } from 'preact';
import type { Lang, Word } from './i18n.ts';
import { routeOf } from './routes.ts';

export interface ScreenProps {
  lang: Lang;
  /** The path below the screen's own: '' for /dashboard/invoices, '/inv_123' for /dashboard/invoices/inv_123. */
  rest: string;
}

export interface Screen {
  path: string;
  word: Word;
  load: () => Promise<{ default: ComponentType<ScreenProps> }>;
}

export const SCREENS: readonly Screen[] = [
  { path: '/dashboard', word: 'home', load: () => import('./screens/home/home.tsx') },
  { path: '/dashboard/invoices', word: 'invoices', load: () => import('./screens/invoices/invoices.tsx') },
  { path: '/dashboard/deposits', word: 'deposits', load: () => import('./screens/deposits/deposits.tsx') },
  { path: '/dashboard/receipts', word: 'receipts', load: () => import('./screens/receipts/receipts.tsx') },
  { path: '/dashboard/reconciliation', word: 'reconciliation', load: () => import('./screens/reconciliation/reconciliation.tsx') },
  { path: '/dashboard/developers', word: 'developers', load: () => import('./screens/developers/developers.tsx') },
  { path: '/dashboard/settings', word: 'settings', load: () => import('./screens/settings/settings.tsx') },
];

/** The screen a path shows (the longest screen path it is, or is below), and the path below it; null: no such screen. */
export const screenOf = (path: string) => routeOf(SCREENS, path);

const loading = new Map<Screen, Promise<ComponentType<ScreenProps>>>();

/**
 * The screen's component, its chunk loaded once. The shell asks for the address's screen at start, alongside its first
 * GraphQL request, so that the screen's own query is not held back by two round trips in a row.
 */
export function loadScreen(screen: Screen): Promise<ComponentType<ScreenProps>> {
  let p = loading.get(screen);
  if (!p) {
    p = screen.load().then((m) => m.default);
    // A chunk that failed to load (the network dropped) is asked for again next time.
    p.catch(() => loading.delete(screen));
    loading.set(screen, p);
  }
  return p;
}
