/**
 * sbatch's refusals in words a user can act on. The scheduler's own text stays in the message
 * (after the sentence), so nothing is hidden; the sentence says what to change.
 */
import * as l10n from '@vscode/l10n';
/** Built when asked, so in the display language. */
const RULES = (): [RegExp, string][] => [
  [/Access denied to requested reservation/i, l10n.t('You may not use this reservation (it is limited to other users or accounts): leave the reservation out, or ask its owner to add you.')],
  [/Requested reservation is invalid/i, l10n.t('The reservation does not exist or has ended: choose another one, or none.')],
  [/invalid partition specified/i, l10n.t('The partition does not exist on this system: choose one the Systems view lists.')],
  [/Requested time limit is invalid|time limit.*exceeds/i, l10n.t('The time limit is above what the partition allows: shorten --time, or choose a partition with a longer limit.')],
  [/Invalid account or account\/partition combination/i, l10n.t('You cannot charge this account (or not on this partition): choose one of your accounts.')],
  [/accounting\/QOS policy|QOSMax\w*Limit|AssocMax\w*Limit|AssocGrp\w*Limit/i, l10n.t('A limit of your account or QOS refuses the job (too many jobs, CPUs or time used): wait for jobs to end, or ask for a larger allocation.')],
  [/Invalid feature specification/i, l10n.t('No node has the requested feature (--constraint): change or remove it.')],
  [/Requested node configuration is not available/i, l10n.t('No node can give what the job asks for (CPUs, memory, GPUs): ask for less.')],
  [/Job dependency problem/i, l10n.t('The job it should run after does not exist or has already failed: check --dependency.')],
  [/Batch script is empty|This does not look like a batch script/i, l10n.t('The script is empty or does not start with a #! line (e.g. #!/bin/bash).')],
];

/** The refusal `text` with a sentence that says what to do in front, when one is known. */
export function explainSbatchRefusal(text: string): string {
  for (const [re, sentence] of RULES()) if (re.test(text)) return l10n.t('{0} (The scheduler said: {1})', sentence, text.trim());
  return text;
}
