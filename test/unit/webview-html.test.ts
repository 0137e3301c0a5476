/**
 * The webview HTML builder: its Content-Security-Policy lets no script run without the nonce,
 * every <script> carries that nonce, and nothing loads from outside the webview's own origin.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildWebviewHtml, contentSecurityPolicy, makeNonce } from '../../src/webviews/html';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

function build(nonce = makeNonce(), extra: Partial<Parameters<typeof buildWebviewHtml>[0]> = {}): { html: string; nonce: string } {
  const html = buildWebviewHtml({
    cspSource: CSP_SOURCE,
    nonce,
    scriptUri: `${CSP_SOURCE}/ext/dist/webview-accounting.js`,
    styleUris: [`${CSP_SOURCE}/ext/media/webviews/accounting.css`],
    title: 'Job "Accounting" <test>',
    bodyData: { panel: 'firecrest.accounting' },
    ...extra,
  });
  return { html, nonce };
}

/** The policy as the browser reads it: directive name → its source list. */
function parseCsp(html: string): Map<string, string[]> {
  const metas = [...html.matchAll(/<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/gi)];
  assert.equal(metas.length, 1, 'exactly one CSP meta element');
  const value = metas[0][1].replace(/&#39;/g, "'").replace(/&#34;/g, '"').replace(/&#38;/g, '&');
  const out = new Map<string, string[]>();
  for (const d of value.split(';').map((s) => s.trim()).filter(Boolean)) {
    const [name, ...sources] = d.split(/\s+/);
    assert.ok(!out.has(name), `directive ${name} appears once`);
    out.set(name, sources);
  }
  return out;
}

void describe('webview HTML and CSP', () => {
  void it('has a policy that denies by default and allows scripts only with the nonce', () => {
    const { html, nonce } = build();
    const csp = parseCsp(html);
    assert.deepEqual(csp.get('default-src'), ["'none'"]);
    assert.deepEqual(csp.get('script-src'), [`'nonce-${nonce}'`]);
    for (const bad of ["'unsafe-inline'", "'unsafe-eval'", "'strict-dynamic'", '*', 'data:', 'blob:', 'http:', 'https:']) {
      assert.ok(!csp.get('script-src')!.includes(bad), `script-src must not allow ${bad}`);
    }
    assert.deepEqual(csp.get('style-src'), [CSP_SOURCE, `'nonce-${nonce}'`]);
    assert.deepEqual(csp.get('font-src'), [CSP_SOURCE]);
    assert.deepEqual(csp.get('img-src'), [CSP_SOURCE, 'data:']);
    assert.ok(!html.includes("'unsafe-inline'") && !html.includes('unsafe-eval'));
  });

  void it('puts the nonce on every <script> and <link>, and has no inline script or handler', () => {
    const { html, nonce } = build();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    assert.ok(scripts.length >= 1);
    for (const [, attrs, body] of scripts) {
      assert.match(attrs, new RegExp(`\\bnonce="${nonce.replace(/[+/=]/g, (c) => `\\${c}`)}"`), 'script has the nonce');
      assert.match(attrs, /\bsrc="[^"]+"/, 'script is loaded from the bundle, not inline');
      assert.equal(body.trim(), '', 'no inline script text');
    }
    for (const [, attrs] of html.matchAll(/<link\b([^>]*)>/gi)) assert.ok(attrs.includes(`nonce="${nonce}"`));
    assert.doesNotMatch(html, /\son[a-z]+\s*=/i, 'no inline event handlers');
    assert.doesNotMatch(html, /\sstyle\s*=/i, 'no inline style attributes');
    assert.doesNotMatch(html, /https?:\/\/(?!file\+\.vscode-resource)/, 'nothing from the network');
  });

  void it('makes a fresh unguessable nonce each time and escapes what it embeds', () => {
    const a = makeNonce();
    const b = makeNonce();
    assert.notEqual(a, b);
    assert.ok(Buffer.from(a, 'base64').length >= 16);
    const { html } = build(a, { title: '</title><script>alert(1)</script>' });
    assert.equal([...html.matchAll(/<script\b/gi)].length, 1, 'the title cannot add a script');
  });

  void it('policy string matches the documented form', () => {
    assert.equal(contentSecurityPolicy('vscode-src', 'N'), "default-src 'none'; script-src 'nonce-N'; style-src vscode-src 'nonce-N'; font-src vscode-src; img-src vscode-src data:");
  });
});
