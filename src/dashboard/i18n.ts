/**
 * The dashboard's common words, in Korean and English (each screen keeps its own in its folder: `dictionary`): Korean for a browser that prefers Korean, English otherwise, and
 * switchable (the choice kept in localStorage: a preference, never a credential). Amounts in won with thousands
 * separators, times in KST, as the API's date filters are.
 */
export type Lang = 'ko' | 'en';

export const WORDS = {
  title: { ko: '입금 확인 대시보드', en: 'Bank-transfer dashboard' },
  email: { ko: '이메일', en: 'E-mail' },
  password: { ko: '비밀번호', en: 'Password' },
  logIn: { ko: '로그인', en: 'Log in' },
  logOut: { ko: '로그아웃', en: 'Log out' },
  loginFailed: { ko: '이메일 또는 비밀번호가 올바르지 않습니다.', en: 'E-mail or password is wrong.' },
  tooManyAttempts: { ko: '시도가 너무 많습니다. 잠시 후 다시 시도하세요.', en: 'Too many attempts; try again later.' },
  invoices: { ko: '주문서', en: 'Invoices' },
  number: { ko: '번호', en: 'No.' },
  depositor: { ko: '입금자명', en: 'Depositor' },
  amount: { ko: '금액', en: 'Amount' },
  status: { ko: '상태', en: 'Status' },
  createdAt: { ko: '생성 시각 (KST)', en: 'Created (KST)' },
  total: { ko: '전체', en: 'Total' },
  previous: { ko: '이전', en: 'Previous' },
  next: { ko: '다음', en: 'Next' },
  none: { ko: '주문서가 없습니다.', en: 'No invoices yet.' },
  loading: { ko: '불러오는 중…', en: 'Loading…' },
  language: { ko: '언어', en: 'Language' },
  sections: { ko: '메뉴', en: 'Sections' },
  home: { ko: '시작하기', en: 'Get started' },
  receipts: { ko: '현금영수증', en: 'Cash receipts' },
  reconciliation: { ko: '입금 현황', en: 'Reconciliation' },
  developers: { ko: '개발자', en: 'Developers' },
  settings: { ko: '설정', en: 'Settings' },
  signUp: { ko: '회원가입', en: 'Sign up' },
  signUpTitle: { ko: '새 계정 만들기', en: 'Create an account' },
  haveAccount: { ko: '이미 계정이 있으신가요? 로그인', en: 'Have an account? Log in' },
  noAccount: { ko: '계정이 없으신가요? 회원가입', en: 'No account yet? Sign up' },
  businessName: { ko: '상호 또는 이름', en: 'Business or your name' },
  signUpFailed: { ko: '가입하지 못했습니다', en: 'Could not sign up' },
  emailTaken: { ko: '이미 가입된 이메일입니다.', en: 'This e-mail already has an account.' },
  copy: { ko: '복사', en: 'Copy' },
  copied: { ko: '복사했습니다', en: 'Copied' },
  shownOnce: { ko: '지금 한 번만 표시됩니다. 안전한 곳에 보관하세요.', en: 'Shown this once only: keep it somewhere safe.' },
  close: { ko: '닫기', en: 'Close' },
  cancel: { ko: '취소', en: 'Cancel' },
  save: { ko: '저장', en: 'Save' },
  notFound: { ko: '없는 화면입니다.', en: 'No such page.' },
  failed: { ko: '실패했습니다', en: 'Failed' },
  deposits: { ko: '입금 내역', en: 'Deposits' },
  receivedAt: { ko: '입금 시각 (KST)', en: 'Received (KST)' },
  match: { ko: '매칭', en: 'Match' },
  matched: { ko: '매칭됨', en: 'Matched' },
  unmatched: { ko: '미매칭', en: 'Unmatched' },
  matchTo: { ko: '이 주문서로 매칭', en: 'Match to this invoice' },
  noDeposits: { ko: '입금 내역이 없습니다.', en: 'No deposits yet.' },
  matchFailed: { ko: '매칭하지 못했습니다', en: 'Could not match' },
  AMBIGUOUS: { ko: '같은 조건의 주문서가 여럿', en: 'Several invoices match' },
  TOO_MANY_CANDIDATES: { ko: '후보가 너무 많음', en: 'Too many candidates' },
  ALREADY_PAID: { ko: '주문서가 이미 입금 완료', en: 'Invoice already paid' },
  PENDING: { ko: '입금 대기', en: 'Pending' },
  PAID: { ko: '입금 완료', en: 'Paid' },
  EXPIRED: { ko: '만료', en: 'Expired' },
  CANCELED: { ko: '취소', en: 'Canceled' },
} as const satisfies Record<string, Record<Lang, string>>;

export type Word = keyof typeof WORDS;

const LANG_KEY = 'dashboard.lang';

/** The language: the one chosen here before, else Korean for a browser that prefers Korean, else English. */
export function initialLang(stored: string | null, preferred: readonly string[]): Lang {
  if (stored === 'ko' || stored === 'en') return stored;
  return preferred.some((l) => l.toLowerCase().startsWith('ko')) ? 'ko' : 'en';
}

export function storedLang(): Lang {
  return initialLang(localStorage.getItem(LANG_KEY), navigator.languages ?? [navigator.language]);
}

export function keepLang(lang: Lang): void {
  localStorage.setItem(LANG_KEY, lang);
}

export const t = (lang: Lang, word: Word): string => WORDS[word][lang];

/**
 * A screen's own words: `const w = dictionary({ save: { ko: '저장', en: 'Save' } })`, then `w(lang, 'save')`. Every word
 * has both languages (the type says so).
 */
export function dictionary<W extends Record<string, Record<Lang, string>>>(words: W): ((lang: Lang, word: keyof W) => string) & { words: W } {
  // The table stays reachable (`w.words`) for the test that every word has both languages, none empty.
  return Object.assign((lang: Lang, word: keyof W) => words[word]![lang], { words });
}

/** Won with thousands separators: 1,234,000원 (ko) or ₩1,234,000 (en). */
export function won(lang: Lang, amount: number): string {
  const digits = new Intl.NumberFormat('en-US').format(amount);
  return lang === 'ko' ? `${digits}원` : `₩${digits}`;
}

const KST_OFFSET_MS = 9 * 3600_000;

/**
 * An instant's wall-clock time in KST, ISO-shaped without a zone (2026-11-26T15:04:05.000): each use cuts it to the
 * precision it shows (a day, a minute, a second). Korea keeps no daylight saving time: always UTC+9.
 */
export function kstWallClock(at: string | Date): string {
  return new Date(new Date(at).getTime() + KST_OFFSET_MS).toISOString().slice(0, 23);
}

/** An instant in KST: 2026-11-26 15:04. */
export function kst(iso: string): string {
  return kstWallClock(iso).slice(0, 16).replace('T', ' ');
}

/** An instant as a datetime-local field shows it, in KST ('2026-11-26T15:04'). */
export const toKstLocal = (iso: string): string => kstWallClock(iso).slice(0, 16);

/** A KST wall-clock time typed in a datetime-local field ('2026-11-26T15:04', seconds optional) as an instant. */
export const fromKstLocal = (local: string): Date => new Date(`${local.length === 16 ? `${local}:00` : local}+09:00`);
