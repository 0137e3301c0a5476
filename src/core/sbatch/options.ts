/**
 * The sbatch options the editor knows: long name, short letter, whether a value is required, how
 * the value is checked, and a one-line description (for completion and hover). Descriptions are
 * written for this extension; `man sbatch` stays the reference.
 */

/** How an option's value is read and checked. */
export type ValueKind =
  | 'none' // a flag: takes no value
  | 'string' // any text
  | 'time' // a Slurm time limit
  | 'memory' // a size with K/M/G/T units, MiB by default
  | 'array' // job array indexes
  | 'dependency' // job dependencies
  | 'count' // a positive integer
  | 'range' // `N` or `min-max` (nodes)
  | 'partition' // comma-separated partition names
  | 'reservation' // comma-separated reservation names
  | 'account'
  | 'qos'
  | 'mail-type'
  | 'open-mode';

/** One sbatch option. */
export interface SbatchOption {
  long: string;
  short?: string;
  /** `required`: `--x=v`, `--x v`, `-xv`, `-x v`; `optional`: only `--x=v` / `-xv`. */
  arg: 'none' | 'required' | 'optional';
  kind: ValueKind;
  description: string;
  /** Placeholder shown in completion and hover, e.g. `<[D-]HH:MM:SS>`. */
  placeholder?: string;
}

const o = (long: string, short: string | undefined, arg: SbatchOption['arg'], kind: ValueKind, description: string, placeholder?: string): SbatchOption => ({
  long, short, arg, kind, description, placeholder,
});

/** The table, in the order completion offers it (the common ones first). */
export const SBATCH_OPTIONS: readonly SbatchOption[] = [
  o('partition', 'p', 'required', 'partition', 'Partition (queue) to run in; a comma-separated list lets Slurm pick the first that can start it.', '<name>[,<name>…]'),
  o('time', 't', 'required', 'time', 'Wall-clock limit; the job is killed when it is reached. Must not exceed the partition maximum.', '<[D-]HH:MM:SS>'),
  o('job-name', 'J', 'required', 'string', 'Name shown in the queue and used for %x in output file names.', '<name>'),
  o('account', 'A', 'required', 'account', 'Account (project) charged for the resources used.', '<account>'),
  o('nodes', 'N', 'required', 'range', 'Number of nodes, or a minimum-maximum range.', '<min>[-<max>]'),
  o('ntasks', 'n', 'required', 'count', 'Number of tasks (processes) srun launches by default.', '<n>'),
  o('ntasks-per-node', undefined, 'required', 'count', 'Tasks per node.', '<n>'),
  o('cpus-per-task', 'c', 'required', 'count', 'CPUs given to each task (threads per process).', '<n>'),
  o('mem', undefined, 'required', 'memory', 'Memory per node; units K, M, G or T (MiB when none). 0 asks for all memory of the node.', '<size>[K|M|G|T]'),
  o('mem-per-cpu', undefined, 'required', 'memory', 'Memory per allocated CPU; units K, M, G or T (MiB when none).', '<size>[K|M|G|T]'),
  o('mem-per-gpu', undefined, 'required', 'memory', 'Memory per allocated GPU; units K, M, G or T (MiB when none).', '<size>[K|M|G|T]'),
  o('output', 'o', 'required', 'string', 'File for standard output (patterns: %j job id, %x name, %A array master, %a index).', '<file>'),
  o('error', 'e', 'required', 'string', 'File for standard error (same patterns as --output).', '<file>'),
  o('input', 'i', 'required', 'string', 'File connected to standard input.', '<file>'),
  o('chdir', 'D', 'required', 'string', 'Working directory of the job on the cluster.', '<directory>'),
  o('reservation', undefined, 'required', 'reservation', 'Run inside this advance reservation.', '<name>'),
  o('qos', 'q', 'required', 'qos', 'Quality of service (limits and priority class).', '<qos>'),
  o('array', 'a', 'required', 'array', 'Submit a job array: indexes, ranges with a step, and %N to run at most N at once.', '<indexes>[%<max running>]'),
  o('dependency', 'd', 'required', 'dependency', 'Start only when other jobs reached a state (afterok:<id>, afterany:<id>, singleton, …).', '<type>:<job id>[:<job id>…]'),
  o('constraint', 'C', 'required', 'string', 'Node features the job needs (e.g. gpu, a CPU model).', '<features>'),
  o('gres', undefined, 'required', 'string', 'Generic resources per node, e.g. gpu:2.', '<name>[:<type>]:<count>'),
  o('gpus', 'G', 'required', 'string', 'GPUs for the whole job.', '[<type>:]<count>'),
  o('gpus-per-node', undefined, 'required', 'string', 'GPUs per node.', '[<type>:]<count>'),
  o('gpus-per-task', undefined, 'required', 'string', 'GPUs per task.', '[<type>:]<count>'),
  o('cpus-per-gpu', undefined, 'required', 'count', 'CPUs per allocated GPU.', '<n>'),
  o('ntasks-per-core', undefined, 'required', 'count', 'Tasks per core.', '<n>'),
  o('ntasks-per-socket', undefined, 'required', 'count', 'Tasks per socket.', '<n>'),
  o('mail-type', undefined, 'required', 'mail-type', 'When to send mail: NONE, BEGIN, END, FAIL, REQUEUE, ALL, TIME_LIMIT, ARRAY_TASKS, … (comma-separated).', '<type>[,<type>…]'),
  o('mail-user', undefined, 'required', 'string', 'Where the mail goes (default: the submitting user).', '<address>'),
  o('exclusive', undefined, 'optional', 'string', 'Do not share the nodes with other jobs (=user or =mcs to share only with your own).', '[=user|mcs]'),
  o('oversubscribe', 's', 'none', 'none', 'Allow sharing the nodes with other jobs.'),
  o('begin', 'b', 'required', 'string', 'Do not start before this time (e.g. now+1hour, 2030-01-31T12:00).', '<time>'),
  o('deadline', undefined, 'required', 'string', 'Remove the job if it cannot finish before this time.', '<time>'),
  o('time-min', undefined, 'required', 'time', 'Minimum time limit; lets the scheduler start the job earlier with a shorter limit.', '<[D-]HH:MM:SS>'),
  o('nodelist', 'w', 'required', 'string', 'Run on these nodes.', '<nodes>'),
  o('exclude', 'x', 'required', 'string', 'Never run on these nodes.', '<nodes>'),
  o('export', undefined, 'required', 'string', 'Environment passed to the job: ALL, NONE, or a list of variables.', 'ALL|NONE|<var>[=<value>],…'),
  o('export-file', undefined, 'required', 'string', 'File with environment variables to set.', '<file>'),
  o('get-user-env', undefined, 'optional', 'string', 'Load the login environment of the user.', '[=<timeout>][<mode>]'),
  o('hold', 'H', 'none', 'none', 'Submit in held state (release with scontrol release).'),
  o('requeue', undefined, 'none', 'none', 'Allow the job to be requeued.'),
  o('no-requeue', undefined, 'none', 'none', 'Never requeue the job.'),
  o('open-mode', undefined, 'required', 'open-mode', 'Open output files with append or truncate.', 'append|truncate'),
  o('signal', undefined, 'required', 'string', 'Send a signal this many seconds before the time limit.', '[{R|B}:]<sig>[@<seconds>]'),
  o('comment', undefined, 'required', 'string', 'Free-text comment kept with the job.', '<text>'),
  o('licenses', 'L', 'required', 'string', 'Licenses the job needs.', '<license>[:<count>],…'),
  o('distribution', 'm', 'required', 'string', 'How tasks are laid out over nodes, sockets and cores.', '<block|cyclic|arbitrary|plane=…>'),
  o('hint', undefined, 'required', 'string', 'Scheduling hint: compute_bound, memory_bound, multithread, nomultithread.', '<hint>'),
  o('threads-per-core', undefined, 'required', 'count', 'Threads used per core.', '<n>'),
  o('sockets-per-node', undefined, 'required', 'count', 'Sockets per node.', '<n>'),
  o('cores-per-socket', undefined, 'required', 'count', 'Cores per socket.', '<n>'),
  o('tmp', undefined, 'required', 'memory', 'Minimum temporary disk space per node.', '<size>[K|M|G|T]'),
  o('nice', undefined, 'optional', 'string', 'Lower the priority by this adjustment.', '[=<adjustment>]'),
  o('priority', undefined, 'required', 'string', 'Requested priority (administrators only).', '<value>'),
  o('wckey', undefined, 'required', 'string', 'Workload characterisation key.', '<key>'),
  o('cluster', 'M', 'required', 'string', 'Submit to another cluster of a federation.', '<cluster>'),
  o('clusters', undefined, 'required', 'string', 'Clusters to submit to.', '<cluster>[,…]'),
  o('switches', undefined, 'required', 'string', 'Maximum number of leaf switches, and how long to wait for them.', '<count>[@<time>]'),
  o('wait', 'W', 'none', 'none', 'sbatch waits until the job ends and returns its exit code.'),
  o('parsable', undefined, 'none', 'none', 'Print only the job id (and cluster) on submission.'),
  o('test-only', undefined, 'none', 'none', 'Estimate the start time without submitting.'),
  o('verbose', 'v', 'none', 'none', 'More output from sbatch.'),
  o('quiet', 'Q', 'none', 'none', 'Less output from sbatch.'),
  o('no-kill', 'k', 'optional', 'string', 'Keep the job running when one of its nodes fails.', '[=off]'),
  o('overcommit', 'O', 'none', 'none', 'Allow more tasks than CPUs.'),
  o('kill-on-invalid-dep', undefined, 'required', 'string', 'Cancel the job when its dependency can never be met.', 'yes|no'),
  o('propagate', undefined, 'optional', 'string', 'Resource limits (ulimits) passed to the job.', '[=<rlimit>[,…]]'),
  o('uid', undefined, 'required', 'string', 'Submit as another user (root only).', '<user>'),
  o('gid', undefined, 'required', 'string', 'Submit with another group (root only).', '<group>'),
  o('mincpus', undefined, 'required', 'count', 'Minimum CPUs per node.', '<n>'),
  o('container', undefined, 'required', 'string', 'OCI container bundle to run the job in.', '<path>'),
  o('spread-job', undefined, 'none', 'none', 'Spread the job over as many nodes as possible.'),
  o('use-min-nodes', undefined, 'none', 'none', 'Prefer the smallest node count of the range.'),
  o('contiguous', undefined, 'none', 'none', 'Allocate contiguous nodes.'),
  o('reboot', undefined, 'none', 'none', 'Reboot the nodes before starting the job.'),
  o('thread-spec', undefined, 'required', 'count', 'Threads reserved for system use per node.', '<n>'),
  o('core-spec', 'S', 'required', 'count', 'Cores reserved for system use per node.', '<n>'),
  o('profile', undefined, 'required', 'string', 'Collect detailed profiling data (All, None, Energy, Task, Lustre, Network).', '<type>[,…]'),
  o('acctg-freq', undefined, 'required', 'string', 'Sampling interval of job accounting.', '<datatype>=<interval>'),
  o('burst-buffer', undefined, 'required', 'string', 'Burst buffer specification.', '<spec>'),
  o('mcs-label', undefined, 'required', 'string', 'MCS label of the job.', '<label>'),
  o('power', undefined, 'required', 'string', 'Power management flags.', '<flags>'),
  o('extra-node-info', 'B', 'required', 'string', 'Sockets:cores:threads the nodes must have.', '<sockets>[:<cores>[:<threads>]]'),
];

const byLong = new Map(SBATCH_OPTIONS.map((x) => [x.long, x]));
const byShort = new Map(SBATCH_OPTIONS.filter((x) => x.short).map((x) => [x.short!, x]));

/** The option of a long name, exact. */
export function optionByLong(name: string): SbatchOption | undefined {
  return byLong.get(name);
}

/** The option of a short letter (case matters: `-n` is ntasks, `-N` nodes). */
export function optionByShort(letter: string): SbatchOption | undefined {
  return byShort.get(letter);
}

/**
 * A long name as getopt_long reads it: exact, or a prefix of exactly one option (`--part` is
 * `--partition`). Ambiguous prefixes list the candidates.
 */
export function resolveLong(name: string): { option?: SbatchOption; ambiguous?: string[] } {
  const exact = byLong.get(name);
  if (exact) return { option: exact };
  const candidates = SBATCH_OPTIONS.filter((x) => x.long.startsWith(name));
  if (candidates.length === 1) return { option: candidates[0] };
  if (candidates.length > 1) return { ambiguous: candidates.map((x) => x.long) };
  return {};
}
