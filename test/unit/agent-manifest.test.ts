/**
 * package.json declares exactly the agent tools the code defines (`npm run tools:manifest` writes
 * them), with their schemas, and the MCP server definition provider; the titles are localised.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { toolManifest } from '../../src/core/tools/manifest';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { contributes: Record<string, unknown>; bin?: Record<string, string> };
const nls = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;

void describe('agent tools in the manifest', () => {
  void it('package.json holds the tools as the code defines them (run `npm run tools:manifest`)', () => {
    const { tools, strings } = toolManifest();
    assert.deepEqual(pkg.contributes.languageModelTools, tools);
    for (const [k, v] of Object.entries(strings)) assert.equal(nls[k], v, k);
  });

  void it('every tool is referenceable, with an object schema; writes are tagged', () => {
    for (const t of pkg.contributes.languageModelTools as { name: string; toolReferenceName: string; inputSchema: { type: string }; tags: string[] }[]) {
      assert.match(t.toolReferenceName, /^firecrest[A-Z][A-Za-z]+$/);
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.ok(t.tags.includes('reads') !== t.tags.includes('writes'), t.name);
    }
  });

  void it('the MCP server is declared for VS Code and as a program of the package', () => {
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: 'firecrest.mcpServers', label: '%firecrest.mcpServers.label%' }]);
    assert.deepEqual(pkg.bin, { 'firecrest-mcp': './dist/mcp.js' });
  });
});
