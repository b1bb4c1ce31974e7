// Sign-in: the identity provider's e-mail and password, and/or the service API key an operator types.
import { useState } from 'preact/hooks';
import { settings } from '../settings.js';
import { apiKey, setApiKey, signInWithPassword } from '../auth.js';

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [key, setKey] = useState(apiKey() ?? '');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const needsIdp = settings.mode === 'identity-provider';

  async function submit(e: Event) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      if (needsIdp) await signInWithPassword(email, password);
      if (settings.apiKeyRequired) setApiKey(key.trim());
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="narrow">
      <h1>Sign in</h1>
      {needsIdp && !settings.identityProvider && (
        <p role="alert">The console cannot sign in: the operator has not set the identity provider's web configuration (IDP_WEB_API_KEY).</p>
      )}
      <form onSubmit={submit}>
        {needsIdp && (
          <>
            <label>
              E-mail
              <input type="email" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            </label>
            <label>
              Password
              <input type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            </label>
          </>
        )}
        {settings.apiKeyRequired && (
          <label>
            Service API key
            <input type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
            <small>Operators only. Kept in this tab until it closes, never stored in the page.</small>
          </label>
        )}
        {error && <p role="alert">{error}</p>}
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
