/**
 * The extension shell in a real VS Code: activation, the connection commands (through their
 * argument form, the same code path as the prompts), secrets kept out of settings and the log,
 * the status bar, and the one-shot bootstrap import of `npm start`.
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FirecrestExtensionApi } from '../../src/common/api';
import { target } from '../support/target';
import { activationMarks, extensionApi, firecrestLogText, userSettingsText, waitFor } from './support/extension';

const PROFILE = 'shell-test';
const BOOT = 'shell-bootstrap';
const DOWN = 'shell-unreachable';

describe('extension shell', () => {
  const t = target();
  let api: FirecrestExtensionApi;
  const args = (secret: string) => ({ name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: secret, defaultSystem: t.system });
  const info = (name: string) => api.connections.connections().find((c) => c.profile.name === name);
  const profilesSetting = () => vscode.workspace.getConfiguration('firecrest').get<{ name: string }[]>('profiles') ?? [];

  before(async () => {
    api = await extensionApi();
    // Debug lines (one per request, token lifetimes) are where a leak would hide: log them here.
    await vscode.commands.executeCommand('_extensionTests.setLogLevel', 'debug');
  });

  after(async () => {
    await vscode.commands.executeCommand('_extensionTests.setLogLevel', 'info');
    for (const name of [PROFILE, BOOT, DOWN]) {
      if (info(name)) await vscode.commands.executeCommand('firecrest.removeConnection', { name, confirmed: true });
    }
  });

  it('activates quickly and registers the connection commands', async () => {
    const marks = activationMarks();
    // One parseable line for bench/activation.mjs.
    console.log(`      ACTIVATION activate()=${api.activationMs.toFixed(1)}ms host-activate=${marks.activateMs ?? '?'}ms code-load=${marks.loadMs ?? '?'}ms`);
    assert.ok(api.activationMs < 500, `activate() took ${api.activationMs} ms`);
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['firecrest.addConnection', 'firecrest.signIn', 'firecrest.signOut', 'firecrest.removeCredentials', 'firecrest.removeConnection', 'firecrest.showLog']) {
      assert.ok(commands.includes(id), `${id} is registered`);
    }
  });

  it('refuses a connection whose secret is wrong, says why, and saves nothing', async () => {
    const result = await vscode.commands.executeCommand('firecrest.addConnection', args('not-the-secret-42'));
    assert.equal(result, undefined);
    assert.equal(info(PROFILE), undefined);
    assert.ok(!profilesSetting().some((p) => p.name === PROFILE), 'no profile in the settings');
    const log = await waitFor('the error in the log', () => /firecrest\.addConnection: .+/.exec(firecrestLogText(api)));
    assert.match(log[0], /token|credential|401|unauthori[sz]ed|invalid/i, 'the message says the credentials were refused');
    assert.ok(!log[0].includes('not-the-secret-42'), 'the refused secret is not logged');
  });

  it('adds a connection after checking it, with the secret outside the settings', async () => {
    const result = await vscode.commands.executeCommand<{ name: string; systems: string[] }>('firecrest.addConnection', args(t.clientSecret));
    assert.ok(result, 'the command returned the new connection');
    assert.equal(result.name, PROFILE);
    assert.ok(result.systems.includes(t.system), `systems ${result.systems.join(',')} include ${t.system}`);
    const saved = profilesSetting().find((p) => p.name === PROFILE) as Record<string, unknown> | undefined;
    assert.ok(saved, 'profile saved in the settings');
    assert.equal(saved.url, t.url);
    assert.equal(saved.defaultSystem, t.system);
    assert.ok(!JSON.stringify(saved).includes(t.clientSecret), 'no secret in the configuration value');
    const text = await waitFor('settings.json to hold the profile', () => {
      const s = userSettingsText(api);
      return s.includes(PROFILE) ? s : '';
    });
    assert.ok(!text.includes(t.clientSecret), 'no secret in settings.json');
  });

  it('connects through the shared client and shows it in the status bar', async () => {
    const systems = await api.connections.systems(PROFILE, true);
    assert.ok(systems.some((s) => s.name === t.system));
    const client = await api.connections.client(PROFILE);
    assert.equal(client, await api.connections.client(PROFILE), 'one client per profile');
    assert.equal(info(PROFILE)?.state, 'connected');
    if (api.connections.defaultProfileName() === PROFILE) {
      assert.match(api.statusBarText(), new RegExp(`FirecREST: ${PROFILE}`));
      assert.match(api.statusBarText(), /server-environment/);
    }
  });

  it('signs out: the client is gone and requests say to sign in', async () => {
    assert.equal(await vscode.commands.executeCommand('firecrest.signOut', PROFILE), true);
    await waitFor('signed-out state', () => info(PROFILE)?.state === 'signed-out');
    await assert.rejects(api.connections.client(PROFILE), /signed out/i);
    if (api.connections.defaultProfileName() === PROFILE) assert.match(api.statusBarText(), /signed out/);
  });

  it('does not sign in with a wrong secret, then signs in with the right one', async () => {
    assert.equal(await vscode.commands.executeCommand('firecrest.signIn', { name: PROFILE, clientSecret: 'still-wrong-77' }), undefined);
    assert.equal(info(PROFILE)?.state, 'signed-out');
    const ok = await vscode.commands.executeCommand<{ systems: string[] }>('firecrest.signIn', { name: PROFILE, clientSecret: t.clientSecret });
    assert.ok(ok?.systems.includes(t.system));
    await api.connections.client(PROFILE);
    assert.equal(info(PROFILE)?.state, 'connected');
  });

  it('signs in again after Sign Out without asking for the secret; Remove Credentials forgets it', async () => {
    assert.equal(await vscode.commands.executeCommand('firecrest.signOut', PROFILE), true);
    await waitFor('signed-out state', () => info(PROFILE)?.state === 'signed-out');
    // No secret given and no prompt answered: the kept credentials are used.
    const again = await vscode.commands.executeCommand<{ systems: string[] }>('firecrest.signIn', { name: PROFILE });
    assert.ok(again?.systems.includes(t.system), 'signed in with the kept credentials');
    await api.connections.client(PROFILE);
    assert.equal(info(PROFILE)?.state, 'connected');
    assert.equal(await vscode.commands.executeCommand('firecrest.removeCredentials', { name: PROFILE, confirmed: true }), true);
    await waitFor('signed out once the credentials are gone', () => info(PROFILE)?.state === 'signed-out');
    assert.equal(await (api.connections as unknown as { hasStoredCredentials(n: string): Promise<boolean> }).hasStoredCredentials(PROFILE), false);
    const back = await vscode.commands.executeCommand<{ systems: string[] }>('firecrest.signIn', { name: PROFILE, clientSecret: t.clientSecret });
    assert.ok(back?.systems.includes(t.system));
  });

  it('shares one client between concurrent callers and rebuilds it when the profile changes', async () => {
    await vscode.commands.executeCommand('firecrest.signOut', PROFILE);
    await vscode.commands.executeCommand('firecrest.signIn', { name: PROFILE, clientSecret: t.clientSecret });
    const [a, b] = await Promise.all([api.connections.client(PROFILE), api.connections.client(PROFILE)]);
    assert.equal(a, b, 'single-flight: one client for both callers');
    const config = vscode.workspace.getConfiguration('firecrest');
    const profiles = (config.get<Record<string, unknown>[]>('profiles') ?? []).map((p) => (p.name === PROFILE ? { ...p, defaultAccount: 'changed-account' } : p));
    await config.update('profiles', profiles, vscode.ConfigurationTarget.Global);
    const c = await waitFor('a client for the changed profile', async () => {
      const next = await api.connections.client(PROFILE);
      return next !== a ? next : undefined;
    });
    assert.equal(c.profile.defaultAccount, 'changed-account');
    assert.equal(info(PROFILE)?.state, 'connected', 'the secret survived the profile change');
  });

  it('never writes a secret into the log', async () => {
    const log = firecrestLogText(api);
    assert.ok(log.length > 0, 'the FirecREST log file exists');
    assert.ok(!log.includes(t.clientSecret), 'client secret absent from the log');
    assert.ok(!/Bearer\s+(?!\[REDACTED\])[A-Za-z0-9]/.test(log), 'no bearer token in the log');
    assert.match(log, /Connected to "shell-test"/);
    assert.match(log, /\[debug\] \[connections\/http:shell-test\] GET \S+ -> 200/, 'request lines are logged at debug level');
    assert.match(log, /new access token/, 'token events are logged (without the token)');
  });

  it('imports a bootstrap file once: secret to secret storage, profile to settings, file deleted', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'f7t-boot-')), 'bootstrap.json');
    writeFileSync(file, JSON.stringify({ profiles: [{ name: BOOT, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret }] }), { mode: 0o600 });
    assert.deepEqual(await api.importBootstrap(file), [BOOT]);
    assert.equal(existsSync(file), false, 'the bootstrap file is deleted');
    assert.deepEqual(await api.importBootstrap(file), [], 'a second import finds nothing');
    const systems = await api.connections.systems(BOOT, true);
    assert.ok(systems.some((s) => s.name === t.system), 'the imported secret works');
    const text = await waitFor('settings.json to hold the bootstrap profile', () => {
      const s = userSettingsText(api);
      return s.includes(BOOT) ? s : '';
    });
    assert.ok(!text.includes(t.clientSecret), 'no secret in settings.json');
  });

  it('shows an unreachable server as an error state with the reason, not as connected', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'f7t-boot-')), 'bootstrap.json');
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    writeFileSync(file, JSON.stringify({ profiles: [{ name: DOWN, url: 'http://127.0.0.1:9/v2', apiVersion: 'v2', tokenUrl: 'http://127.0.0.1:9/token', clientId: 'nobody', clientSecret: 'irrelevant-secret' }] }));
    await api.importBootstrap(file);
    await assert.rejects(api.connections.client(DOWN));
    const state = await waitFor('the error state', () => (info(DOWN)?.state === 'error' ? info(DOWN) : undefined));
    assert.ok(state.error && state.error.length > 0, 'the reason is kept for the status bar and trees');
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: DOWN, confirmed: true });
  });

  it('removes a connection with its secret', async () => {
    assert.equal(await vscode.commands.executeCommand('firecrest.removeConnection', { name: BOOT, confirmed: true }), true);
    assert.equal(info(BOOT), undefined);
    assert.ok(!profilesSetting().some((p) => p.name === BOOT));
  });
});
