/**
 * v1 `xfer-external` (§2.6.2, §2.7.5) against the gateway's own staging store (`OBJECT_STORAGE` =
 * `s3v4`). Upload: 100 -> 110 -> 111 (presigned POST form in `data.msg`), then, once the client has
 * POSTed the file, 112 -> 113 -> 114 with the object moved to the target as the user (115 on
 * failure). Download: 100 -> 116 -> 117 with a presigned GET URL in `data.url` (118 on failure).
 * Invalidate deletes a task's staged objects and marks it 302; an upload still waiting for its
 * object is dropped and its POST form refused from then on.
 */
import type { FastifyInstance } from 'fastify';
import { posix } from 'node:path';
import { runAs } from '../exec';
import type { StoredObject } from '../staging/store';
import type { UnixUser } from '../users';
import { Fields, hasInvalidChar, machine, STORAGE_MAX_FILE_MB, TEMPURL_EXP_SECONDS, v1User, type V1Deps } from './context';
import { commandError, V1Error } from './errors';
import { readAsUser, writeAsUser } from './user-stream';
import { upstream } from '../compat';

const MAX_BYTES = STORAGE_MAX_FILE_MB * 1024 * 1024;

/** Finds where an upload lands: `dir/<name>` for a directory, else the path itself in a writable parent. */
const TARGET_PROGRAM = [
  't=$1; if [ -d "$t" ]; then d=$t; else d=$(dirname -- "$t"); fi',
  'if [ ! -e "$d" ]; then echo "$d: No such file or directory" >&2; exit 2; fi',
  'if [ ! -d "$d" ]; then echo "$d: Not a directory" >&2; exit 2; fi',
  'if [ ! -w "$d" ]; then echo "$d: Permission denied" >&2; exit 2; fi',
  'if [ -d "$t" ]; then echo dir; else echo file; fi',
].join('\n');

interface PendingUpload {
  taskId: string;
  user: UnixUser;
  record: Record<string, unknown>;
  target: string;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export async function storageExternalRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  const { tasks, store, signer, settings } = deps;
  /** `bucket/key` -> upload waiting for its object. */
  const pending = new Map<string, PendingUpload>();

  const moveToTarget = async (up: PendingUpload, obj: StoredObject): Promise<void> => {
    const system = { system_name: up.record.system_name, system_addr: up.record.system_addr };
    const moving = { source: up.record.source, target: up.target, ...system };
    tasks.update(up.taskId, '112', { ...up.record, status: '112' });
    tasks.update(up.taskId, '113', moving);
    try {
      await writeAsUser(up.user, up.target, store.read(obj.bucket, obj.key), obj.size);
      await store.deletePrefix(obj.bucket, up.taskId);
      tasks.update(up.taskId, '114', moving);
    } catch (e) {
      tasks.update(up.taskId, '115', { ...up.record, status: '115', msg: e instanceof Error ? e.message : String(e) });
    }
  };
  const unsubscribe = store.onPut((obj) => {
    const up = pending.get(`${obj.bucket}/${obj.key}`);
    if (!up) return;
    pending.delete(`${obj.bucket}/${obj.key}`);
    void moveToTarget(up, obj);
  });
  app.addHook('onClose', async () => { unsubscribe(); });

  app.post('/upload', async (req, reply) => {
    const f = await Fields.form(req, 'Failed to upload file');
    const system = machine(req, deps, 'compute', 'Failed to upload file');
    const user = v1User(req);
    const name = posix.basename(f.required('sourcePath'));
    const targetPath = f.required('targetPath');
    if (!name || hasInvalidChar(name)) throw f.invalid("'sourcePath' has invalid char");
    const check = await runAs(user, ['bash', '-c', TARGET_PROGRAM, 'target', targetPath], { timeoutSeconds: settings.commandTimeoutSeconds, maxOutputBytes: 4096 });
    if (check.exitCode !== 0) {
      const headers = commandError('upload', check.exitCode ?? 1, check.stderr.toString('utf8')).headers;
      throw new V1Error(400, { description: 'Failed to upload file', error: "'targetPath' directory not allowed" }, headers);
    }
    const target = check.stdout.toString('utf8').trim() === 'dir' ? posix.join(targetPath, name) : targetPath;
    const task = tasks.create(user.name, 'storage', system.name);
    const key = `${task.task_id}/${name}`;
    const record: Record<string, unknown> = {
      user: user.name, system_name: system.name, system_addr: system.name, target, source: name,
      status: '110', hash_id: task.task_id, trace_id: '', msg: 'Waiting for Presigned URL to upload file to staging area (s3v4)',
    };
    const url = `${settings.origin}/s3/${user.name}`;
    const data = signer.presignPost(user.name, key, TEMPURL_EXP_SECONDS, MAX_BYTES);
    const sourcePath = f.required('sourcePath');
    const command = `curl -f --show-error -s -i -X POST ${url} ${Object.entries(data).map(([k, v]) => `-F ${quote(`${k}=${v}`)}`).join(' ')} -F ${quote(`file=@${sourcePath}`)}`;
    pending.set(`${user.name}/${key}`, { taskId: task.task_id, user, record, target });
    // Like the real storage worker: 100 on creation, then 110 while "asking" the object store for
    // the form, then 111 once it is there.
    setImmediate(() => {
      tasks.update(task.task_id, '110', record);
      setImmediate(() => tasks.update(task.task_id, '111', {
        ...record, status: '111',
        msg: { command, parameters: { method: 'POST', url, data, files: sourcePath, json: {}, params: {}, headers: {} } },
      }));
    });
    return reply.code(201).send({ success: 'Task created', task_url: `/tasks/${task.task_id}`, task_id: task.task_id });
  });

  app.post('/download', async (req, reply) => {
    const f = await Fields.form(req, 'sourcePath error');
    const system = machine(req, deps, 'compute', 'sourcePath error');
    const user = v1User(req);
    const source = f.required('sourcePath');
    const check = await runAs(user, ['head', '-c', '1', '--', source], { timeoutSeconds: settings.commandTimeoutSeconds, maxOutputBytes: 4096 });
    if (check.exitCode !== 0) throw commandError('download', check.exitCode ?? 1, check.stderr.toString('utf8'), false, 'sourcePath error');
    const task = tasks.create(user.name, 'storage', system.name);
    const name = posix.basename(source);
    const base = { source, system_name: system.name };
    const fail = (details: string): void => tasks.update(task.task_id, '118', { error: `Upload to Staging area has failed. Object: ${name}. ${details}`, ...base });
    setImmediate(() => {
      tasks.update(task.task_id, '116', base);
      void (async () => {
        const size = await runAs(user, ['stat', '-L', '-c', '%s', '--', source], { timeoutSeconds: settings.commandTimeoutSeconds, maxOutputBytes: 4096 });
        if (size.exitCode !== 0) return fail(size.stderr.toString('utf8').trim());
        if (Number(size.stdout.toString('utf8')) > MAX_BYTES) return fail(`File is larger than STORAGE_MAX_FILE_SIZE (${STORAGE_MAX_FILE_MB} MB)`);
        const reader = readAsUser(user, source);
        const key = `${task.task_id}/${name}`;
        try {
          await store.put(user.name, key, reader.stdout, MAX_BYTES);
        } catch (e) {
          reader.kill();
          return fail(e instanceof Error ? e.message : String(e));
        }
        const { code, stderr } = await reader.done;
        if (code !== 0) {
          await store.deletePrefix(user.name, task.task_id);
          return fail(stderr);
        }
        const url = signer.presignUrl('GET', settings.origin, user.name, key, TEMPURL_EXP_SECONDS);
        tasks.update(task.task_id, '117', { url, ...base });
      })();
    });
    return reply.code(201).send({ success: 'Task created', task_url: `/tasks/${task.task_id}`, task_id: task.task_id });
  });

  app.post('/invalidate', async (req, reply) => {
    const raw = req.headers['x-task-id'];
    const id = Array.isArray(raw) ? raw[0] : raw;
    if (!id) throw new V1Error(400, { error: 'Header X-Task-Id missing' });
    if (!/^[A-Za-z0-9]+$/.test(id)) throw new V1Error(400, { error: 'Header X-Task-Id is not alphanumeric' });
    const user = v1User(req).name;
    const task = tasks.get(id);
    if (!task || task.user !== user || task.service !== 'storage') throw new V1Error(400, { error: 'Invalid X-Task-Id' });
    // An upload not moved yet (cancelled by its client): nothing of it may reach the target any more.
    const upload = [...pending.entries()].find(([, up]) => up.taskId === id);
    if (upload) {
      pending.delete(upload[0]);
      signer.revoke(user, id);
    }
    try {
      // Upstream deletes a key with the prefix doubled: the object stays readable.
      if (!upstream(req)) await store.deletePrefix(user, id);
    } catch {
      throw new V1Error(400, { error: 'Could not invalidate URL' });
    }
    // "the staged object is deleted and the task is marked for deletion" (302 Task not longer valid).
    tasks.update(id, '302', task.data);
    return reply.code(201).send({ success: 'URL invalidated successfully' });
  });
}
