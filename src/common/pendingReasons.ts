/**
 * Slurm's pending reasons (squeue's REASON, the API's `stateReason`) in plain words, with what the
 * user can do. Reasons not listed here are shown as Slurm gives them.
 */
export interface PendingExplanation {
  /** Why the job waits, as a sentence. */
  why: string;
  /** What the user can do about it, when anything. */
  advice?: string;
}

const QOS_OR_ASSOC_LIMIT: PendingExplanation = {
  why: 'A limit of your account or QoS is reached; the job starts when your other jobs leave room under it.',
  advice: 'Wait, or cancel or shrink other jobs of yours; `sacctmgr show assoc user=$USER` shows the limits.',
};

const REASONS: Record<string, PendingExplanation> = {
  Priority: { why: 'Jobs with a higher priority are ahead in the queue.', advice: 'Nothing to do but wait; a shorter time limit may let it start earlier through backfill.' },
  Resources: { why: 'It is next in line and waits for nodes to become free.', advice: 'A shorter time limit or fewer nodes may let it start sooner.' },
  Dependency: { why: 'It waits for the jobs it depends on (--dependency) to end.' },
  DependencyNeverSatisfied: { why: 'Its dependency can never be met (a job it waits for failed or was cancelled): it will never start.', advice: 'Cancel it, and submit again without the dependency or after fixing the job it waited for.' },
  BeginTime: { why: 'It was submitted with a start time (--begin) that has not come yet.' },
  JobHeldUser: { why: 'You (or a script of yours) put it on hold.', advice: 'Release it with `scontrol release <jobid>`.' },
  JobHeldAdmin: { why: 'An administrator put it on hold.', advice: 'Ask the site support why.' },
  ReqNodeNotAvail: { why: 'A node it needs is not available: down, drained, or reserved (often for maintenance).', advice: 'Check the reservations in the Systems view; a shorter time limit may let it finish before a maintenance window.' },
  Reservation: { why: 'It waits for its reservation to start.' },
  PartitionDown: { why: 'Its partition is down.', advice: 'Wait for the site to bring it back, or submit to another partition.' },
  PartitionInactive: { why: 'Its partition is inactive and does not start jobs.', advice: 'Submit to another partition.' },
  PartitionTimeLimit: { why: 'Its time limit is above the partition\'s maximum: it will not start there.', advice: 'Cancel it and submit with a shorter --time, or to a partition that allows longer jobs.' },
  PartitionNodeLimit: { why: 'It asks for more (or fewer) nodes than the partition allows.', advice: 'Cancel it and submit with a node count the partition allows.' },
  NodeDown: { why: 'A node it was given is down; it waits to be scheduled again.' },
  BadConstraints: { why: 'No node can satisfy its constraints (--constraint, memory, GPUs): it will not start.', advice: 'Cancel it and submit with constraints some node satisfies.' },
  InvalidAccount: { why: 'Its account is not valid for you (or no longer exists).', advice: 'Cancel it and submit with an account you may charge.' },
  InvalidQOS: { why: 'Its QoS is not valid for you.', advice: 'Cancel it and submit with a QoS you may use.' },
  Licenses: { why: 'It waits for licenses it asked for (--licenses).' },
  launch_failed_requeued_held: { why: 'Its launch failed; it was put back in the queue and held.', advice: 'Ask the site support; release it with `scontrol release <jobid>` to try again.' },
  JobArrayTaskLimit: { why: 'Its array already runs as many tasks at once as its `%N` throttle allows.', advice: 'The next task starts when a running one ends; `scontrol update jobid=<array> arraytaskthrottle=<N>` changes the limit.' },
  QOSMaxJobsPerUserLimit: { why: 'You already run as many jobs as your QoS allows at once.', advice: 'It starts when one of your running jobs ends.' },
  QOSMaxSubmitJobPerUserLimit: { why: 'You have as many jobs queued as your QoS allows.' },
  AssocMaxJobsLimit: { why: 'You already run as many jobs as your account association allows at once.', advice: 'It starts when one of your running jobs ends.' },
  AssocGrpCPUMinutesLimit: { why: 'Your account\'s CPU-minutes budget is used up.', advice: 'Ask your project\'s PI or the site for more allocation; the job will not start before.' },
  AssocGrpBillingMinutes: { why: 'Your account\'s billing budget is used up.', advice: 'Ask your project\'s PI or the site for more allocation; the job will not start before.' },
};

/** The explanation of `reason` (case as Slurm writes it), or undefined for `None` and unknown reasons. */
export function explainPendingReason(reason: string | undefined): PendingExplanation | undefined {
  if (!reason || reason === 'None') return undefined;
  const known = REASONS[reason];
  if (known) return known;
  // The many group and per-user limits of QoS and associations read alike.
  if (/^(QOS|Assoc)(Grp|Max)/.test(reason)) return QOS_OR_ASSOC_LIMIT;
  // `ReqNodeNotAvail, Reserved for maintenance` and `ReqNodeNotAvail, UnavailableNodes:n1`.
  const head = reason.split(/[,:(]/)[0].trim();
  return head !== reason ? REASONS[head] : undefined;
}
