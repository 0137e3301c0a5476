/**
 * The storage figures of each system, asked for on request only (a side-car job on the cluster)
 * and kept with their age until asked again: what the Systems view's Storage group shows. The tool
 * that answered for a file system (lfs quota, quota, df) is remembered, and a later ask runs that
 * one alone. Concurrent asks for one system share one job.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import { isCancellation } from '../core/errors';
import type { QuotaTool, StorageReport } from '../core/facts/storage';
import { sidecarPartition, sidecarScratch } from '../core/sidecar/sidecar';
import { homeDirectory } from '../common/homeDirectory';
import type { ExtensionServices } from '../common/services';
import type { StorageSource, StorageState } from '../common/viewControls';

interface Kept extends StorageState {
  tools: Map<string, QuotaTool>;
  asking?: Promise<StorageReport>;
}

/** The partition side-cars of the storage feature run in (`firecrest.storage.partition`, else a data-mover one). */
export async function storagePartition(client: FirecrestClient, system: string): Promise<string | undefined> {
  const setting = vscode.workspace.getConfiguration('firecrest.storage').get<string>('partition', '').trim();
  return sidecarPartition(setting, setting ? [] : await client.partitions(system).catch(() => []));
}

/** Where a storage side-car runs and keeps its files: the user's home on the system. */
export async function storageSidecar(services: ExtensionServices, client: FirecrestClient, profile: string, system: string) {
  const home = await homeDirectory(services, client, profile, system);
  return { workingDirectory: home, scratchDir: sidecarScratch(home), partition: await storagePartition(client, system) };
}

export class StorageFacts implements StorageSource, vscode.Disposable {
  private readonly kept = new Map<string, Kept>();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly services: ExtensionServices) {}

  state(profile: string, system: string): StorageState | undefined {
    return this.kept.get(`${profile}/${system}`);
  }

  /** Asks the cluster for the figures of every file system the system lists (one job, cancellable from its notification). */
  refresh(profile: string, system: string): Promise<StorageReport> {
    const key = `${profile}/${system}`;
    let k = this.kept.get(key);
    if (!k) this.kept.set(key, (k = { running: false, scratch: new Set(), tools: new Map() }));
    const kept = k;
    if (kept.asking) return kept.asking;
    kept.running = true;
    kept.asking = this.ask(profile, system, kept).then(
      (report) => {
        Object.assign(kept, { report, at: Date.now(), error: undefined });
        for (const u of report.usages) kept.tools.set(u.path, u.tool);
        return report;
      },
      (e: unknown) => {
        // A cancel is not a failure to show.
        if (!isCancellation(e)) kept.error = e;
        throw e;
      },
    ).finally(() => {
      kept.running = false;
      kept.asking = undefined;
      this.changed.fire();
    });
    this.changed.fire();
    return kept.asking;
  }

  private async ask(profile: string, system: string, kept: Kept): Promise<StorageReport> {
    const client = await this.services.connections.client(profile);
    const sys = (await this.services.connections.systems(profile)).find((s) => s.name === system);
    if (!sys) throw new Error(vscode.l10n.t('{0} has no system {1}.', profile, system));
    kept.scratch = new Set(sys.fileSystems.filter((f) => f.dataType === 'scratch').map((f) => f.path));
    const where = await storageSidecar(this.services, client, profile, system);
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Asking {0} for your storage use (a short job on the cluster)…', system), cancellable: true },
      async (_p, token) => {
        const ac = new AbortController();
        const sub = token.onCancellationRequested(() => ac.abort());
        try {
          const { storageUsage } = await import('../core/facts/storage.js');
          return await storageUsage(client, system, sys.fileSystems.map((f) => f.path), { ...where, signal: ac.signal, tools: kept.tools });
        } finally {
          sub.dispose();
        }
      },
    );
  }

  dispose(): void {
    this.changed.dispose();
  }
}
