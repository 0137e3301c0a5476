/**
 * Every word the extension shows goes through the l10n bundle: the committed `l10n/` bundle holds
 * exactly the strings the sources ask for (`npm run l10n` writes it), and no string is looked up
 * while a module loads, before activation has configured the bundle. The lint rule (eslint.config.mjs)
 * refuses the literal itself; this is the other half.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getL10nJson } from '@vscode/l10n-dev';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

function sources(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** `l10n.t(...)` calls that run when the module loads (outside any function). */
function loadTimeLookups(file: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node, inFunction: boolean): void => {
    const inside = inFunction || ts.isFunctionLike(n) || ts.isPropertyDeclaration(n);
    if (!inFunction && ts.isCallExpression(n) && /(^|\.)l10n\.t$/.test(n.expression.getText(sf))) {
      found.push(`${file.slice(ROOT.length + 1)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    }
    ts.forEachChild(n, (c) => visit(c, inside));
  };
  visit(sf, false);
  return found;
}

void describe('localisation', () => {
  void it('the committed bundle holds exactly the strings of the sources (run `npm run l10n`)', async () => {
    const files = sources().map((f) => ({ extension: '.ts', contents: readFileSync(f, 'utf8') }));
    const fresh = await getL10nJson(files);
    const committed = JSON.parse(readFileSync(join(ROOT, 'l10n', 'bundle.l10n.json'), 'utf8')) as Record<string, unknown>;
    const missing = Object.keys(fresh).filter((k) => !(k in committed));
    const stale = Object.keys(committed).filter((k) => !(k in fresh));
    assert.deepEqual({ missing, stale }, { missing: [], stale: [] });
    assert.ok(Object.keys(fresh).length > 500, `only ${Object.keys(fresh).length} strings: is the export reading the sources?`);
  });

  void it('no word is looked up while a module loads (it would miss the display language)', () => {
    assert.deepEqual(sources().flatMap(loadTimeLookups), []);
  });

  void it('package.json names the bundle folder, and the package carries it', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { l10n?: string };
    assert.equal(pkg.l10n, './l10n');
    assert.match(readFileSync(join(ROOT, '.vscodeignore'), 'utf8'), /^!l10n\/bundle\.l10n\*\.json$/m);
  });
});
