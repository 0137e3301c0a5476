/**
 * Show Job Details: the record, the metadata and the submitted script as a read-only Markdown
 * document (`firecrest-job:` scheme), shown in a view of its own (jobDetailsPanel.ts) that follows
 * the job. The document is fetched again when the view asks (`reload`).
 */
import * as vscode from 'vscode';
import { jobMarkdownTable } from '../common/jobFormat';
import { parseSbatchScript } from '../core/sbatch/index';
import type { FirecrestApi } from '../core/api';
import { dependencyTargets } from '../core/jobScript';
import type { ExtensionServices } from '../common/services';
import type { JobRef } from '../common/jobRef';
import type { KnownEfficiency } from './jobEfficiency';
import type { JobDetailsPanels } from './jobDetailsPanel';
import { resolveJob } from './pickers';
import type { ProvenanceRecord, ProvenanceStore } from './provenance';
import { messageOf } from '../core/errors';

export const JOB_DETAILS_SCHEME = 'firecrest-job';

export class JobDetailsProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  /** Fetches the details of an open document again (the job moved on). */
  reload(uri: vscode.Uri): void {
    this.changed.fire(uri);
  }

  /** The details' Markdown, fetched now (for the details view). */
  async read(uri: vscode.Uri): Promise<string> {
    const cts = new vscode.CancellationTokenSource();
    try {
      return await this.provideTextDocumentContent(uri, cts.token);
    } finally {
      cts.dispose();
    }
  }

  /** `efficiency(ref)`: what this window has read of a finished job's use (Show Job Efficiency). */
  constructor(
    private readonly services: ExtensionServices,
    private readonly provenance?: ProvenanceStore,
    private readonly efficiency?: (ref: JobRef) => KnownEfficiency | undefined,
  ) {}

  /** `firecrest-job://<profile>/<system>/<jobId>.md` */
  static uriFor(profile: string, system: string, jobId: string): vscode.Uri {
    return vscode.Uri.from({ scheme: JOB_DETAILS_SCHEME, authority: encodeURIComponent(profile), path: `/${system}/${jobId}.md` });
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const [, system, file] = uri.path.split('/');
    const jobId = file.replace(/\.md$/, '');
    const profile = decodeURIComponent(uri.authority);
    const ctl = new AbortController();
    const sub = token.onCancellationRequested(() => ctl.abort());
    try {
      const client = await this.services.connections.client(profile);
      const job = await client.job(system, jobId, { signal: ctl.signal });
      const out = [`# Job ${job.id}: ${job.name.replace(/</g, '&lt;')}`, '', jobMarkdownTable(job, system), ''];
      if (job.isFinal && this.efficiency) out.push(...efficiencySection(this.efficiency({ profile, system, jobId: job.id }), { profile, system, jobId: job.id }));
      const record = await this.provenance?.get(profile, system, jobId);
      if (record) out.push(...provenanceSection(record));
      let script: string | undefined;
      try {
        const meta = await client.jobMetadata(system, jobId, { signal: ctl.signal });
        script = meta.script;
        out.push('## Files', '', `- stdin: ${meta.stdinPath ?? '—'}`, `- stdout: ${meta.stdoutPath ?? '—'}`, `- stderr: ${meta.stderrPath ?? '—'}`, '');
        out.push(vscode.l10n.t('## Submitted script'), '');
        // A fence longer than any backtick run inside keeps the script verbatim.
        const fence = '`'.repeat(Math.max(3, ...[...(meta.script ?? '').matchAll(/`+/g)].map((m) => m[0].length + 1)));
        out.push(meta.script ? `${fence}bash\n${meta.script.replace(/\n$/, '')}\n${fence}` : vscode.l10n.t('_The scheduler did not keep the script._'), '');
      } catch (e) {
        out.push('## Metadata', '', vscode.l10n.t('_Not available: {0}_', messageOf(e)), '');
      }
      // The listing does not say what a job waits for; its script does (`#SBATCH --dependency`),
      // or the record of its submission.
      const dependency = (script && parseSbatchScript(script).last('dependency')?.value) || record?.options.dependency;
      if (dependency) {
        const at = out.indexOf('## Files');
        out.splice(at < 0 ? out.length : at, 0, ...(await dependencySection(client, system, dependency, ctl.signal)));
      }
      return out.join('\n');
    } finally {
      sub.dispose();
    }
  }
}

export async function showJobDetails(services: ExtensionServices, panels: JobDetailsPanels, arg?: unknown): Promise<string | undefined> {
  const ref = await resolveJob(services, arg, { placeHolder: vscode.l10n.t('Show the details of which job?') });
  if (!ref) return undefined;
  // A Jobs view row holds the job: the view shows it at once.
  // asJobRef took the record a row holds, when it is one of this job.
  await panels.show(ref, ref.job?.id === ref.jobId ? ref.job : undefined);
  return JobDetailsProvider.uriFor(ref.profile, ref.system, ref.jobId).toString();
}

/** What the record kept at submit says: where the script came from, the commit, the options. */
function provenanceSection(r: ProvenanceRecord): string[] {
  const source = vscode.Uri.parse(r.source);
  const lines = [vscode.l10n.t('## Submitted from this editor'), '', vscode.l10n.t('- at: {0}', new Date(r.submittedAt).toLocaleString()), scriptLine(source, r.scriptPath)];
  if (r.git) {
    const changed = r.git.diff?.split('\n').filter((l) => /^[+-](?![+-])/.test(l)).length;
    const dirty = changed === undefined ? vscode.l10n.t('clean') : r.git.diffTruncated ? vscode.l10n.t('with uncommitted changes ({0} lines, diff cut)', changed) : vscode.l10n.t('with uncommitted changes ({0} lines)', changed);
    const commit = r.git.commit ?? vscode.l10n.t('no commit yet');
    lines.push(r.git.branch ? vscode.l10n.t('- git: {0} on {1} in {2}, {3}', commit, r.git.branch, r.git.root, dirty) : vscode.l10n.t('- git: {0} in {1}, {2}', commit, r.git.root, dirty));
  }
  const o = r.options;
  const chosen = [o.partition && vscode.l10n.t('partition {0}', o.partition), o.account && vscode.l10n.t('account {0}', o.account), o.reservation && vscode.l10n.t('reservation {0}', o.reservation)].filter(Boolean);
  lines.push(vscode.l10n.t('- options: working directory {0}', [o.workingDirectory, ...chosen].join(', ')));
  if (r.env && Object.keys(r.env).length) lines.push(vscode.l10n.t('- environment: {0}', Object.keys(r.env).sort().join(', ')));
  lines.push('', vscode.l10n.t('_Compare Script with Current File and Resubmit Exactly use this record._'), '');
  return lines;
}

/** `## Dependency`: the jobs named, each with its state now (at most 10 looked up). */
async function dependencySection(client: Pick<FirecrestApi, 'job'>, system: string, dependency: string, signal: AbortSignal): Promise<string[]> {
  const lines = ['## Dependency', '', `\`--dependency=${dependency}\``, ''];
  for (const t of dependencyTargets(dependency).slice(0, 10)) {
    const other = await client.job(system, t.jobId, { signal }).catch(() => undefined);
    lines.push(other ? vscode.l10n.t('- {0}: job {1} ({2}): {3}', t.type, t.jobId, other.name, other.state) : vscode.l10n.t('- {0}: job {1}: no longer known to the scheduler', t.type, t.jobId));
  }
  lines.push('');
  return lines;
}

function scriptLine(source: vscode.Uri, scriptPath: string | undefined): string {
  const where = source.scheme === 'file' ? source.fsPath : source.toString();
  return scriptPath ? vscode.l10n.t('- script: {0} (run by its path {1})', where, scriptPath) : vscode.l10n.t('- script: {0}', where);
}

/** `## Efficiency`: what the job used against what it asked for, once read; else the link that reads it. */
function efficiencySection(known: KnownEfficiency | undefined, ref: JobRef): string[] {
  if (known) {
    return [vscode.l10n.t('## Efficiency'), '', known.sentence, '', ...(known.request ? [vscode.l10n.t('Next run: `{0}` (Apply to Script is in the Show Job Efficiency notification and the script\'s quick fixes).', known.request), ''] : [])];
  }
  const args = encodeURIComponent(JSON.stringify([ref]));
  return [vscode.l10n.t('## Efficiency'), '', vscode.l10n.t('_[Show Job Efficiency]({0}) reads what it used against what it asked for (one short job on the cluster)._', `command:firecrest.showJobEfficiency?${args}`), ''];
}
