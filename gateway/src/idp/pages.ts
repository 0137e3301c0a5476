/**
 * The identity provider's HTML: login, second factor, device code entry and confirmation, and the
 * end pages. Plain, self-contained pages (no external fonts or scripts: the UI tests run offline).
 */
const STYLE = `body{font-family:system-ui,sans-serif;background:#f3f3f3;margin:0;padding:40px 0}
main{max-width:340px;margin:0 auto;background:#fff;padding:24px 32px;border-radius:4px;box-shadow:0 1px 3px rgba(0,0,0,.2)}
h1{font-weight:400;font-size:1.5em;margin:0 0 16px}label{display:block;margin:12px 0 4px}
input{width:100%;box-sizing:border-box;padding:8px;font-size:15px}button{margin-top:16px;width:100%;padding:9px;font-size:15px;background:#0e639c;color:#fff;border:0;border-radius:2px;cursor:pointer}
button.secondary{background:none;color:#555;margin-top:8px}.error{color:#b00020}.code{font-size:1.6em;letter-spacing:.1em;text-align:center}`;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

export function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

function errorLine(error: string | undefined): string {
  return error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '';
}

export function loginPage(action: string, clientName: string, error?: string, login = ''): string {
  return page('Sign in', `<p>to continue to <strong>${escapeHtml(clientName)}</strong></p>${errorLine(error)}
<form method="post" action="${escapeHtml(action)}" autocomplete="off">
<label for="login">Username</label><input id="login" name="login" value="${escapeHtml(login)}" autofocus required>
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit">Sign in</button></form>
<form method="post" action="${escapeHtml(action.replace(/\/login$/, '/abort'))}"><button class="secondary" type="submit">Cancel</button></form>`);
}

export function totpPage(action: string, error?: string): string {
  return page('Two-factor authentication', `<p>Enter the 6-digit code from your authenticator app.</p>${errorLine(error)}
<form method="post" action="${escapeHtml(action)}" autocomplete="off">
<label for="code">One-time code</label><input id="code" name="code" inputmode="numeric" pattern="[0-9 ]*" autofocus required>
<button type="submit">Verify</button></form>`);
}

/** The device code entry page around oidc-provider's form (it carries the anti-forgery field). */
export function deviceInputPage(form: string, error?: string): string {
  return page('Connect a device', `<p>Enter the code shown in your editor.</p>${errorLine(error)}${form}
<button type="submit" form="op.deviceInputForm">Continue</button>`);
}

export function deviceConfirmPage(form: string, clientName: string, userCode: string): string {
  return page('Confirm the device', `<p><strong>${escapeHtml(clientName)}</strong> asks to sign in with this code:</p>
<p class="code">${escapeHtml(userCode)}</p><p>Continue only if your editor shows the same code.</p>${form}
<button type="submit" form="op.deviceConfirmForm">Continue</button>
<button class="secondary" type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Abort</button>`);
}

export function donePage(title: string, text: string): string {
  return page(title, `<p>${escapeHtml(text)}</p>`);
}
