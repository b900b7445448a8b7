import type { ReactNode } from "react";
import { LOGIN_PATH } from "../api/session.js";

/**
 * Sign in with the owner's token (printed by `skillgate serve` as a login link, or set with
 * `--token`). The form goes to the server's login link, which sets the session cookie and
 * comes back here; the page itself never keeps the token.
 */
export function LoginPage(): ReactNode {
  return (
    <main className="login" aria-labelledby="login-heading">
      <h1 id="login-heading">Sign in to skillgate</h1>
      <p className="muted">
        Open the login link <code>skillgate serve</code> printed, or paste the owner's token here.
      </p>
      <form method="get" action={LOGIN_PATH}>
        <label className="field" htmlFor="login-token">
          <span>Token</span>
          <input id="login-token" name="token" type="password" autoComplete="current-password" required />
        </label>
        <button type="submit" className="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
