/**
 * The MCP server (dist/mcp.js) with the SDK's own client over stdio, against the target: it lists
 * the tools with their schemas and read/write hints, answers each read tool, refuses a write
 * without `--allow-writes` (nothing is written) and carries it out with the flag, and says in words
 * what is missing from its configuration.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NotFoundError, type FirecrestClient } from '../../src/core/index';
import { TOOLS } from '../../src/core/tools/index';
import { client, scratchDir, t } from './support';

const MCP = join(__dirname, '..', '..', 'dist', 'mcp.js');
const S = t.system;

function env(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  return {
    ...base, FIRECREST_URL: t.url, FIRECREST_TOKEN_URL: t.tokenUrl, FIRECREST_CLIENT_ID: t.clientId, FIRECREST_CLIENT_SECRET: t.clientSecret,
    FIRECREST_SYSTEM: S, FIRECREST_API_VERSION: t.apiVersion, ...extra,
  };
}

async function connect(args: string[], cwd: string): Promise<Client> {
  const c = new Client({ name: 'firecrest-test', version: '1.0.0' });
  await c.connect(new StdioClientTransport({ command: process.execPath, args: [MCP, ...args], env: env(), cwd, stderr: 'ignore' }));
  return c;
}

type CallResult = { content: { type: string; text: string }[]; isError?: boolean };
const text = (r: unknown): string => (r as CallResult).content.map((p) => p.text).join('\n');

void describe('MCP server (stdio, the SDK client)', { skip: existsSync(MCP) ? false : 'needs dist/mcp.js: run npm run build' }, () => {
  let c: FirecrestClient;
  let dir: string;
  let cwd: string;
  let readOnly: Client;
  let writer: Client;
  before(async () => {
    c = await client();
    dir = await scratchDir(c, 'mcp');
    cwd = mkdtempSync(join(tmpdir(), 'f7t-mcp-'));
    writeFileSync(join(cwd, 'local.txt'), 'from the workspace\n');
    [readOnly, writer] = await Promise.all([connect([], cwd), connect(['--allow-writes'], cwd)]);
  });
  after(async () => {
    await Promise.all([readOnly?.close(), writer?.close()]);
    await c.remove(S, dir).catch(() => undefined);
    await c.dispose();
    rmSync(cwd, { recursive: true, force: true });
  });

  void it('lists every tool with its schema, and says which only read', async () => {
    const { tools } = await readOnly.listTools();
    assert.deepEqual(tools.map((x) => x.name), TOOLS.map((x) => x.name));
    for (const tool of tools) {
      const def = TOOLS.find((x) => x.name === tool.name)!;
      assert.equal(tool.inputSchema.type, 'object');
      assert.equal(tool.annotations?.readOnlyHint, def.kind === 'read', tool.name);
      if (def.kind === 'write') assert.match(tool.description ?? '', /Writes are off on this server/);
    }
    assert.ok((await writer.listTools()).tools.every((x) => !/Writes are off/.test(x.description ?? '')));
    const jobs = tools.find((x) => x.name === 'firecrest_jobs')!;
    assert.deepEqual(Object.keys(jobs.inputSchema.properties ?? {}).sort(), ['allUsers', 'connection', 'limit', 'name', 'sinceHours', 'state', 'system']);
  });

  void it('answers each read tool', async () => {
    await c.uploadSmall(S, dir, 'seen.txt', new TextEncoder().encode('needle in the haystack\n'));
    const answers: Record<string, RegExp> = {
      firecrest_connections: new RegExp(`\\| configured \\| ${t.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\| .*${S} \\(`),
      firecrest_partitions: /^Partitions of /,
      firecrest_reservations: /reservation|No reservations/,
      firecrest_jobs: /job\(s\) on|No jobs/,
      firecrest_accounting: /job\(s\) on|No jobs/,
      firecrest_list_folder: /\| seen\.txt \| file \| 23 \|/,
      firecrest_read_file: /<cluster-data source="[^"]*seen\.txt">\nneedle in the haystack\n<\/cluster-data>/,
    };
    const inputs: Record<string, Record<string, unknown>> = { firecrest_list_folder: { path: dir }, firecrest_read_file: { path: `${dir}/seen.txt` } };
    for (const [name, want] of Object.entries(answers)) {
      const r = await readOnly.callTool({ name, arguments: inputs[name] ?? {} });
      assert.equal(r.isError, false, `${name}: ${text(r)}`);
      assert.match(text(r), want, name);
    }
    const missing = await readOnly.callTool({ name: 'firecrest_read_file', arguments: { path: `${dir}/nope` } });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /^Not found: /);
  });

  void it('refuses a write without --allow-writes, and writes with it', async () => {
    const args = { path: `${dir}/agent.txt`, content: 'written by an agent\n' };
    const refused = await readOnly.callTool({ name: 'firecrest_write_file', arguments: args });
    assert.equal(refused.isError, true);
    assert.match(text(refused), /this server is read-only: the user starts it with --allow-writes/);
    await assert.rejects(c.stat(S, args.path), NotFoundError, 'nothing written');
    const upload = await readOnly.callTool({ name: 'firecrest_upload_file', arguments: { localPath: 'local.txt', remotePath: `${dir}/local.txt` } });
    assert.equal(upload.isError, true);
    await assert.rejects(c.stat(S, `${dir}/local.txt`), NotFoundError, 'nothing uploaded');

    const written = await writer.callTool({ name: 'firecrest_write_file', arguments: args });
    assert.equal(written.isError, false, text(written));
    assert.equal(Buffer.from(await c.downloadSmall(S, args.path)).toString(), 'written by an agent\n');
    const uploaded = await writer.callTool({ name: 'firecrest_upload_file', arguments: { localPath: 'local.txt', remotePath: `${dir}/local.txt` } });
    assert.equal(uploaded.isError, false, text(uploaded));
    assert.equal(Buffer.from(await c.downloadSmall(S, `${dir}/local.txt`)).toString(), 'from the workspace\n');
  });

  void it('sends only files inside its working folder: a link out of it and a path above it are refused', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'f7t-mcp-secret-'));
    try {
      writeFileSync(join(outside, 'id_key'), 'a private key\n');
      symlinkSync(join(outside, 'id_key'), join(cwd, 'innocent.txt'));
      for (const localPath of ['innocent.txt', join(outside, 'id_key'), `../${basename(outside)}/id_key`]) {
        const r = await writer.callTool({ name: 'firecrest_upload_file', arguments: { localPath, remotePath: `${dir}/leak.txt` } });
        assert.equal(r.isError, true, localPath);
        assert.match(text(r), /leads outside .* only files inside it are sent/, localPath);
      }
      await assert.rejects(c.stat(S, `${dir}/leak.txt`), NotFoundError, 'nothing uploaded');
      mkdirSync(join(cwd, 'folder'));
      const folder = await writer.callTool({ name: 'firecrest_upload_file', arguments: { localPath: 'folder', remotePath: `${dir}/folder.txt` } });
      assert.equal(folder.isError, true);
      assert.match(text(folder), /^Refused as invalid: folder is not a file/);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  void it('says what is missing from its configuration, and exits', () => {
    const none = spawnSync(process.execPath, [MCP], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8', input: '' });
    assert.equal(none.status, 2);
    assert.match(none.stderr, /FIRECREST_URL is not set/);
    const half = spawnSync(process.execPath, [MCP], { env: { PATH: process.env.PATH ?? '', FIRECREST_URL: t.url, FIRECREST_CLIENT_ID: 'x' }, encoding: 'utf8', input: '' });
    assert.equal(half.status, 2);
    assert.match(half.stderr, /FIRECREST_TOKEN_URL and FIRECREST_CLIENT_SECRET are not set/);
  });
});
