/** The kernel's job: where its session folders go, what it asks of the scheduler, and its script. */
import { shellQuote } from '../shellQuote';

/** Where kernels keep their session folders, under the user's home on the cluster. */
export function notebookScratch(home: string): string {
  return `${home.replace(/\/+$/, '')}/.firecrest-vscode/notebooks`;
}

/** The job name of a kernel (an orphan is found by it). */
export const KERNEL_JOB_NAME = 'f7t-notebook';
/** Exit status of the driver that asks the job script for a fresh process (restart). */
const RESTART_STATUS = 75;

export interface KernelResources {
  partition?: string;
  account?: string;
  /** Minutes. */
  timeMinutes: number;
  cpus?: number;
  /** `--mem`, e.g. `8G`. */
  memory?: string;
  gpus?: number;
}

/** The job script: the driver again after a restart (exit 75), in the same job. */
export function kernelScript(dir: string, r: KernelResources): string {
  const lines = [
    '#!/bin/bash',
    `#SBATCH --job-name=${KERNEL_JOB_NAME}`,
    `#SBATCH --time=${Math.max(1, Math.round(r.timeMinutes))}`,
    '#SBATCH --ntasks=1',
    `#SBATCH --cpus-per-task=${Math.max(1, Math.round(r.cpus ?? 1))}`,
    ...(r.memory ? [`#SBATCH --mem=${r.memory}`] : []),
    ...(r.gpus ? [`#SBATCH --gres=gpu:${Math.round(r.gpus)}`] : []),
    `#SBATCH --output=${dir}/job.out`,
    `#SBATCH --error=${dir}/job.err`,
    `cd ${shellQuote(dir)} || exit 1`,
    'export MPLBACKEND=Agg PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1',
    'g=0',
    `while :; do F7T_GENERATION=$g python3 driver.py; s=$?; [ $s -eq ${RESTART_STATUS} ] || exit $s; g=$((g+1)); done`,
    '',
  ];
  return lines.join('\n');
}
