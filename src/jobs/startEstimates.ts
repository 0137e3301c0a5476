/**
 * "Where would it start sooner?": Slurm's own estimate of when a script would start in each
 * partition, without submitting it (one short side-car job running `sbatch --test-only` per
 * partition). *Where Would This Script Start Soonest?* lists the partitions soonest first and
 * submits to the one chosen; Submit Job's partition question fills the estimates in beside each
 * partition from its title button.
 */
import * as vscode from 'vscode';
import { activeDocumentUri } from '../common/activeDocument';
import type { FirecrestApi } from '../core/api';
import type { StartEstimate, StartEstimates } from '../core/facts/startEstimate';
import { sidecarScratch } from '../core/sidecar/sidecar';
import { fields, text, uri as uriArg } from '../common/commandArgs';
import { clockTime } from '../common/reachability';
import { homeDirectory } from '../common/homeDirectory';
import type { ExtensionServices } from '../common/services';
import { pickProfile, pickSystem } from './pickers';

/** Partitions the scheduler would take jobs in (a partition down or drained is left out). */
export function openPartitions(partitions: readonly { name: string; state?: string }[]): string[] {
  return partitions.filter((p) => !p.state || /^up$/i.test(p.state)).map((p) => p.name);
}

/** Runs the estimates with a cancellable notification. */
export async function estimateStarts(services: ExtensionServices, client: FirecrestApi, profile: string, system: string, script: string, partitions: string[]): Promise<StartEstimates> {
  const home = await homeDirectory(services, client, profile, system);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Asking Slurm when the script would start in {0} partition(s) (a short job on {1})…', partitions.length, system), cancellable: true },
    async (_p, token) => {
      const ac = new AbortController();
      const sub = token.onCancellationRequested(() => ac.abort());
      try {
        const { startEstimates } = await import('../core/facts/startEstimate.js');
        return await startEstimates(client, system, script, partitions, { workingDirectory: home, scratchDir: sidecarScratch(home), signal: ac.signal });
      } finally {
        sub.dispose();
      }
    },
  );
}

/** "now", "in 25 min (14:03)", "in 2 h 10 min (Sat 14:03)". */
export function startInWords(startTime: number, now = Date.now()): string {
  const ms = startTime * 1000 - now;
  if (ms < 60_000) return vscode.l10n.t('now');
  const min = Math.round(ms / 60_000);
  const at = ms < 86_400_000 ? clockTime(startTime * 1000) : new Date(startTime * 1000).toLocaleString(undefined, { weekday: 'short', hour: '2-digit', minute: '2-digit' });
  if (min < 60) return vscode.l10n.t('in {0} min ({1})', min, at);
  const h = Math.floor(min / 60);
  return h < 48 ? vscode.l10n.t('in {0} h {1} min ({2})', h, min % 60, at) : vscode.l10n.t('in {0} days ({1})', Math.round(h / 24), at);
}

/** A partition's estimate as a quick-pick description and detail. */
export function estimateWords(e: StartEstimate): { description: string; detail?: string } {
  if (e.startTime === undefined) return { description: vscode.l10n.t('would not start'), detail: e.refused };
  return { description: vscode.l10n.t('expected to start {0}', startInWords(e.startTime)), detail: e.nodes ? vscode.l10n.t('on {0}', e.nodes) : undefined };
}

export interface WhereToStart {
  estimates: StartEstimate[];
  /** The partition chosen (the job was submitted there), if any. */
  partition?: string;
}

/**
 * Where Would This Script Start Soonest?: estimates for every open partition, soonest first; the
 * one chosen gets the submission. `submit` submits the script to a partition (Submit Job).
 */
export async function whereWouldItStart(services: ExtensionServices, arg: unknown, submit: (uri: vscode.Uri, profile: string, system: string, partition: string) => Promise<unknown>): Promise<WhereToStart | undefined> {
  const given = fields(arg, { uri: uriArg, profile: text, system: text, choose: text });
  const uri = uriArg(arg) ?? given.uri ?? activeDocumentUri();
  if (!uri) throw new Error(vscode.l10n.t('Open a batch script to see where it would start soonest.'));
  const doc = await vscode.workspace.openTextDocument(uri);
  const profile = await pickProfile(services, given.profile);
  if (!profile) return undefined;
  const system = await pickSystem(services, profile, given.system);
  if (!system) return undefined;
  const client = await services.connections.client(profile);
  const partitions = openPartitions(await client.partitions(system));
  if (!partitions.length) throw new Error(vscode.l10n.t('{0} lists no partition that takes jobs.', system));
  const { estimates } = await estimateStarts(services, client, profile, system, doc.getText(), partitions);
  // Scripts and tests: `choose` picks without asking ("" asks nothing).
  let chosen = given.choose;
  if (chosen === undefined) {
    const pick = await vscode.window.showQuickPick(
      estimates.map((e) => ({ label: e.partition, ...estimateWords(e), partition: e.partition, disabled: e.startTime === undefined })),
      { title: vscode.l10n.t('Where {0} would start on {1}: Slurm\'s estimates, soonest first', doc.fileName.split('/').pop() ?? '', system), placeHolder: vscode.l10n.t('Submit to which partition? (Escape: submit nothing)'), matchOnDescription: true },
    );
    chosen = pick && !pick.disabled ? pick.partition : undefined;
  }
  if (chosen) await submit(uri, profile, system, chosen);
  return { estimates, partition: chosen || undefined };
}
