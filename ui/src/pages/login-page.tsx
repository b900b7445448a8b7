import { type ReactNode, useState } from "react";
import { logIn } from "../api/session.js";
import { ErrorNotice } from "../components/error-notice.js";

/**
 * Sign in with the owner's token (`skillgate serve` prints it inside a login link, or it was
 * set with `--token`). The token goes in a request body, never in the address; the server
 * answers with the session cookie and the page forgets the token.
 */
export function LoginPage(props: { readonly onSignedIn: () => void }): ReactNode {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <main className="login" aria-labelledby="login-heading">
      <h1 id="login-heading">Sign in to skillgate</h1>
      <p className="muted">
        Open the login link <code>skillgate serve</code> printed, or paste the owner's token here.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          logIn(token.trim()).then(
            () => {
              setToken("");
              props.onSignedIn();
            },
            (caught: unknown) => {
              setError(caught);
              setBusy(false);
            },
          );
        }}
      >
        <label className="field" htmlFor="login-token">
          <span>Token</span>
          <input
            id="login-token"
            type="password"
            autoComplete="current-password"
            required
            value={token}
            onChange={(event) => setToken(event.target.value)}
          />
        </label>
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      {error !== undefined ? <ErrorNotice error={error} /> : null}
    </main>
  );
}
