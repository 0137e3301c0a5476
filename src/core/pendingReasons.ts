/**
 * Slurm's pending reasons (squeue's REASON, the API's `stateReason`) in plain words, with what the
 * user can do. Reasons not listed here are shown as Slurm gives them.
 */
import * as l10n from '@vscode/l10n';
export interface PendingExplanation {
  /** Why the job waits, as a sentence. */
  why: string;
  /** What the user can do about it, when anything. */
  advice?: string;
}

/** Built when asked, so in the display language (a table built at load would be read before l10n is configured). */
const QOS_OR_ASSOC_LIMIT = (): PendingExplanation => ({
  why: l10n.t('A limit of your account or QoS is reached; the job starts when your other jobs leave room under it.'),
  advice: l10n.t('Wait, or cancel or shrink other jobs of yours; `sacctmgr show assoc user=$USER` shows the limits.'),
});

const REASONS = (): Record<string, PendingExplanation> => ({
  Priority: { why: l10n.t('Jobs with a higher priority are ahead in the queue.'), advice: l10n.t('Nothing to do but wait; a shorter time limit may let it start earlier through backfill.') },
  Resources: { why: l10n.t('It is next in line and waits for nodes to become free.'), advice: l10n.t('A shorter time limit or fewer nodes may let it start sooner.') },
  Dependency: { why: l10n.t('It waits for the jobs it depends on (--dependency) to end.') },
  DependencyNeverSatisfied: { why: l10n.t('Its dependency can never be met (a job it waits for failed or was cancelled): it will never start.'), advice: l10n.t('Cancel it, and submit again without the dependency or after fixing the job it waited for.') },
  BeginTime: { why: l10n.t('It was submitted with a start time (--begin) that has not come yet.') },
  JobHeldUser: { why: l10n.t('You (or a script of yours) put it on hold.'), advice: l10n.t('Release it with `scontrol release <jobid>`.') },
  JobHeldAdmin: { why: l10n.t('An administrator put it on hold.'), advice: l10n.t('Ask the site support why.') },
  ReqNodeNotAvail: { why: l10n.t('A node it needs is not available: down, drained, or reserved (often for maintenance).'), advice: l10n.t('Check the reservations in the Systems view; a shorter time limit may let it finish before a maintenance window.') },
  Reservation: { why: l10n.t('It waits for its reservation to start.') },
  PartitionDown: { why: l10n.t('Its partition is down.'), advice: l10n.t('Wait for the site to bring it back, or submit to another partition.') },
  PartitionInactive: { why: l10n.t('Its partition is inactive and does not start jobs.'), advice: l10n.t('Submit to another partition.') },
  PartitionTimeLimit: { why: l10n.t('Its time limit is above the partition\'s maximum: it will not start there.'), advice: l10n.t('Cancel it and submit with a shorter --time, or to a partition that allows longer jobs.') },
  PartitionNodeLimit: { why: l10n.t('It asks for more (or fewer) nodes than the partition allows.'), advice: l10n.t('Cancel it and submit with a node count the partition allows.') },
  NodeDown: { why: l10n.t('A node it was given is down; it waits to be scheduled again.') },
  BadConstraints: { why: l10n.t('No node can satisfy its constraints (--constraint, memory, GPUs): it will not start.'), advice: l10n.t('Cancel it and submit with constraints some node satisfies.') },
  InvalidAccount: { why: l10n.t('Its account is not valid for you (or no longer exists).'), advice: l10n.t('Cancel it and submit with an account you may charge.') },
  InvalidQOS: { why: l10n.t('Its QoS is not valid for you.'), advice: l10n.t('Cancel it and submit with a QoS you may use.') },
  Licenses: { why: l10n.t('It waits for licenses it asked for (--licenses).') },
  launch_failed_requeued_held: { why: l10n.t('Its launch failed; it was put back in the queue and held.'), advice: l10n.t('Ask the site support; release it with `scontrol release <jobid>` to try again.') },
  JobArrayTaskLimit: { why: l10n.t('Its array already runs as many tasks at once as its `%N` throttle allows.'), advice: l10n.t('The next task starts when a running one ends; `scontrol update jobid=<array> arraytaskthrottle=<N>` changes the limit.') },
  QOSMaxJobsPerUserLimit: { why: l10n.t('You already run as many jobs as your QoS allows at once.'), advice: l10n.t('It starts when one of your running jobs ends.') },
  QOSMaxSubmitJobPerUserLimit: { why: l10n.t('You have as many jobs queued as your QoS allows.') },
  AssocMaxJobsLimit: { why: l10n.t('You already run as many jobs as your account association allows at once.'), advice: l10n.t('It starts when one of your running jobs ends.') },
  AssocGrpCPUMinutesLimit: { why: l10n.t('Your account\'s CPU-minutes budget is used up.'), advice: l10n.t('Ask your project\'s PI or the site for more allocation; the job will not start before.') },
  AssocGrpBillingMinutes: { why: l10n.t('Your account\'s billing budget is used up.'), advice: l10n.t('Ask your project\'s PI or the site for more allocation; the job will not start before.') },
});

/** The explanation of `reason` (case as Slurm writes it), or undefined for `None` and unknown reasons. */
export function explainPendingReason(reason: string | undefined): PendingExplanation | undefined {
  if (!reason || reason === 'None') return undefined;
  const reasons = REASONS();
  const known = reasons[reason];
  if (known) return known;
  // The many group and per-user limits of QoS and associations read alike.
  if (/^(QOS|Assoc)(Grp|Max)/.test(reason)) return QOS_OR_ASSOC_LIMIT();
  // `ReqNodeNotAvail, Reserved for maintenance` and `ReqNodeNotAvail, UnavailableNodes:n1`.
  const head = reason.split(/[,:(]/)[0].trim();
  return head !== reason ? reasons[head] : undefined;
}
