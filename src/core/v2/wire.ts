/**
 * zod schemas of the v2 answers the client reads (§3). Lenient where servers differ (nullable,
 * optional, string-or-array), strict on what the client relies on (names, paths, ids, states).
 */
import { z } from 'zod';

const str = z.string();
const optStr = z.string().nullish();
const optNum = z.number().nullish();
/** Ids were integers before 2.5.0. */
const id = z.union([z.string(), z.number()]).transform(String);
const strOrList = z.union([z.string(), z.array(z.string())]);

export const FileW = z.object({
  name: str,
  type: str,
  linkTarget: optStr,
  user: str,
  group: str,
  permissions: str,
  lastModified: str,
  size: z.union([z.string(), z.number()]),
});
export type FileWire = z.infer<typeof FileW>;

export const LsW = z.object({ output: z.array(FileW) });
export const FileOutW = z.object({ output: FileW.nullish() });
export const ContentW = z.object({ output: z.object({ content: str, contentType: str, startPosition: z.number(), endPosition: z.number() }) });
export const ViewW = z.object({ output: str });
export const ChecksumW = z.object({ output: z.object({ algorithm: str, checksum: str }) });
const int = z.number();
export const StatW = z.object({ output: z.object({ mode: int, ino: int, dev: int, nlink: int, uid: int, gid: int, size: int, atime: int, ctime: int, mtime: int }) });

const HealthW = z.object({
  serviceType: str,
  lastChecked: optStr,
  latency: optNum,
  healthy: z.boolean().nullish(),
  message: optStr,
  path: optStr,
});
export const SystemW = z.object({
  name: str,
  servicesHealth: z.array(HealthW).nullish(),
  lastHealthCheck: optStr,
  fileSystems: z.array(z.object({ path: str, dataType: str, defaultWorkDir: z.boolean().nullish() })).nullish(),
  scheduler: z.object({ type: optStr, version: optStr }).nullish(),
  dataOperation: z
    .object({
      max_ops_file_size: optNum,
      data_transfer: z.object({ serviceType: optStr }).nullish(),
    })
    .nullish(),
});
export type SystemWire = z.infer<typeof SystemW>;
export const SystemsW = z.object({ systems: z.array(SystemW) });

export const PartitionW = z.object({
  name: str,
  cpus: optNum,
  totalNodes: optNum,
  partition: strOrList.nullish(),
  // Not in the reference model; read when a server adds them.
  default: z.boolean().nullish(),
  isDefault: z.boolean().nullish(),
  maxTime: z.union([z.number(), z.string()]).nullish(),
  maxTimeSeconds: z.union([z.number(), z.string()]).nullish(),
  timeLimit: z.union([z.number(), z.string()]).nullish(),
});
export type PartitionWire = z.infer<typeof PartitionW>;
export const PartitionsW = z.object({ partitions: z.array(PartitionW).nullish() });

export const NodeW = z.object({
  name: str,
  cpus: z.number().nullish(),
  state: strOrList.nullish(),
  partitions: z.array(str).nullish(),
  allocCpus: optNum,
  idleCpus: optNum,
  cpuLoad: optNum,
  freeMemory: optNum,
  features: strOrList.nullish(),
});
export const NodesW = z.object({ nodes: z.array(NodeW).nullish() });

export const ReservationW = z.object({ name: str, nodeList: z.string().nullish(), startTime: z.number(), endTime: z.number(), features: optStr, state: optStr });
export const ReservationsW = z.object({ reservations: z.array(ReservationW).nullish() });

const IdName = z.object({ id: id, name: str });
export const UserInfoW = z.object({
  user: IdName,
  group: IdName,
  groups: z.array(IdName).nullish(),
  accounts: z.array(z.object({ name: str, default: z.boolean().nullish() })).nullish(),
});

const StatusW = z.object({ state: strOrList, stateReason: optStr, exitCode: optNum, interruptSignal: optNum });
const TimeW = z.object({ elapsed: optNum, start: optNum, end: optNum, suspended: optNum, limit: optNum });
export const JobW = z.object({
  jobId: id,
  name: z.string().nullish(),
  status: StatusW,
  time: TimeW.nullish(),
  account: optStr,
  allocationNodes: optNum,
  cluster: optStr,
  group: optStr,
  nodes: optStr,
  partition: optStr,
  user: optStr,
  workingDirectory: optStr,
  priority: optNum,
});
export type JobWire = z.infer<typeof JobW>;
export const JobsW = z.object({ jobs: z.array(JobW).nullish() });
export const MetadataW = z.object({
  jobs: z.array(z.object({ jobId: id, script: optStr, standardInput: optStr, standardOutput: optStr, standardError: optStr })),
});
export const SubmitW = z.object({ jobId: id });

export const TransferJobW = z.object({
  transferJob: z.object({
    jobId: id,
    system: str,
    workingDirectory: optStr,
    logs: z.object({ outputLog: optStr, errorLog: optStr }).nullish(),
  }),
});
