import { useEffect, useMemo, useState } from 'preact/hooks';
import { AgentLedgerApiError, AgentLedgerClient } from '@agent-ledger/client';
import { keyStorage } from './auth/key-storage';
import { permissionsOf } from './auth/permissions';
import type { Session } from './auth/session';
import { SessionContext, useSession } from './auth/session';
import { ErrorBanner } from './components/error-banner';
import type { Route } from './routing/route';
import { hashOf, routeOf } from './routing/route';
import { ApprovalsPage } from './views/approvals-page';
import { AuditPage } from './views/audit-page';
import { ProjectionsPage } from './views/projections-page';
import { RunPage } from './views/run-page';
import { RunsPage } from './views/runs-page';
import { SignInPage } from './views/sign-in-page';

type SignIn = { readonly state: 'checking' } | { readonly state: 'signedOut' } | { readonly state: 'signedIn'; readonly session: Session };

/**
 * The console: signs in with an API key (checked with `GET /me`), then shows
 * the page of the URL's fragment, with the navigation the key's scopes allow.
 */
export function App() {
  const [route, setRoute] = useState<Route>(() => routeOf(location.hash));
  const [signIn, setSignIn] = useState<SignIn>({ state: 'checking' });
  const [bootError, setBootError] = useState<unknown>(null);

  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    const key = keyStorage.read();
    if (key === null) {
      // Without keys configured (the development mode, loopback only) nothing asks for one. The public
      // readiness report says which mode runs; asking GET /me without a key would log a 401 otherwise.
      developmentSession()
        .then((session) => setSignIn(session === null ? { state: 'signedOut' } : { state: 'signedIn', session }))
        .catch(() => setSignIn({ state: 'signedOut' }));
      return;
    }
    sessionFor(key)
      .then((session) => setSignIn({ state: 'signedIn', session }))
      .catch((error: unknown) => {
        if (!(error instanceof AgentLedgerApiError && error.status === 401)) setBootError(error);
        keyStorage.clear();
        setSignIn({ state: 'signedOut' });
      });
  }, []);

  const signOut = () => {
    keyStorage.clear();
    setSignIn({ state: 'signedOut' });
    location.hash = hashOf({ page: 'sign-in' });
  };

  if (signIn.state === 'checking') return <p class="loading">Loading…</p>;
  if (signIn.state === 'signedOut') {
    return (
      <>
        <ErrorBanner error={bootError} />
        <SignInPage
          onSignedIn={(key, session) => {
            keyStorage.write(key);
            setSignIn({ state: 'signedIn', session });
            if (route.page === 'sign-in') location.hash = hashOf({ page: 'runs' });
          }}
          check={sessionFor}
        />
      </>
    );
  }
  return (
    <SessionContext.Provider value={signIn.session}>
      <Shell route={route} session={signIn.session} onSignOut={signOut} />
    </SessionContext.Provider>
  );
}

/** The session of the development mode (no authentication), or null when the service wants keys. */
async function developmentSession(): Promise<Session | null> {
  const report = await clientFor('').ready();
  return report.auth.mode === 'disabled-on-loopback' ? sessionFor('') : null;
}

async function sessionFor(key: string): Promise<Session> {
  const client = clientFor(key);
  const me = await client.me();
  return { client, me, can: permissionsOf(me) };
}

/**
 * The client of the service that served this page (its origin: the API and
 * the console share it), with `key` in the `Authorization` header of every
 * request and stream ('' in the development mode: no header). The key never
 * goes into a URL. Answers are never taken from the browser's cache.
 */
function clientFor(key: string): AgentLedgerClient {
  return new AgentLedgerClient({
    baseUrl: location.origin,
    ...(key === '' ? {} : { apiKey: key }),
    fetch: (input, init) => fetch(input, { ...init, cache: 'no-store' }),
  });
}

function Shell({ route, session, onSignOut }: { route: Route; session: Session; onSignOut: () => void }) {
  const { can, me } = session;
  const links = useMemo(
    () =>
      [
        { page: 'runs', label: 'Runs', allowed: can.readRuns },
        { page: 'approvals', label: 'Approvals', allowed: can.readRuns },
        { page: 'audit', label: 'Audit review', allowed: can.readAudit },
        { page: 'projections', label: 'Projections', allowed: can.operate },
      ] as const,
    [can],
  );
  const current = route.page === 'run' ? 'runs' : route.page;
  return (
    <div class="shell">
      <header class="top">
        <a class="brand" href="#/runs">
          agent-ledger
        </a>
        <nav>
          {links
            .filter((l) => l.allowed)
            .map((l) => (
              <a key={l.page} href={`#/${l.page}`} data-testid={`nav-${l.page}`} class={current === l.page ? 'active' : ''}>
                {l.label}
              </a>
            ))}
        </nav>
        <span class="who" data-testid="signed-in-as" title={me.scopes.join(', ')}>
          {me.keyId ?? 'development mode (no authentication)'}
          {me.agents === null ? '' : ` · agents: ${me.agents.join(', ')}`}
        </span>
        <button type="button" class="quiet" data-testid="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>
        <Page route={route} />
      </main>
    </div>
  );
}

function Page({ route }: { route: Route }) {
  const { can } = useSession();
  switch (route.page) {
    case 'run':
      return <RunPage key={route.runId} runId={route.runId} />;
    case 'audit':
      return can.readAudit ? <AuditPage /> : <NotAllowed scope="audit:read" />;
    case 'approvals':
      return can.readRuns ? <ApprovalsPage /> : <NotAllowed scope="runs:read" />;
    case 'projections':
      return can.operate ? <ProjectionsPage /> : <NotAllowed scope="operate" />;
    default:
      return can.readRuns ? <RunsPage /> : <NotAllowed scope="runs:read" />;
  }
}

function NotAllowed({ scope }: { scope: string }) {
  return (
    <p class="empty" data-testid="not-allowed">
      This key does not have the scope <code>{scope}</code> this page needs.
    </p>
  );
}
