/**
 * `npm run bench:fs`: what the remote file system costs, counted by the gateway (`/_admin/stats`).
 * Drives the provider's vscode-free core (src/fs/remoteFileSystem.ts) the way VS Code does:
 *  - expanding a folder = stat(folder) + readDirectory(folder) + stat(child) for every child, with
 *    the parent's listing already known (it is: the parent is on screen) — 1,000 and 10,000 entries;
 *  - opening a file = stat + readFile, 20 small files;
 *  - an idle Explorer with nothing visible (window unfocused / nothing watched) for BENCH_IDLE_S s.
 * Prints a table; needs the local gateway (run through scripts/with-gateway.mjs).
 */
import { createClient } from '../src/core/createClient';
import type { FirecrestClient } from '../src/core/client';
import { FirecrestUri } from '../src/core/uri';
import { ChangePoller } from '../src/fs/changePoller';
import { RemoteFileSystem } from '../src/fs/remoteFileSystem';
import { target } from '../test/support/target';
import { tarGz, type TarEntry } from './fs-tar';

const t = target();
const gw = t.gateway;
if (!gw?.admin || !gw.adminToken) {
  console.error('bench:fs needs the local gateway (its /_admin/stats counts the requests).');
  process.exit(2);
}
const admin = gw.admin.replace(/\/+$/, '');
const adminHeaders = { authorization: `Bearer ${gw.adminToken}` };

async function stats(): Promise<{ requests: number; byRoute: Record<string, number> }> {
  const r = await fetch(`${admin}/stats`, { headers: adminHeaders });
  return (await r.json()) as { requests: number; byRoute: Record<string, number> };
}
async function resetStats(): Promise<void> {
  await fetch(`${admin}/stats/reset`, { method: 'POST', headers: adminHeaders });
}

function newFs(client: FirecrestClient): RemoteFileSystem {
  return new RemoteFileSystem({ clientFor: async () => client, directLimit: async () => 1024 * 1024 });
}

async function makeFolder(client: FirecrestClient, base: FirecrestUri, name: string, entries: TarEntry[]): Promise<FirecrestUri> {
  const archive = `${name}.tar.gz`;
  await client.uploadSmall(base.system, base.path, archive, tarGz(entries));
  await client.extract(base.system, base.joinPath(archive).path, base.path, { compression: 'gzip' });
  await client.remove(base.system, base.joinPath(archive).path);
  return base.joinPath(name);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function expand(client: FirecrestClient, dir: FirecrestUri, runs = 5): Promise<{ requests: number; ms: number; rawMs: number; entries: number }> {
  const times: number[] = [];
  const raws: number[] = [];
  let requests = 0;
  let entries = 0;
  for (let i = 0; i < runs; i++) {
    const fs = newFs(client);
    await fs.list(dir.dirname); // the parent is on screen already
    await resetStats();
    const t0 = performance.now();
    await fs.stat(dir);
    const children = await fs.readDirectory(dir);
    const tl = performance.now();
    // VS Code hands over one URI per child; parsing it is what the adapter does (FirecrestUri.from).
    await Promise.all(children.map(([name]) => fs.stat(dir.with({ path: `${dir.path}/${name}` }))));
    times.push(performance.now() - t0);
    if (process.env.BENCH_VERBOSE) console.error(`list ${(tl - t0).toFixed(1)} ms, stats ${(performance.now() - tl).toFixed(1)} ms`);
    requests = Math.max(requests, (await stats()).requests);
    entries = children.length;
    const r0 = performance.now();
    await client.list(dir.system, dir.path, { showHidden: true });
    raws.push(performance.now() - r0);
  }
  return { requests, ms: median(times), rawMs: median(raws), entries };
}

async function main(): Promise<void> {
  const client = await createClient({
    profile: { name: 'bench', url: t.url, apiVersion: 'v2', tokenUrl: t.tokenUrl, clientId: t.clientId },
    clientSecret: t.clientSecret,
  });
  const user = (await client.userInfo(t.system)).user.name;
  const home = FirecrestUri.from({ system: t.system, path: `/home/${user}` });
  const base = home.joinPath(`bench-fs-${Date.now().toString(36)}`);
  await client.mkdir(t.system, base.path);
  const rows: string[][] = [];
  try {
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    const d1k = await makeFolder(client, base, 'd1k', [{ name: 'd1k/' }, ...range(1000).map((i) => ({ name: `d1k/file-${i}.txt` }))]);
    const d10k = await makeFolder(client, base, 'd10k', [{ name: 'd10k/' }, ...range(10_000).map((i) => ({ name: `d10k/f${i}` }))]);
    const small = await makeFolder(client, base, 'small', [
      { name: 'small/' },
      ...range(20).map((i) => ({ name: `small/s${i}.txt`, data: new TextEncoder().encode(`file ${i}\n`.repeat(20)) })),
    ]);

    for (const dir of [d1k, d10k]) {
      const r = await expand(client, dir);
      rows.push([`expand folder of ${r.entries} entries`, `${r.requests}`, '1', `${r.ms.toFixed(0)} ms (raw ls ${r.rawMs.toFixed(0)} ms, ${(r.ms / r.rawMs).toFixed(2)}x)`, '<= 1.2x raw ls']);
    }

    {
      const fs = newFs(client);
      const names = (await fs.readDirectory(small)).map(([n]) => n);
      await resetStats();
      const t0 = performance.now();
      for (const n of names) {
        const f = small.joinPath(n);
        await fs.stat(f);
        await fs.readFile(f);
      }
      const ms = performance.now() - t0;
      const s = await stats();
      rows.push([`open ${names.length} small files (stat + read)`, `${s.requests}`, `${names.length}`, `${ms.toFixed(0)} ms`, '1 request per file']);
    }

    const idleS = Number(process.env.BENCH_IDLE_S ?? 60);
    for (const mode of ['unfocused window, folder watched', 'focused, nothing watched', 'focused, one folder watched'] as const) {
      const fs = newFs(client);
      const poller = new ChangePoller({
        list: (d, age) => fs.list(d, age),
        isDirectory: async () => true,
        emit: () => undefined,
        active: mode.startsWith('focused'),
      });
      if (mode.includes('watched') && !mode.includes('nothing')) poller.watch(base, true);
      await fs.list(base);
      await resetStats();
      await new Promise((r) => setTimeout(r, idleS * 1000));
      const s = await stats();
      poller.dispose();
      const visible = mode === 'focused, one folder watched';
      rows.push([`idle Explorer, ${mode} (${idleS} s)`, `${s.requests}`, visible ? '-' : '0', `${((s.requests * 60) / idleS).toFixed(1)} req/min`, visible ? 'backs off 3 s -> 60 s' : '0 requests/min']);
    }
  } finally {
    await client.remove(t.system, base.path).catch(() => undefined);
    await client.dispose();
  }
  const head = ['scenario', 'requests', 'target', 'measured', 'goal'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join(' | ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const r of rows) console.log(line(r));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
