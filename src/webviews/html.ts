/**
 * The one HTML builder for every webview: a strict Content-Security-Policy with a fresh nonce, the
 * panel's bundle as the only script, and stylesheets from the extension's own files. Plain strings
 * in and out (no `vscode` import) so unit tests can check the policy without a VS Code.
 */
import { randomBytes } from 'node:crypto';

export interface WebviewHtmlOptions {
  /** `webview.cspSource` of the panel. */
  cspSource: string;
  /** `webview.asWebviewUri(...)` of the bundle, as a string. */
  scriptUri: string;
  styleUris: string[];
  title: string;
  /** A fresh nonce per render (see `makeNonce`). */
  nonce: string;
  /** Attributes of <body>, e.g. a `data-panel` name; escaped here. */
  bodyData?: Record<string, string>;
}

/** 128 random bits, base64: unguessable, and a new one each time the HTML is set. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The Content-Security-Policy value for a nonce: nothing runs or loads unless listed here. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
  ].join('; ');
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function buildWebviewHtml(o: WebviewHtmlOptions): string {
  const csp = contentSecurityPolicy(o.cspSource, o.nonce);
  const data = Object.entries(o.bodyData ?? {})
    .map(([k, v]) => ` data-${k.replace(/[^a-z0-9-]/gi, '')}="${escapeHtml(v)}"`)
    .join('');
  const styles = o.styleUris.map((u) => `<link rel="stylesheet" href="${escapeHtml(u)}" nonce="${escapeHtml(o.nonce)}">`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    ${styles}
    <title>${escapeHtml(o.title)}</title>
  </head>
  <body${data}>
    <main id="app" aria-busy="true"></main>
    <script nonce="${escapeHtml(o.nonce)}" src="${escapeHtml(o.scriptUri)}"></script>
  </body>
</html>
`;
}
