// The console's single page: hash routes (#/, #/topics, #/topics/NAME, #/topics/NAME/messages,
// #/groups, #/groups/ID, #/acls, #/quotas), a header with the navigation, and the session
// (read-only or not; with a SASL login, the login page until the user is in, and a logout).
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, closeLive, html, setSession as setApiSession } from './lib.js';
import { AclsPage } from './pages/acls.js';
import { GroupPage } from './pages/group.js';
import { GroupsPage } from './pages/groups.js';
import { LoginPage } from './pages/login.js';
import { MessagesPage } from './pages/messages.js';
import { OverviewPage } from './pages/overview.js';
import { QuotasPage } from './pages/quotas.js';
import { TopicPage } from './pages/topic.js';
import { TopicsPage } from './pages/topics.js';

function useHash() {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = () => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function route(hash) {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'topics' && parts[1] && parts[2] === 'messages')
    return ['topics', MessagesPage, { topic: parts[1] }];
  if (parts[0] === 'topics' && parts[1]) return ['topics', TopicPage, { name: parts[1] }];
  if (parts[0] === 'topics') return ['topics', TopicsPage, {}];
  if (parts[0] === 'groups' && parts[1]) return ['groups', GroupPage, { id: parts[1] }];
  if (parts[0] === 'groups') return ['groups', GroupsPage, {}];
  if (parts[0] === 'acls') return ['acls', AclsPage, {}];
  if (parts[0] === 'quotas') return ['quotas', QuotasPage, {}];
  return ['overview', OverviewPage, {}];
}

function App() {
  const hash = useHash();
  const [session, setSession] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState(null);
  const user = useRef(null);
  const load = () =>
    api.get('/session').then((s) => {
      user.current = s.user;
      setApiSession(s, () => {
        // An API call answered 401: the session expired or was ended elsewhere.
        if (user.current === null) return;
        user.current = null;
        closeLive();
        setNotice('Your session has ended: log in again.');
        load();
      });
      setSession(s);
    }, setError);
  useEffect(() => {
    load();
  }, []);
  const logout = async () => {
    user.current = null;
    await api.post('/logout').catch(() => {});
    closeLive();
    setNotice('Logged out.');
    load();
  };
  const [section, Page, props] = route(hash);
  useEffect(() => {
    document.querySelector('main h1')?.focus();
  }, [hash, session?.user]);
  const loggedOut = session?.login === 'sasl' && session.user === null;
  const link = (href, name, label) =>
    html`<a href=${href} aria-current=${section === name ? 'page' : undefined}>${label}</a>`;
  return html`
    <header>
      <a class="brand" href="#/">Samsa console</a>
      ${
        loggedOut
          ? null
          : html`<nav aria-label="Sections">
        ${link('#/', 'overview', 'Cluster')} ${link('#/topics', 'topics', 'Topics')} ${link('#/groups', 'groups', 'Consumer groups')}
        ${link('#/acls', 'acls', 'ACLs')} ${link('#/quotas', 'quotas', 'Quotas')}
      </nav>`
      }
      ${session?.readOnly ? html`<span class="badge" title="console.read.only=true">read-only</span>` : null}
      ${session?.user ? html`<span class="user">${session.user}</span>` : null}
      ${session?.login === 'sasl' && session.user ? html`<button type="button" class="logout" onClick=${logout}>Log out</button>` : null}
    </header>
    <main>
      ${error ? html`<p class="error" role="alert">${error.message}</p>` : null}
      ${
        loggedOut
          ? html`<${LoginPage} mechanisms=${session.mechanisms} notice=${notice} onLogin=${() => {
              setNotice(null);
              load();
            }} />`
          : session
            ? html`<${Page} ...${props} session=${session} key=${`${hash} ${session.user}`} />`
            : null
      }
    </main>`;
}

const root = document.getElementById('app');
root.textContent = ''; // the static "Loading…" placeholder
render(html`<${App} />`, root);
