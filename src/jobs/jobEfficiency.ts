/**
 * FirecREST: Show Job Efficiency: how a finished job used what it asked for (one short sacct job on
 * the cluster, through the side-car runner), and the request its next run needs: "used 2.1 GiB of
 * 32 GiB and 12 minutes of 4 hours; set --mem=3G --time=00:15:00" with a margin the user sets
 * (`firecrest.jobs.efficiencyMargin`), never below what the job used. *Apply to Script* writes the
 * two `#SBATCH` lines into the script the job was submitted from (its provenance), as an edit the
 * user saves or undoes. Answers are kept for the window (a finished job's use does not change).
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import { sidecarScratch } from '../core/sidecar/sidecar';
import { jobEfficiency, rightSize, withRequest, type EfficiencyReport, type JobEfficiency } from '../core/facts/efficiency';
import { fields, flag } from '../common/commandArgs';
import { homeDirectory } from '../common/homeDirectory';
import { formatDuration } from '../common/jobFormat';
import { jobKey, type JobRef } from '../common/jobRef';
import type { ExtensionServices } from '../common/services';
import { resolveJob } from './pickers';
import type { ProvenanceStore } from './provenance';

const GiB = 2 ** 30;
const size = (b: number): string => (b >= GiB ? `${(b / GiB).toFixed(1)} GiB` : `${Math.round(b / 2 ** 20)} MiB`);

/** The job's use in one sentence. */
export function efficiencySentence(e: JobEfficiency, usageRecorded: boolean | undefined): string {
  const parts: string[] = [];
  if (e.maxRssBytes !== undefined) parts.push(e.memoryBytes ? vscode.l10n.t('{0} of {1} memory', size(e.maxRssBytes), size(e.memoryBytes)) : vscode.l10n.t('{0} memory', size(e.maxRssBytes)));
  parts.push(e.timeLimitSeconds ? vscode.l10n.t('{0} of {1}', formatDuration(e.elapsedSeconds), formatDuration(e.timeLimitSeconds)) : formatDuration(e.elapsedSeconds));
  if (e.cpuEfficiency !== undefined) parts.push(vscode.l10n.t('{0}% of {1} CPU(s)', Math.round(e.cpuEfficiency * 100), e.cpus));
  const unrecorded = usageRecorded === false ? ` ${vscode.l10n.t('(this cluster does not record memory and CPU use)')}` : '';
  return vscode.l10n.t('Job {0} used {1}.', e.jobId, parts.join(', ')) + unrecorded;
}

/** What is known of a finished job's use: the sentence and the request its next run needs. */
export interface KnownEfficiency {
  efficiency: JobEfficiency;
  /** "Job 812 used 2.1 GiB of 32 GiB memory, …". */
  used: string;
  /** `used` and the next run's request. */
  sentence: string;
  next: { mem?: string; time?: string };
  /** `--mem=3G --time=00:15:00`, or '' when there is nothing to suggest. */
  request: string;
}

export class JobEfficiencies implements vscode.Disposable {
  private readonly known = new Map<string, { report: EfficiencyReport; at: number }>();
  private readonly learned = new vscode.EventEmitter<JobRef>();
  /** A job's efficiency was read (the details view and the script's quick fix show it). */
  readonly onDidLearn = this.learned.event;

  constructor(
    private readonly services: ExtensionServices,
    private readonly provenance: ProvenanceStore,
  ) {}

  private async report(client: FirecrestClient, profile: string, system: string, jobId: string, refresh: boolean): Promise<EfficiencyReport> {
    const key = jobKey({ profile, system, jobId });
    const kept = this.known.get(key);
    if (kept && !refresh) return kept.report;
    const home = await homeDirectory(this.services, client, profile, system);
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Reading the accounting of job {0} on {1} (a short job on the cluster)…', jobId, system), cancellable: true },
      async (_p, token) => {
        const ac = new AbortController();
        const sub = token.onCancellationRequested(() => { ac.abort(); });
        try {
          return await jobEfficiency(client, system, [jobId], { signal: ac.signal, workingDirectory: home, scratchDir: sidecarScratch(home) });
        } finally {
          sub.dispose();
        }
      },
    );
    // A record slurmdbd has not completed yet is not kept: the next ask reads it again.
    if (report.jobs.get(jobId)?.complete) {
      this.known.set(key, { report, at: Date.now() });
      this.learned.fire({ profile, system, jobId });
    }
    return report;
  }

  /** What this window has read of the job's use (nothing is asked for here). */
  of(ref: JobRef): KnownEfficiency | undefined {
    const kept = this.known.get(jobKey(ref));
    const e = kept?.report.jobs.get(ref.jobId);
    return e && kept ? describe(e, kept.report.usageRecorded) : undefined;
  }

  /** Shows the job's efficiency; resolves with the sentence and the suggested request (tests). */
  async show(arg: unknown): Promise<{ sentence: string; next: { mem?: string; time?: string } } | undefined> {
    const ref = await resolveJob(this.services, arg, { placeHolder: vscode.l10n.t('The efficiency of which finished job?') });
    if (!ref) return undefined;
    const client = await this.services.connections.client(ref.profile);
    const report = await this.report(client, ref.profile, ref.system, ref.jobId, fields(arg, { refresh: flag }).refresh === true);
    const e = report.jobs.get(ref.jobId);
    if (!e) throw new Error(vscode.l10n.t('Slurm has no accounting record of job {0} on {1} (not finished, or too old).', ref.jobId, ref.system));
    if (!e.complete) throw new Error(vscode.l10n.t('Slurm is still completing the accounting record of job {0} on {1}: ask again in a minute.', ref.jobId, ref.system));
    const { next, request, sentence } = describe(e, report.usageRecorded);
    const record = await this.provenance.get(ref.profile, ref.system, ref.jobId);
    const apply = vscode.l10n.t('Apply to Script');
    const o = fields(arg, { quiet: flag, apply: flag });
    // Scripts and tests: `apply` writes the request into the job's script without asking.
    if (o.apply && record && request) await this.applyTo(vscode.Uri.parse(record.source), next);
    if (!o.quiet) {
      void vscode.window.showInformationMessage(sentence, ...(record && request ? [apply] : [])).then(async (pick) => {
        if (pick === apply && record) await this.applyTo(vscode.Uri.parse(record.source), next);
      });
    }
    return { sentence, next };
  }

  /** Opens the script and sets its request, as an unsaved edit. */
  async applyTo(script: vscode.Uri, next: { mem?: string; time?: string }): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(script);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(script, new vscode.Range(0, 0, doc.lineCount, 0), withRequest(doc.getText(), next));
    await vscode.workspace.applyEdit(edit);
    await vscode.window.showTextDocument(doc);
  }

  dispose(): void {
    this.learned.dispose();
  }
}

/** The job's use in words and the next run's request, with the user's margin. */
function describe(e: JobEfficiency, usageRecorded: boolean | undefined): KnownEfficiency {
  const margin = vscode.workspace.getConfiguration('firecrest.jobs').get<number>('efficiencyMargin', 0.25);
  const next = rightSize(e, margin);
  const request = [next.mem && `--mem=${next.mem}`, next.time && `--time=${next.time}`].filter(Boolean).join(' ');
  const used = efficiencySentence(e, usageRecorded);
  const sentence = used + (request ? ` ${vscode.l10n.t('Its next run needs about {0}.', request)}` : '');
  return { efficiency: e, used, sentence, next, request };
}
