/**
 * Signing in as a person (issue #18) in a real VS Code: Add Connection with the site's identity
 * provider (the gateway's, under /idp) through the login page, the `firecrest` account session, a
 * session of listings and saves with 60 s access tokens that needs ONE sign-in and loses no
 * request, a session ended at the identity provider, and sign-out.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { adminCall, type AdminTarget } from '../reliability/admin';
import { IdpBrowser } from '../support/idpBrowser';
import { target } from '../support/target';
import { extensionApi, firecrestLogText, waitFor } from './support/extension';
import { skipBecause } from './support/apiVersion';

const PROFILE = 'oidc-test';
/** How long the session of listings and saves lasts (the 5 minutes; shorter with the variable). */
const SESSION_MS = Number(process.env.FIRECREST_OIDC_SESSION_SECONDS ?? 300) * 1000;

describe('Sign in as a person (OpenID Connect)', function () {
  const t = target();
  const g = t.gateway;
  let admin: AdminTarget;
  let lifetime = 300;
  this.timeout(SESSION_MS + 180_000);

  before(async function () {
    if (!g?.issuer || !g.admin || !g.adminToken) return skipBecause(this, 'needs the local gateway\'s identity provider and admin API');
    admin = { admin: g.admin, adminToken: g.adminToken };
    lifetime = ((await adminCall(admin, 'GET', '/settings')) as { tokenLifetimeSeconds: number }).tokenLifetimeSeconds;
    await adminCall(admin, 'PUT', '/settings', { tokenLifetimeSeconds: 60 });
  });

  after(async () => {
    if (!admin) return;
    await adminCall(admin, 'PUT', '/settings', { tokenLifetimeSeconds: lifetime });
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true }).then(undefined, () => undefined);
  });

  it('signs in through the login page, shows the account, and a session of listings and saves with 60 s tokens needs one sign-in and loses no request', async () => {
    const api = await extensionApi();
    const alice = g?.idpUsers?.find((u) => u.login === 'alice');
    assert.ok(alice, 'the gateway lists the identity provider user alice');
    let signIns = 0;
    let browsing: Promise<string> | undefined;
    const browser = new IdpBrowser(alice);
    const added = await vscode.commands.executeCommand<{ systems: string[] } | undefined>('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, auth: 'oidc', issuer: g?.issuer, clientId: g?.publicClientId, defaultSystem: t.system, flow: 'browser',
      openUrl: (url: string) => { signIns++; browsing = browser.browse(url); },
    });
    await browsing;
    assert.ok(added?.systems.includes(t.system), JSON.stringify(added));
    assert.equal(browser.result.callbackStatus, 200);
    assert.ok(browser.result.titles.includes('Sign in'), browser.result.titles.join(', '));

    // The Accounts menu's provider has the session, labelled with the cluster user.
    const [session] = (await api.accounts?.getSessions([PROFILE], {})) ?? [];
    assert.ok(session, 'a firecrest session');
    assert.match(session.account.label, new RegExp(`^${alice.user} @ ${PROFILE}$`));
    assert.ok(session.accessToken.length > 20);
    // VS Code's own account API sees the account, and a session asked for by account is that one.
    const accounts = await vscode.authentication.getAccounts('firecrest');
    const account = accounts.find((a) => a.id === session.account.id);
    assert.ok(account, `VS Code lists the account: ${JSON.stringify(accounts)}`);
    // (VS Code asks the person before another extension, or this one, gets a session: the provider is asked directly.)
    const [byAccount] = (await api.accounts?.getSessions(undefined, { account })) ?? [];
    assert.equal(byAccount?.account.id, session.account.id);
    assert.deepEqual(await api.accounts?.getSessions(undefined, { account: { id: `${PROFILE}/someone-else`, label: 'x' } }), []);

    const client = await api.connections.client(PROFILE);
    const user = (await client.userInfo(t.system)).user.name;
    assert.equal(user, alice.user);
    const dir = `/home/${user}/fc-oidc-${Math.random().toString(36).slice(2, 8)}`;
    await client.mkdir(t.system, dir, { parents: true });
    const uri = (p: string) => vscode.Uri.from({ scheme: 'firecrest', authority: `${PROFILE}@${t.system}`, path: p });

    // Work for the session's length: listings and saves, each checked.
    const failures: string[] = [];
    let ops = 0;
    const until = Date.now() + SESSION_MS;
    while (Date.now() < until) {
      const name = `f${ops % 4}.txt`;
      const text = `save ${ops} at ${new Date().toISOString()}\n`;
      try {
        await vscode.workspace.fs.writeFile(uri(`${dir}/${name}`), new TextEncoder().encode(text));
        const listed = await vscode.workspace.fs.readDirectory(uri(dir));
        if (!listed.some(([n]) => n === name)) failures.push(`${name} missing from the listing`);
        const back = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri(`${dir}/${name}`)));
        if (back !== text) failures.push(`${name}: read back ${JSON.stringify(back)}`);
      } catch (e) {
        failures.push(e instanceof Error ? e.message : String(e));
      }
      ops++;
      // A person's pace, not a load test: a save and a listing every second or so.
      await new Promise((r) => setTimeout(r, 700));
    }
    assert.deepEqual(failures, [], `${failures.length} of ${ops} rounds failed`);
    assert.equal(signIns, 1, 'one sign-in for the whole session');
    const log = firecrestLogText(api);
    const renewals = (log.match(/access token refreshed/g) ?? []).length;
    // 60 s tokens are usable for 29 s (FirecREST wants 30 s left): renewed several times.
    assert.ok(renewals >= Math.floor(SESSION_MS / 60_000), `only ${renewals} renewals in ${SESSION_MS / 1000} s`);
    assert.doesNotMatch(log, /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, 'no token in the log');
    assert.ok(!log.includes(alice.password), 'no password in the log');
    await client.remove(t.system, dir).catch(() => undefined);
  });

  it('a session ended at the identity provider signs the profile out once; Sign In brings it back', async () => {
    const api = await extensionApi();
    assert.equal(api.connections.connections().find((c) => c.profile.name === PROFILE)?.state, 'connected');
    const client = await api.connections.client(PROFILE);
    const user = (await client.userInfo(t.system)).user.name;
    const file = vscode.Uri.from({ scheme: 'firecrest', authority: `${PROFILE}@${t.system}`, path: `/home/${user}/fc-oidc-save-${Math.random().toString(36).slice(2, 8)}.txt` });
    await vscode.workspace.fs.writeFile(file, new TextEncoder().encode('before\n'));
    await adminCall(admin, 'POST', '/idp/revoke', { login: 'alice' });
    // The access token in hand still works until it is due for renewal; the renewal is refused.
    await waitFor('the profile to be signed out', async () => {
      await client.userInfo(t.system).catch(() => undefined);
      return api.connections.connections().find((c) => c.profile.name === PROFILE)?.state === 'signed-out';
    }, 90_000);
    assert.equal((firecrestLogText(api).match(/The sign-in to "oidc-test" has ended/g) ?? []).length, 1, 'said once');
    assert.deepEqual(await api.accounts?.getSessions([PROFILE], {}), []);
    // A save meanwhile fails cleanly (the editor stays dirty), and nothing of it reaches the file.
    await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(file, new TextEncoder().encode('during\n'))));

    const alice = g?.idpUsers?.find((u) => u.login === 'alice');
    assert.ok(alice);
    let browsing: Promise<string> | undefined;
    await vscode.commands.executeCommand('firecrest.signIn', { name: PROFILE, flow: 'browser', openUrl: (url: string) => { browsing = new IdpBrowser(alice).browse(url); } });
    await browsing;
    await waitFor('connected again', () => api.connections.connections().find((c) => c.profile.name === PROFILE)?.state === 'connected');
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(file)), 'before\n');
    await vscode.workspace.fs.delete(file);
  });

  it('signing out from the Accounts menu revokes the refresh token and signs the profile out', async () => {
    const api = await extensionApi();
    await api.accounts?.removeSession(PROFILE);
    await waitFor('signed out', () => api.connections.connections().find((c) => c.profile.name === PROFILE)?.state === 'signed-out');
    assert.deepEqual(await api.accounts?.getSessions([PROFILE], {}), []);
    await waitFor('the revocation in the log', () => /the refresh token was revoked at the identity provider/.test(firecrestLogText(api)));
  });
});
