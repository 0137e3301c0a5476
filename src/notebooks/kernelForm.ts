/**
 * What a notebook kernel asks of the scheduler: time, CPUs, memory and GPUs, asked once per
 * kernel start, prefilled from the last answers for that system and partition, and checked as
 * the batch-script checks check `#SBATCH` (the partition's time limit, whole numbers, a memory size).
 */
import * as vscode from 'vscode';
import type { KernelResources } from '../core/notebook/kernelJob';
import type { Partition } from '../core/model';
import { formatTime, parseTime } from '../core/sbatch/values';

const MEMORY = /^\d+(\.\d+)?[KMGT]?$/i;

/** A finite, positive time as #SBATCH --time reads it, in seconds. */
function seconds(text: string): number | undefined {
  const t = parseTime(text);
  return t.ok && Number.isFinite(t.value) && t.value > 0 ? t.value : undefined;
}

export interface KernelFormAnswers {
  /** Scripts and tests: the answers, without asking. */
  given?: Partial<KernelResources>;
}

/** Where the last answers are kept (global state, per profile/system/partition). */
const key = (profile: string, system: string, partition: string) => `firecrest.notebook.resources/${profile}/${system}/${partition}`;

/** Asks for the kernel's resources; undefined when the user dismissed a question. */
export async function askKernelResources(memento: vscode.Memento, profile: string, system: string, partition: Partition, o: KernelFormAnswers = {}): Promise<KernelResources | undefined> {
  const last = memento.get<KernelResources>(key(profile, system, partition.name));
  const maxMinutes = partition.maxTimeSeconds !== undefined && Number.isFinite(partition.maxTimeSeconds) ? Math.floor(partition.maxTimeSeconds / 60) : undefined;
  let r: KernelResources | undefined;
  if (o.given) {
    r = { timeMinutes: 60, ...last, ...o.given, partition: partition.name };
  } else {
    const title = (step: number) => vscode.l10n.t('Notebook kernel on {0} · {1} ({2}/4)', system, partition.name, step);
    const time = await vscode.window.showInputBox({
      title: title(1),
      prompt: vscode.l10n.t('Time limit of the kernel\'s job (as #SBATCH --time: minutes, HH:MM:SS, D-HH:MM){0}', maxMinutes !== undefined ? vscode.l10n.t('; {0} allows {1}', partition.name, formatTime(maxMinutes * 60)) : ''),
      value: formatTime((last?.timeMinutes ?? 60) * 60),
      ignoreFocusOut: true,
      validateInput: (v) => {
        const s = seconds(v);
        if (s === undefined) return vscode.l10n.t('A time as #SBATCH --time takes it, e.g. 60, 1:30:00 or 1-00:00:00');
        if (maxMinutes !== undefined && s / 60 > maxMinutes) return vscode.l10n.t('{0} allows at most {1}', partition.name, formatTime(maxMinutes * 60));
        return undefined;
      },
    });
    if (time === undefined) return undefined;
    const whole = (v: string, min: number) => (/^\d+$/.test(v.trim()) && Number(v) >= min ? undefined : vscode.l10n.t('A whole number, {0} or more', min));
    const cpus = await vscode.window.showInputBox({ title: title(2), prompt: vscode.l10n.t('CPUs (--cpus-per-task)'), value: String(last?.cpus ?? 1), ignoreFocusOut: true, validateInput: (v) => whole(v, 1) });
    if (cpus === undefined) return undefined;
    const memory = await vscode.window.showInputBox({ title: title(3), prompt: vscode.l10n.t('Memory (--mem, e.g. 8G; empty: the partition\'s default)'), value: last?.memory ?? '', ignoreFocusOut: true, validateInput: (v) => (v.trim() === '' || MEMORY.test(v.trim()) ? undefined : vscode.l10n.t('A size as --mem takes it, e.g. 4000M or 8G')) });
    if (memory === undefined) return undefined;
    const gpus = await vscode.window.showInputBox({ title: title(4), prompt: vscode.l10n.t('GPUs (--gres=gpu:N; 0 for none)'), value: String(last?.gpus ?? 0), ignoreFocusOut: true, validateInput: (v) => whole(v, 0) });
    if (gpus === undefined) return undefined;
    r = { partition: partition.name, timeMinutes: Math.ceil(seconds(time)! / 60), cpus: Number(cpus), memory: memory.trim() || undefined, gpus: Number(gpus) || undefined };
  }
  await memento.update(key(profile, system, partition.name), { ...r, partition: undefined });
  return r;
}
