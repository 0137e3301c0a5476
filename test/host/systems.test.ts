/**
 * The Systems tree in a real VS Code against the local gateway (or a site's deployment): systems
 * with health, partitions with the default marked, the `maint` reservation flagged, filesystems,
 * user info; and a failing call shown as an error node whose Retry brings the data back.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SnapshotNode } from '../../src/views/treeSnapshot';
import { gatewayOnly, target, type GatewayInfo } from '../support/target';
import { routesOf, skipBecause } from './support/apiVersion';
import { extensionApi, waitFor } from './support/extension';

const PROFILE = 'systems-test';

type Snap = SnapshotNode;

async function admin(gw: GatewayInfo, method: string, path: string, body?: unknown): Promise<void> {
  const res = await fetch(`${gw.admin!.replace(/\/+$/, '')}${path}`, {
    method,
    headers: { authorization: `Bearer ${gw.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status}`);
}

/** The subtree of one system of our profile (the tree shows connections only when there are several). */
async function systemNode(system: string): Promise<Snap | undefined> {
  const snap = await vscode.commands.executeCommand<{ tree: Snap[] }>('firecrest.test.systemsTree');
  const conn = snap.tree.find((n) => n.label === PROFILE && n.contextValue?.includes(';connection;'));
  const systems = conn ? (conn.children ?? []) : snap.tree;
  return systems.find((n) => n.label === system);
}

const child = (n: Snap | undefined, label: string) => n?.children?.find((c) => c.label === label);

describe('Systems view', function () {
  const t = target();

  before(async () => {
    await extensionApi();
    await vscode.commands.executeCommand('firecrest.addConnection', {
      name: PROFILE, url: t.url, apiVersion: t.apiVersion, tokenUrl: t.tokenUrl, clientId: t.clientId, clientSecret: t.clientSecret, defaultSystem: t.system,
    });
    await vscode.commands.executeCommand('firecrest.systems.focus');
  });

  after(async () => {
    if (t.gateway?.admin) await admin(t.gateway, 'DELETE', '/faults').catch(() => undefined);
    await vscode.commands.executeCommand('firecrest.removeConnection', { name: PROFILE, confirmed: true });
  });

  it('shows each system with its health, and partitions with the default marked', async () => {
    const sys = await waitFor('the system node', () => systemNode(t.system));
    assert.match(sys.description ?? '', /^(ok|degraded|down|unknown)$/);
    assert.ok(sys.icon, 'a health icon');
    assert.deepEqual(sys.children?.map((c) => c.label), ['Partitions', 'Nodes', 'Reservations', 'Filesystems', 'Storage', 'User info']);
    const parts = child(sys, 'Partitions')?.children ?? [];
    const names = parts.map((p) => p.label);
    if (t.gateway) for (const p of ['debug', 'long', 'xfer']) assert.ok(names.includes(p), `partition ${p} in ${names.join(',')}`);
    const debug = parts.find((p) => p.label === 'debug');
    if (t.gateway) {
      assert.match(debug?.description ?? '', /default/, 'debug is marked as the default partition');
      assert.match(debug?.contextValue ?? '', /;default;/);
    }
    for (const p of parts) assert.match(p.description ?? '', /^(UP|DOWN|DRAIN|INACTIVE|[A-Z_]+)( · |$)/);
    // The load, from one node listing and one all-users job listing of the system.
    for (const p of parts) assert.match(p.description ?? '', /^[A-Z_]+ · \d+\/\d+ idle( · \d+ running · \d+ pending)?( · default)?$/, `${p.label}: ${p.description ?? ''}`);
    if (t.gateway) assert.match(debug?.tooltip ?? '', /nodes idle\n\d+ jobs running, \d+ pending \(all users\)/);
  });

  it('shows the maint reservation with a maintenance warning', async function () {
    skipBecause(this, gatewayOnly() || undefined);
    const sys = await systemNode(t.system);
    const res = child(sys, 'Reservations')?.children ?? [];
    const maint = res.find((r) => r.label === 'maint');
    assert.ok(maint, `maint in ${res.map((r) => r.label).join(',')}`);
    assert.equal(maint.icon, 'warning', 'flagged: maintenance within 7 days');
    assert.match(maint.contextValue ?? '', /;maintenance;/);
    assert.match(maint.tooltip ?? '', /Maintenance starts in/);
    assert.match(maint.description ?? '', / → /);
  });

  it('shows nodes, filesystems (openable) and the user with groups and accounts', async () => {
    const sys = await systemNode(t.system);
    const nodes = child(sys, 'Nodes')?.children ?? [];
    assert.ok(nodes.length > 0, 'at least one node');
    assert.match(nodes[0].description ?? nodes[0].label, /\w/);
    const fss = child(sys, 'Filesystems')?.children ?? [];
    assert.ok(fss.length > 0 && fss.every((f) => f.label.startsWith('/') && f.contextValue?.includes(';openable;')));
    const user = child(sys, 'User info')?.children ?? [];
    assert.ok(user.some((u) => u.label.startsWith('User ')), 'the user');
    assert.ok(user.some((u) => u.label === 'Groups'), 'the groups');
  });

  it('turns a failing call into an error node with Retry, and Retry brings the data back', async function () {
    skipBecause(this, gatewayOnly() || undefined);
    const gw = t.gateway!;
    // More failures than the client's own retries, so the failure reaches the tree.
    await admin(gw, 'PUT', '/faults', { error: { next: 50, statuses: [500], match: routesOf(t).partitions } });
    await vscode.commands.executeCommand('firecrest.systems.refresh');
    const failed = await waitFor('the error node', async () => {
      const err = child(await systemNode(t.system), 'Partitions')?.children?.[0];
      return err?.contextValue?.includes(';error;') ? err : undefined;
    }, 60_000);
    assert.equal(failed.label, 'Could not load partitions');
    assert.match(failed.contextValue ?? '', /;retry;/);
    assert.equal(failed.command, 'firecrest.systems.retry');
    // Other categories are unaffected.
    assert.ok((child(await systemNode(t.system), 'Reservations')?.children ?? []).every((r) => !r.contextValue?.includes(';error;')));
    await admin(gw, 'DELETE', '/faults');
    await vscode.commands.executeCommand('firecrest.systems.retry', failed);
    const parts = await waitFor('partitions after Retry', async () => {
      const list = child(await systemNode(t.system), 'Partitions')?.children ?? [];
      return list.length && !list[0].contextValue?.includes(';error;') ? list : undefined;
    });
    assert.ok(parts.length > 0 && (!t.gateway || parts.some((p) => p.label === 'debug')), 'the partitions are back');
  });
});
