/**
 * The merchant dashboard (README, "The dashboard"): a web app over this service's GraphQL API, served at /dashboard.
 * This module is the shell: log in or sign up, the sections' menu, and the screen the address names, whose code is
 * loaded the first time it is shown (screens.ts).
 */
import './styles.css';
import { Provider, useQuery } from '@urql/preact';
import { render, type ComponentType } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { dashboardClient, logIn, logOut, signUp } from './client.ts';
import { graphql } from './graphql.ts';
import { keepLang, storedLang, t, type Lang } from './i18n.ts';
import { navigate, onLink, useLocation } from './router.ts';
import { loadScreen, SCREENS, screenOf, type Screen, type ScreenProps } from './screens.ts';

const ViewerQuery = graphql(`
  query DashboardViewer {
    viewer {
      kind
      account { email name }
      workspace { name }
    }
  }
`);

function LoginForm({ lang, onDone }: { lang: Lang; onDone: () => void }) {
  const [mode, setMode] = useState<'logIn' | 'signUp'>(location.hash === '#sign-up' ? 'signUp' : 'logIn');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const email = String(form.get('email') ?? '');
    const password = String(form.get('password') ?? '');
    setBusy(true);
    const r = mode === 'logIn' ? await logIn(email, password) : await signUp(email, password, String(form.get('name') ?? ''));
    setBusy(false);
    if (r.ok) {
      // A new workspace starts with the onboarding checklist.
      if (mode === 'signUp') navigate('/dashboard', { replace: true });
      onDone();
    } else if (mode === 'logIn') setError(t(lang, r.code === 'TOO_MANY_REQUESTS' || r.code === 'TOO_MANY_ATTEMPTS' ? 'tooManyAttempts' : 'loginFailed'));
    else setError(r.code === 'EMAIL_TAKEN' ? t(lang, 'emailTaken') : `${t(lang, 'signUpFailed')}: ${'message' in r ? r.message : r.code}`);
  };
  const switchTo = (m: 'logIn' | 'signUp') => () => {
    setError(null);
    setMode(m);
  };
  const title = mode === 'logIn' ? t(lang, 'title') : t(lang, 'signUpTitle');
  return (
    <form class="card" onSubmit={submit} aria-labelledby="login-title">
      <h1 id="login-title">{title}</h1>
      {mode === 'signUp' && (
        <label>
          {t(lang, 'businessName')}
          <input name="name" autocomplete="organization" required maxLength={100} />
        </label>
      )}
      <label>
        {t(lang, 'email')}
        <input name="email" type="email" autocomplete="username" required />
      </label>
      <label>
        {t(lang, 'password')}
        <input name="password" type="password" autocomplete={mode === 'logIn' ? 'current-password' : 'new-password'} required minLength={mode === 'signUp' ? 8 : undefined} />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {mode === 'logIn' ? t(lang, 'logIn') : t(lang, 'signUp')}
      </button>
      <button type="button" class="link" onClick={switchTo(mode === 'logIn' ? 'signUp' : 'logIn')}>
        {mode === 'logIn' ? t(lang, 'noAccount') : t(lang, 'haveAccount')}
      </button>
    </form>
  );
}

function App() {
  const [lang, setLang] = useState<Lang>(storedLang());
  const [session, setSession] = useState(0);
  // A new client (an empty cache) for each session. A session the API stopped knowing (expired, logged out in another
  // tab) ends here too: back to the log-in form. Only a signed-in page reacts, or the log-in form would loop.
  const signedIn = useRef(false);
  const client = useMemo(
    () =>
      dashboardClient(() => {
        if (!signedIn.current) return;
        signedIn.current = false;
        setSession((n) => n + 1);
      }),
    [session],
  );
  const chooseLang = (l: Lang) => {
    keepLang(l);
    setLang(l);
    document.documentElement.lang = l;
  };
  return (
    <Provider value={client}>
      <header>
        <span class="brand">{t(lang, 'title')}</span>
        <label class="lang">
          {t(lang, 'language')}
          <select value={lang} onChange={(e) => chooseLang((e.currentTarget as HTMLSelectElement).value as Lang)}>
            <option value="ko">한국어</option>
            <option value="en">English</option>
          </select>
        </label>
      </header>
      <Signed lang={lang} signedIn={signedIn} onSession={() => setSession((n) => n + 1)} />
    </Provider>
  );
}

function Signed({ lang, signedIn, onSession }: { lang: Lang; signedIn: { current: boolean }; onSession: () => void }) {
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery });
  signedIn.current = !!data?.viewer && !error;
  if (fetching && !data) return <p>{t(lang, 'loading')}</p>;
  if (!data?.viewer || error) {
    return (
      <main>
        <LoginForm lang={lang} onDone={onSession} />
      </main>
    );
  }
  const out = async () => {
    await logOut();
    onSession();
  };
  return (
    <main>
      <p class="who">
        {data.viewer.workspace.name} · {data.viewer.account?.email}{' '}
        <button type="button" onClick={out}>
          {t(lang, 'logOut')}
        </button>
      </p>
      <Sections lang={lang} />
    </main>
  );
}

/** The loaded screens' components (each chunk is loaded once). */
const loaded = new Map<Screen, ComponentType<ScreenProps>>();

function Sections({ lang }: { lang: Lang }) {
  const { path } = useLocation();
  const found = screenOf(path);
  const [, setLoadedCount] = useState(0);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    if (!found || loaded.has(found.screen)) return;
    let live = true;
    setLoadError(null);
    loadScreen(found.screen).then(
      (component) => {
        loaded.set(found.screen, component);
        if (live) setLoadedCount((n) => n + 1);
      },
      (e: unknown) => live && setLoadError(String(e)),
    );
    return () => {
      live = false;
    };
  }, [found?.screen]);
  const Component = found ? loaded.get(found.screen) : undefined;
  return (
    <>
      <nav aria-label={t(lang, 'sections')} class="sections">
        {SCREENS.map((s) => (
          <a key={s.path} href={s.path} aria-current={found?.screen === s ? 'page' : undefined} onClick={onLink(s.path)}>
            {t(lang, s.word)}
          </a>
        ))}
      </nav>
      {!found && <p role="alert">{t(lang, 'notFound')}</p>}
      {loadError && (
        <p role="alert" class="error">
          {t(lang, 'failed')}: {loadError}
        </p>
      )}
      {found && !Component && !loadError && <p>{t(lang, 'loading')}</p>}
      {found && Component && <Component lang={lang} rest={found.rest} />}
    </>
  );
}

document.documentElement.lang = storedLang();
// The address's screen starts loading now, while the shell asks who is signed in (it may show the log-in form first).
const first = screenOf(location.pathname.replace(/\/+$/, '') || '/dashboard');
if (first) loadScreen(first.screen).catch(() => {});
render(<App />, document.getElementById('app')!);
