// Writes the agent tools into package.json (`contributes.languageModelTools`, the MCP server
// definition provider) and their titles into package.nls.json, from src/core/tools: one source for
// VS Code's tools and the MCP server. `npm run tools:manifest`; test/unit/agent-manifest.test.ts
// fails when package.json is not current.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolManifest } from '../src/core/tools/manifest';

const root = join(__dirname, '..');
const pkgPath = join(root, 'package.json');
const nlsPath = join(root, 'package.nls.json');
const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { contributes: Record<string, unknown> };
const nls = JSON.parse(readFileSync(nlsPath, 'utf8')) as Record<string, string>;
const { tools, strings } = toolManifest();
pkg.contributes.languageModelTools = tools;
pkg.contributes.mcpServerDefinitionProviders = [{ id: 'firecrest.mcpServers', label: '%firecrest.mcpServers.label%' }];
Object.assign(nls, strings, { 'firecrest.mcpServers.label': 'FirecREST' });
writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
writeFileSync(nlsPath, `${JSON.stringify(nls, null, 2)}\n`);
console.log(`${tools.length} tools written to package.json`);
