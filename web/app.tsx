// The console's shell: navigation, the development-mode banner, sign-in when needed, and the page
// for the current address. Pages other than the calls list load on demand (esbuild splits them),
// so the first load carries only the list and the shell.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { settings } from './settings.js';
import { onAuthChange, signedIn, signOut } from './auth.js';
import { api } from './api.js';
import { match, useLocation } from './router.js';
import { CallsPage } from './pages/calls.js';
import { SignInPage } from './pages/sign-in.js';

type Loader = () => Promise<ComponentType<any>>;
const routes: Array<[string, Loader, string]> = [
  ['/calls/:id', () => import('./pages/call.js').then((m) => m.CallPage), 'Call'],
  ['/actions', () => import('./pages/actions.js').then((m) => m.ActionsPage), 'Action items'],
  ['/contacts', () => import('./pages/contacts.js').then((m) => m.ContactsPage), 'Contacts'],
  ['/search', () => import('./pages/search.js').then((m) => m.SearchPage), 'Search'],
  ['/analytics', () => import('./pages/analytics.js').then((m) => m.AnalyticsPage), 'Analytics'],
  ['/account', () => import('./pages/account.js').then((m) => m.AccountPage), 'Account'],
  ['/admin', () => import('./pages/admin.js').then((m) => m.AdminPage), 'Admin'],
];

function Lazy({ load, params }: { load: Loader; params: Record<string, string> }) {
  const [Page, setPage] = useState<ComponentType<any> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setPage(null);
    load().then(
      (p) => live && setPage(() => p),
      () => live && setError('This page could not be loaded. Reload to try again.'),
    );
    return () => {
      live = false;
    };
  }, [load]);
  if (error) return <p role="alert">{error}</p>;
  return Page ? <Page {...params} /> : <p aria-busy="true">Loading…</p>;
}

function useIsAdmin(enabled: boolean): boolean {
  const [admin, setAdmin] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    // Admin routes answer 404 to everyone else: a 200 here is the only sign of access.
    api('GET', '/api/admin/feature-flags').then(
      () => setAdmin(true),
      () => setAdmin(false),
    );
  }, [enabled]);
  return admin;
}

export function App() {
  const { path } = useLocation();
  const [, rerender] = useState(0);
  useEffect(() => onAuthChange(() => rerender((n) => n + 1)), []);
  const authed = signedIn();
  const isAdmin = useIsAdmin(authed);

  let page;
  let title = 'Calls';
  if (!authed) {
    page = <SignInPage />;
    title = 'Sign in';
  } else if (path === '/' || path === '/calls' || path === '/sign-in') {
    page = <CallsPage />;
  } else {
    page = <p>Page not found. <a href="/">Back to calls</a></p>;
    title = 'Not found';
    for (const [pattern, load, name] of routes) {
      const params = match(pattern, path);
      if (params) {
        page = <Lazy key={pattern} load={load} params={params} />;
        title = name;
        break;
      }
    }
  }
  useEffect(() => {
    document.title = `${title} · Call Analysis`;
  }, [title]);

  const nav: Array<[string, string]> = [
    ['/', 'Calls'],
    ['/actions', 'Action items'],
    ['/contacts', 'Contacts'],
    ['/search', 'Search'],
    ['/analytics', 'Analytics'],
    ['/account', 'Account'],
    ...(isAdmin ? ([['/admin', 'Admin']] as Array<[string, string]>) : []),
  ];
  const current = (href: string) => (href === '/' ? path === '/' || path === '/calls' || path.startsWith('/calls/') : path.startsWith(href));
  return (
    <>
      {settings.mode === 'local' && (
        <div class="banner" role="note">
          Development mode: no sign-in is configured, so every request acts as the one local user. This console answers this machine only.
        </div>
      )}
      <header class="top">
        <a class="brand" href="/">Call Analysis</a>
        {authed && (
          <nav aria-label="Main">
            <ul>
              {nav.map(([href, label]) => (
                <li key={href}>
                  <a href={href} aria-current={current(href) ? 'page' : undefined}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {authed && settings.mode !== 'local' && (
          <button type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </header>
      <main id="main">{page}</main>
    </>
  );
}
