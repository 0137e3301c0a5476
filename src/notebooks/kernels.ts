/**
 * Notebook kernels on compute nodes: one controller per partition of each system of the signed-in
 * connections ("FirecREST: <system> · <partition>"). A notebook's first run asks for the job's
 * resources and starts the kernel's job; its state shows in the status bar (queued with Slurm's
 * expected start, then running on its node with the time left, a warning ten minutes before the
 * end). Restart and Shut Down are in the notebook's toolbar. Closing the notebook asks whether to
 * cancel the job; a kernel kept running is attached again when the notebook is opened again (also
 * after a window reload), and one whose notebook is gone is offered for cancel at the next start.
 */
import * as vscode from 'vscode';
import type { FirecrestClient } from '../core/client';
import type { Job } from '../core/model';
import type { KernelHandle, KernelState, NotebookSession } from '../core/notebook/session';
import { homeDirectory } from '../common/homeDirectory';
import { clockTime } from '../common/reachability';
import type { ExtensionServices } from '../common/services';
import { runCell } from './cellRun';
import { askKernelResources, type KernelFormAnswers } from './kernelForm';

const KEPT = 'firecrest.notebook.kernels';
const WARN_BEFORE_END_S = 10 * 60;

interface Kept extends KernelHandle {
  profile: string;
  partition: string;
  notebook: string;
}

interface Running {
  kept: Kept;
  session: NotebookSession;
  controller: vscode.NotebookController;
  warned?: boolean;
  /** Place in the partition's queue while waiting (1: next), looked up every 30 s at most. */
  position?: { at: number; place?: number };
}

const POSITION_EVERY_MS = 30_000;

export class NotebookKernels implements vscode.Disposable {
  private readonly controllers = new Map<string, vscode.NotebookController>();
  private readonly running = new Map<string, Running>();
  private readonly status = vscode.window.createStatusBarItem('firecrest.notebookKernel', vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [];
  private orphansOffered = false;
  /** Scripts and tests: the answers to the resources form. */
  formAnswers: KernelFormAnswers = {};

  constructor(private readonly services: ExtensionServices) {
    this.status.name = vscode.l10n.t('FirecREST notebook kernel');
    this.disposables.push(
      this.status,
      // Nothing is asked of the cluster until a notebook is open (not at activation).
      services.connections.onDidChange(() => this.wanted && void this.update()),
      vscode.workspace.onDidOpenNotebookDocument((nb) => nb.notebookType === 'jupyter-notebook' && !this.wanted && void this.update()),
      vscode.window.onDidChangeActiveNotebookEditor(() => this.showStatus()),
      vscode.workspace.onDidCloseNotebookDocument((nb) => void this.closed(nb)),
    );
    if (vscode.workspace.notebookDocuments.some((nb) => nb.notebookType === 'jupyter-notebook')) void this.update();
  }

  /** Whether the kernels were listed once (a notebook was open): connection changes list them again. */
  private wanted = false;

  /** One controller per partition of every system of the signed-in connections. */
  async update(): Promise<void> {
    this.wanted = true;
    const wanted = new Set<string>();
    for (const c of this.services.connections.connections()) {
      if (c.state === 'signed-out') continue;
      const profile = c.profile.name;
      try {
        const client = await this.services.connections.client(profile);
        for (const system of await this.services.connections.systems(profile)) {
          for (const p of await client.partitions(system.name).catch(() => [])) {
            if (p.state && !/^up$/i.test(p.state)) continue;
            const id = `firecrest-${profile}-${system.name}-${p.name}`.replace(/[^\w.-]/g, '_');
            wanted.add(id);
            if (!this.controllers.has(id)) this.controllers.set(id, this.controller(id, profile, system.name, p.name));
          }
        }
      } catch (e) {
        this.services.log.withTag('notebook').debug(`kernels of ${profile}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    for (const [id, ctl] of this.controllers) {
      if (wanted.has(id) || [...this.running.values()].some((r) => r.controller === ctl)) continue;
      ctl.dispose();
      this.controllers.delete(id);
    }
  }

  private controller(id: string, profile: string, system: string, partition: string): vscode.NotebookController {
    const multi = this.services.connections.connections().length > 1;
    const ctl = vscode.notebooks.createNotebookController(id, 'jupyter-notebook', vscode.l10n.t('FirecREST: {0} · {1}', system, partition));
    ctl.description = multi ? profile : vscode.l10n.t('a Slurm job');
    ctl.detail = vscode.l10n.t('Runs the cells in a Python process of a job on {0} ({1}), through FirecREST', system, partition);
    ctl.supportedLanguages = ['python'];
    ctl.supportsExecutionOrder = true;
    ctl.executeHandler = async (cells, notebook) => {
      const run = await this.sessionFor(notebook, ctl, profile, system, partition);
      if (!run) return;
      for (const cell of cells) {
        const r = await runCell(ctl, run.session, cell);
        if (!r || r.status === 'interrupted' || r.status === 'aborted') break;
      }
    };
    ctl.interruptHandler = async (notebook) => {
      await this.running.get(notebook.uri.toString())?.session.interrupt();
    };
    // A kernel left running for this notebook (a reload, a reopen) is attached again when chosen.
    ctl.onDidChangeSelectedNotebooks(({ notebook, selected }) => {
      if (selected) void this.reattach(notebook, ctl, profile, system, partition);
    });
    this.disposables.push(ctl);
    return ctl;
  }

  private kept(): Kept[] {
    return this.services.context.workspaceState.get<Kept[]>(KEPT, []);
  }

  private async keep(list: Kept[]): Promise<void> {
    await this.services.context.workspaceState.update(KEPT, list);
  }

  private async reattach(notebook: vscode.NotebookDocument, ctl: vscode.NotebookController, profile: string, system: string, partition: string): Promise<void> {
    const key = notebook.uri.toString();
    if (this.running.has(key)) return;
    const kept = this.kept().find((k) => k.notebook === key && k.profile === profile && k.system === system && k.partition === partition);
    if (!kept) return;
    const client = await this.services.connections.client(profile);
    const job = await client.job(system, kept.jobId).catch(() => undefined);
    if (!job || job.isFinal) {
      await this.keep(this.kept().filter((k) => k !== kept && k.jobId !== kept.jobId));
      return;
    }
    const { NotebookSession } = await import('../core/notebook/session.js');
    this.started(key, kept, NotebookSession.attach(client, kept, { onState: (s) => this.onState(key, s) }), ctl);
    this.services.log.withTag('notebook').info(`attached to the kernel of ${notebook.uri.path} (job ${kept.jobId} on ${system})`);
  }

  private started(key: string, kept: Kept, session: NotebookSession, controller: vscode.NotebookController): Running {
    const run: Running = { kept, session, controller };
    this.running.set(key, run);
    this.showStatus();
    return run;
  }

  private async sessionFor(notebook: vscode.NotebookDocument, ctl: vscode.NotebookController, profile: string, system: string, partition: string): Promise<Running | undefined> {
    const key = notebook.uri.toString();
    const have = this.running.get(key);
    if (have && have.controller === ctl && have.session.state.state !== 'ended') return have;
    if (have) await this.stop(key, true);
    await this.reattach(notebook, ctl, profile, system, partition);
    const again = this.running.get(key);
    if (again) return again;
    const client = await this.services.connections.client(profile);
    await this.offerOrphans(client, profile, system);
    const p = (await client.partitions(system)).find((x) => x.name === partition);
    if (!p) throw new Error(vscode.l10n.t('{0} has no partition {1} any more.', system, partition));
    const resources = await askKernelResources(this.services.context.globalState, profile, system, p, this.formAnswers);
    if (!resources) return undefined;
    const home = await homeDirectory(this.services, client, profile, system);
    const { NotebookSession, notebookScratch } = await import('../core/notebook/session.js');
    const session = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Starting a kernel on {0}…', system) }, () =>
      NotebookSession.start(client, system, notebookScratch(home), resources, { onState: (s) => this.onState(key, s) }));
    const kept: Kept = { ...session.handle, profile, partition, notebook: key };
    await this.keep([...this.kept().filter((k) => k.notebook !== key), kept]);
    this.services.log.withTag('notebook').info(`kernel for ${notebook.uri.path}: job ${kept.jobId} on ${system} (${partition})`);
    return this.started(key, kept, session, ctl);
  }

  /** Kernels this window started whose notebooks are not open, still running: offered for cancel once a window. */
  private async offerOrphans(client: FirecrestClient, profile: string, system: string): Promise<void> {
    if (this.orphansOffered) return;
    this.orphansOffered = true;
    const open = new Set(vscode.workspace.notebookDocuments.map((d) => d.uri.toString()));
    for (const k of this.kept().filter((x) => x.profile === profile && x.system === system && !open.has(x.notebook))) {
      const job = await client.job(system, k.jobId).catch(() => undefined);
      if (!job || job.isFinal) {
        await this.keep(this.kept().filter((x) => x.jobId !== k.jobId));
        continue;
      }
      const cancel = vscode.l10n.t('Cancel Job');
      const pick = await vscode.window.showWarningMessage(vscode.l10n.t('The kernel of {0} still runs as job {1} on {2}, with its notebook closed.', vscode.Uri.parse(k.notebook).path.split('/').pop() ?? k.notebook, k.jobId, system), cancel, vscode.l10n.t('Keep It'));
      if (pick === cancel) {
        const { NotebookSession } = await import('../core/notebook/session.js');
        await NotebookSession.attach(client, k).shutdown();
        await this.keep(this.kept().filter((x) => x.jobId !== k.jobId));
      }
    }
  }

  /** The kernel's place in its partition's queue: the pending jobs there submitted before it, plus one. */
  private async lookUpPosition(run: Running, job: Job): Promise<void> {
    if (run.position && Date.now() - run.position.at < POSITION_EVERY_MS) return;
    run.position = { at: Date.now(), place: run.position?.place };
    try {
      const client = await this.services.connections.client(run.kept.profile);
      const queue = await client.jobs(run.kept.system, { allUsers: true, queueOnly: true });
      const mine = job.submitTime ?? Number.POSITIVE_INFINITY;
      const ahead = queue.filter((j) => j.stateClass === 'pending' && j.id !== job.id && j.partition === job.partition && (j.submitTime ?? 0) <= mine);
      run.position.place = ahead.length + 1;
      this.showStatus();
    } catch {
      // The position is a nicety: the expected start stays.
    }
  }

  private onState(key: string, s: KernelState): void {
    const run = this.running.get(key);
    if (run && s.state === 'queued' && s.job) void this.lookUpPosition(run, s.job);
    if (s.state === 'ended') {
      this.running.delete(key);
      void this.keep(this.kept().filter((k) => k.notebook !== key));
      if (run && s.why !== 'shut down') void vscode.window.showWarningMessage(vscode.l10n.t('The notebook kernel ended: {0}.', s.why));
    }
    // The time limit: a warning once, ten minutes before the end.
    const job = 'job' in s ? s.job : undefined;
    if (run && !run.warned && job?.startTime && job.timeLimitSeconds && (s.state === 'idle' || s.state === 'busy')) {
      const left = job.startTime + job.timeLimitSeconds - Date.now() / 1000;
      if (left < WARN_BEFORE_END_S) {
        run.warned = true;
        void vscode.window.showWarningMessage(vscode.l10n.t('The notebook kernel (job {0}) reaches its time limit at {1}: save what you need.', run.kept.jobId, clockTime((job.startTime + job.timeLimitSeconds) * 1000)));
      }
    }
    this.showStatus();
  }

  private showStatus(): void {
    const nb = vscode.window.activeNotebookEditor?.notebook;
    const run = nb && this.running.get(nb.uri.toString());
    if (!run) {
      this.status.hide();
      return;
    }
    const s = run.session.state;
    const { system, jobId } = run.kept;
    const job = 'job' in s ? s.job : undefined;
    const end = job?.startTime && job.timeLimitSeconds ? clockTime((job.startTime + job.timeLimitSeconds) * 1000) : undefined;
    switch (s.state) {
      case 'queued':
        this.status.text = `$(watch) ${vscode.l10n.t('Kernel queued on {0}', system)}${run.position?.place ? ` · ${vscode.l10n.t('#{0} in line', run.position.place)}` : ''}${job?.startTime ? ` · ${vscode.l10n.t('expected to start {0}', clockTime(job.startTime * 1000))}` : ''}`;
        this.status.tooltip = vscode.l10n.t('Job {0} waits{1}', jobId, job?.reason ? ` (${job.reason})` : '');
        break;
      case 'idle':
      case 'busy':
        this.status.text = `$(${s.state === 'busy' ? 'sync~spin' : 'server'}) ${vscode.l10n.t('Kernel on {0}', s.host ?? system)}${end ? ` · ${vscode.l10n.t('until {0}', end)}` : ''}`;
        this.status.tooltip = vscode.l10n.t('Job {0} on {1}, Python {2}', jobId, system, s.python ?? '?');
        break;
      case 'restarting':
        this.status.text = `$(sync~spin) ${vscode.l10n.t('Kernel restarting')}`;
        this.status.tooltip = undefined;
        break;
      case 'ended':
        this.status.text = `$(circle-slash) ${vscode.l10n.t('Kernel ended')}`;
        this.status.tooltip = s.why;
        break;
    }
    this.status.show();
  }

  /** The running kernel of the notebook (or the active one). */
  private current(arg?: unknown): [string, Running] | undefined {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeNotebookEditor?.notebook.uri;
    const key = uri?.toString();
    const run = key ? this.running.get(key) : undefined;
    return key && run ? [key, run] : undefined;
  }

  async restart(arg?: unknown): Promise<void> {
    const found = this.current(arg);
    if (!found) throw new Error(vscode.l10n.t('This notebook has no FirecREST kernel running.'));
    await found[1].session.restart();
  }

  async shutdown(arg?: unknown): Promise<string | undefined> {
    const found = this.current(arg);
    if (!found) throw new Error(vscode.l10n.t('This notebook has no FirecREST kernel running.'));
    await this.stop(found[0], true);
    return found[1].kept.jobId;
  }

  private async stop(key: string, cancel: boolean): Promise<void> {
    const run = this.running.get(key);
    if (!run) return;
    this.running.delete(key);
    if (cancel) {
      await run.session.shutdown();
      await this.keep(this.kept().filter((k) => k.notebook !== key));
    } else {
      await run.session.detach();
    }
    this.showStatus();
  }

  /** Closing a notebook whose kernel runs: cancel its job, or keep it for the next open. */
  private async closed(nb: vscode.NotebookDocument): Promise<void> {
    const key = nb.uri.toString();
    const run = this.running.get(key);
    if (!run) return;
    const cancel = vscode.l10n.t('Cancel Job');
    const pick = await vscode.window.showWarningMessage(
      vscode.l10n.t('The kernel of {0} runs as job {1} on {2}. Cancel the job?', nb.uri.path.split('/').pop() ?? '', run.kept.jobId, run.kept.system),
      { modal: true, detail: vscode.l10n.t('Keep It leaves the job running: opening the notebook again attaches to it, until its time limit.') },
      cancel, vscode.l10n.t('Keep It'),
    );
    await this.stop(key, pick === cancel);
  }

  /** Tests: the kernel of a notebook. */
  kernelOf(uri: vscode.Uri): { jobId: string; system: string; state: string } | undefined {
    const run = this.running.get(uri.toString());
    return run && { jobId: run.kept.jobId, system: run.kept.system, state: run.session.state.state };
  }

  dispose(): void {
    // The jobs run on: the next window attaches to them.
    for (const run of this.running.values()) void run.session.detach();
    for (const d of this.disposables) d.dispose();
  }
}
