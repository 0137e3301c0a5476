/**
 * The test seam stays out of a production build (issue 42): `npm run package`'s build
 * (`--production`) bundles no `firecrest.test.*` command, while a development build registers
 * them (so this check can fail).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

const out = mkdtempSync(join(tmpdir(), 'f7t-prod-build-'));
const seamIn = (dir: string): boolean => readdirSync(dir).filter((f) => /^extension(-[\w-]+)?\.js$/.test(f)).some((f) => readFileSync(join(dir, f), 'utf8').includes('firecrest.test.'));

void describe('production build', () => {
  after(() => rmSync(out, { recursive: true, force: true }));

  void it('has no firecrest.test.* command; a development build has them', () => {
    execFileSync(process.execPath, ['scripts/build.mjs', '--production', '--outdir', out], { stdio: ['ignore', 'ignore', 'inherit'] });
    assert.equal(seamIn(out), false, 'no test command in the production bundles');
    const dev = mkdtempSync(join(tmpdir(), 'f7t-dev-build-'));
    try {
      execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', dev], { stdio: ['ignore', 'ignore', 'inherit'] });
      assert.equal(seamIn(dev), true, 'a development build registers them');
    } finally {
      rmSync(dev, { recursive: true, force: true });
    }
  });
});
