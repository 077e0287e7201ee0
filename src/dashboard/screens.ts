/**
 * The dashboard's screens, each in a folder of its own under screens/ and loaded the first time it is shown (a chunk of
 * its own: the initial script stays small). A screen gets the language and the path below its own.
 */
import type { ComponentType } from 'preact';
import type { Lang, Word } from './i18n.ts';

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
export function screenOf(path: string): { screen: Screen; rest: string } | null {
  let best: Screen | null = null;
  for (const s of SCREENS) if ((path === s.path || path.startsWith(`${s.path}/`)) && (!best || s.path.length > best.path.length)) best = s;
  if (!best) return null;
  const rest = path.slice(best.path.length);
  // /dashboard/<unknown> is not the home screen.
  if (best.path === '/dashboard' && rest !== '') return null;
  return { screen: best, rest };
}
