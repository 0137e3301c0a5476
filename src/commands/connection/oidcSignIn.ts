/**
 * A person signs in through the site's identity provider: in the browser (authorization code +
 * PKCE, redirected to a loopback port opened for this sign-in only), or with a device code where
 * that redirect cannot reach the extension (VS Code in a browser, remote windows) or when the
 * setting `firecrest.signIn.flow` says so. The refresh token goes to secret storage through
 * `Connections`; nothing of it is logged.
 */
import { callback, fields } from '../../common/commandArgs';
import * as vscode from 'vscode';
import type { OidcClient, OidcTokens } from '../../core/auth/oidc';
import { CancelledError, UnauthorizedError } from '../../core/errors';
import type { ConnectionProfile } from '../../core/model';
import type { Log } from '../../common/services';

export type SignInFlow = 'browser' | 'device';

/** The flow a sign-in uses: the setting, else the device code where a loopback redirect cannot reach this extension host. */
export function signInFlow(asked?: unknown): SignInFlow {
  if (asked === 'browser' || asked === 'device') return asked;
  const setting = vscode.workspace.getConfiguration('firecrest').get<string>('signIn.flow', 'auto');
  if (setting === 'browser' || setting === 'device') return setting;
  // In a browser (code-server, vscode.dev) or a remote window, the extension host is not on the
  // machine whose browser would follow a redirect to 127.0.0.1.
  return vscode.env.uiKind === vscode.UIKind.Web || vscode.env.remoteName !== undefined ? 'device' : 'browser';
}

export interface SignInHooks {
  /** Tests: where the browser would go (instead of opening it). */
  openUrl?: (url: string) => Promise<void> | void;
  /** Tests: the device code shown to the person. */
  onDeviceCode?: (code: { userCode: string; verificationUri: string; verificationUriComplete?: string }) => void;
}

/** The test hooks a command argument carries (functions only: nothing else is taken from it). */
export function signInHooks(arg: unknown): SignInHooks {
  return fields(arg, { openUrl: callback<NonNullable<SignInHooks['openUrl']>>(), onDeviceCode: callback<NonNullable<SignInHooks['onDeviceCode']>>() });
}

/** Runs the sign-in of an OIDC profile and returns its tokens (not yet stored). */
export async function oidcSignIn(profile: ConnectionProfile, log: Log, flow: SignInFlow, hooks: SignInHooks = {}): Promise<OidcTokens> {
  if (!profile.issuer || !profile.clientId) throw new UnauthorizedError(vscode.l10n.t('"{0}" has no identity provider (issuer and client id)', profile.name));
  const { OidcClient } = await import('../../core/auth/oidc.js');
  const oidc = await OidcClient.discover({
    issuer: profile.issuer,
    clientId: profile.clientId,
    scopes: profile.scopes,
    logger: log,
    caFile: profile.caFile,
    insecureSkipTlsVerify: profile.insecureSkipTlsVerify,
    userAgent: `firecrest-vscode/${vscode.version}`,
  });
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to {0}…', profile.name), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const sub = token.onCancellationRequested(() => abort.abort());
        try {
          if (flow === 'device') return await deviceSignIn(oidc, progress, abort.signal, hooks);
          progress.report({ message: vscode.l10n.t('Continue in your browser.') });
          return await oidc.signInWithBrowser(async (url) => {
            if (hooks.openUrl) return hooks.openUrl(url);
            const opened = await vscode.env.openExternal(await externalUrl(url));
            if (!opened) throw new CancelledError(vscode.l10n.t('The browser was not opened'));
          }, { signal: abort.signal });
        } finally {
          sub.dispose();
        }
      },
    );
  } finally {
    await oidc.close();
  }
}

/**
 * `url` as the person's browser can open it. Where VS Code runs in a browser (code-server), an
 * address on the server's loopback is reachable only through VS Code's port proxy, and code-server's
 * answer to `asExternalUri` names the proxy of the port without the page's path and query: they
 * are put back. Elsewhere (a desktop window, a site's identity provider) the address is as given.
 */
export async function externalUrl(url: string): Promise<vscode.Uri> {
  const uri = vscode.Uri.parse(url, true);
  const external = await vscode.env.asExternalUri(uri);
  if (external.toString() === uri.toString() || uri.path === '' || uri.path === '/' || external.path.endsWith(uri.path)) return external;
  return external.with({ path: `${external.path.replace(/\/+$/, '')}${uri.path}`, query: uri.query || external.query, fragment: uri.fragment });
}

async function deviceSignIn(oidc: OidcClient, progress: vscode.Progress<{ message?: string }>, signal: AbortSignal, hooks: SignInHooks): Promise<OidcTokens> {
  const device = await oidc.startDeviceSignIn();
  // The address to type, and the one to open (with the code in it, where the provider gives one).
  const at = (await externalUrl(device.verificationUri)).toString(true);
  const page = await externalUrl(device.verificationUriComplete ?? device.verificationUri);
  const code = { userCode: device.userCode, verificationUri: at, verificationUriComplete: device.verificationUriComplete && page.toString(true) };
  // From here until the sign-in ends, the progress notification shows the code and the address.
  progress.report({ message: vscode.l10n.t('Waiting for the sign-in with the code {0} at {1}', device.userCode, at) });
  if (hooks.onDeviceCode) {
    hooks.onDeviceCode(code);
  } else {
    // Modal, so that it is gone once answered (a notification would outlive the sign-in).
    const copyAndOpen = vscode.l10n.t('Copy and Open');
    const pick = await vscode.window.showInformationMessage(
      vscode.l10n.t('To sign in, enter the code {0} at {1}', device.userCode, at),
      { modal: true, detail: vscode.l10n.t('"Copy and Open" copies the code and opens the page of your identity provider. The code and the address stay in the notification until the sign-in ends.') },
      copyAndOpen,
    );
    if (pick !== copyAndOpen) throw new CancelledError(vscode.l10n.t('The sign-in was cancelled'));
    // A browser may refuse clipboard access: the page is opened anyway, and the code stays on screen.
    await Promise.resolve(vscode.env.clipboard.writeText(device.userCode)).catch(() => undefined);
    await vscode.env.openExternal(page);
  }
  return device.complete(signal);
}
