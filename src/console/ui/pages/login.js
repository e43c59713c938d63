// The login page of a console that logs users in with their own SASL credentials
// (console.auth.sasl.mechanisms): the console checks them by authenticating a connection to the
// cluster and then acts as that user, so the cluster's ACLs decide what the pages show.
import { useState } from 'preact/hooks';
import { api, html } from '../lib.js';

export function LoginPage({ mechanisms, notice, onLogin }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    setBusy(true);
    setError(null);
    try {
      await api.post('/login', {
        user: f.get('user'),
        password: f.get('password'),
        mechanism: f.get('mechanism') ?? mechanisms[0],
      });
      onLogin();
    } catch (err) {
      setError(err.message);
      e.target.querySelector('input[name="password"]').value = '';
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="login">
    <h1 tabindex="-1">Log in</h1>
    <p class="note">With your Kafka user (SASL ${mechanisms.join(' or ')}): the console acts as you, and the cluster’s ACLs decide what you see and may change.</p>
    ${notice ? html`<p class="ok" role="status">${notice}</p>` : null}
    <form onSubmit=${submit} aria-label="Log in" class="panel">
      <label>User name <input name="user" required autocomplete="username" maxlength="256" /></label>
      <label>Password <input name="password" type="password" required autocomplete="current-password" maxlength="1024" /></label>
      ${
        mechanisms.length > 1
          ? html`<label>Mechanism <select name="mechanism">${mechanisms.map((m) => html`<option value=${m}>${m}</option>`)}</select></label>`
          : null
      }
      <button type="submit" disabled=${busy}>${busy ? 'Checking…' : 'Log in'}</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
  </section>`;
}
