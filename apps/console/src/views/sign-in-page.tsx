import { useState } from 'preact/hooks';
import { AgentLedgerApiError } from '@agent-ledger/client';
import type { Session } from '../auth/session';

/**
 * Sign-in with an API key. The key is checked with `GET /me` before it is
 * kept (in the tab's session storage, by the caller); a refused key keeps nothing.
 */
export function SignInPage({ check, onSignedIn }: { check: (key: string) => Promise<Session>; onSignedIn: (key: string, session: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const trimmed = key.trim();
    if (trimmed === '') {
      setError('Enter an API key.');
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSignedIn(trimmed, await check(trimmed));
    } catch (failure) {
      setError(failure instanceof AgentLedgerApiError && failure.status === 401 ? 'This key is not valid.' : `Sign-in failed: ${failure instanceof Error ? failure.message : String(failure)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="sign-in">
      <h1>agent-ledger console</h1>
      <p>Sign in with an API key. It stays in this tab only (session storage) and is sent in the Authorization header, never in a URL.</p>
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" spellcheck={false} data-testid="api-key" value={key} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
        <button type="submit" data-testid="sign-in" disabled={busy}>
          Sign in
        </button>
      </form>
      {error === null ? null : (
        <p class="error" role="alert" data-testid="sign-in-error">
          {error}
        </p>
      )}
    </div>
  );
}
