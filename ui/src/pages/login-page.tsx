import { type ReactNode, useState } from "react";
import { logIn } from "../api/session.js";
import { ErrorNotice } from "../components/error-notice.js";

/**
 * Sign in with the owner's token (printed by `skillgate serve` as a login address, or set
 * with `--token`). The server answers with a session cookie; the token is not kept.
 */
export function LoginPage(props: { readonly onSignedIn: () => void }): ReactNode {
  const [token, setToken] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <main className="login" aria-labelledby="login-heading">
      <h1 id="login-heading">Sign in to skillgate</h1>
      <p className="muted">
        Open the login address <code>skillgate serve</code> printed, or paste its token here.
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
