/**
 * API v1 over real HTTP: token answers of the microservices, the status service, the tasks service
 * (owner checks, unknown ids, list filter), and the machine header rules shared by every service.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatewayOnly } from '../support/target';
import { admin, gw, requestToken, sleep, t, token } from './support';
import { taskOf, v1, waitTask } from './v1-support';

async function otherAuth(): Promise<string> {
  const g = gw();
  const other = (g.clients ?? []).find((c) => c.user !== g.user);
  if (!other) throw new Error('no second client');
  return `Bearer ${await token(other.clientId, other.clientSecret)}`;
}

void describe('v1 auth', () => {
  void it('refuses a missing header, a bad signature and garbage with the microservice bodies (401)', async () => {
    const none = await v1('/utilities/whoami', { auth: null });
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, { description: 'No Auth Header given' });
    const good = await token();
    const [h, p, s] = good.split('.');
    const tampered = `${h}.${p}.${s.slice(0, -4)}${s.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const bad = await v1('/utilities/whoami', { auth: `Bearer ${tampered}` });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.body, { description: 'JWT token has invalid signature' });
    const garbage = await v1('/status/systems', { auth: 'Bearer not-a-jwt', machine: null });
    assert.equal(garbage.status, 401);
    assert.equal(typeof garbage.body.description, 'string');
  });

  void it('an expired token is 401 JWT token has expired', { skip: gatewayOnly() }, async () => {
    const put = await admin('PUT', '/settings', { tokenLifetimeSeconds: 1 });
    assert.equal(put.status, 200, put.text);
    let short: string;
    try {
      short = (await requestToken()).body.access_token as string;
    } finally {
      await admin('PUT', '/settings', { tokenLifetimeSeconds: 300 });
    }
    await sleep(2100);
    const r = await v1('/utilities/whoami', { auth: `Bearer ${short}` });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, { description: 'JWT token has expired' });
  });

  void it('fault switches apply to /v1 too', { skip: gatewayOnly() }, async () => {
    const put = await admin('PUT', '/faults', { rateLimit: { next: 1, match: '^GET /v1/status/', retryAfterSeconds: 2 } });
    assert.equal(put.status, 200, put.text);
    try {
      const limited = await v1('/status/services', { machine: null });
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '2');
      assert.equal((await v1('/status/services', { machine: null })).status, 200);
    } finally {
      await admin('DELETE', '/faults');
    }
  });

  void it('accepts the gateway tokens on every service', async () => {
    assert.equal((await v1('/utilities/whoami')).status, 200);
    assert.equal((await v1('/tasks', { machine: null })).status, 200);
  });
});

void describe('v1 status', () => {
  void it('lists services, one service flat, 404 for an unknown one', async () => {
    const all = await v1('/status/services', { machine: null });
    assert.equal(all.status, 200);
    assert.equal(all.body.description, 'List of services with status and description.');
    const names = (all.body.out as { service: string }[]).map((s) => s.service);
    for (const n of ['utilities', 'compute', 'storage', 'tasks']) assert.ok(names.includes(n), n);
    assert.equal(all.headers.get('f7t-appversion'), null, 'v1 answers carry no v2 F7T-* headers');
    const one = await v1('/status/services/compute', { machine: null });
    assert.deepEqual(Object.keys(one.body).sort(), ['description', 'service', 'status', 'status_code']);
    assert.equal(one.body.status, 'available');
    const none = await v1('/status/services/nope', { machine: null });
    assert.equal(none.status, 404);
  });

  void it('lists systems and one system; an unknown one is 404 System does not exists.', async () => {
    const all = await v1('/status/systems', { machine: null });
    assert.equal(all.status, 200);
    assert.ok((all.body.out as { system: string }[]).some((s) => s.system === t.system));
    const one = await v1(`/status/systems/${t.system}`, { machine: null });
    assert.equal(one.body.description, 'System information');
    assert.equal(one.body.out.system, t.system);
    assert.ok(['available', 'not available'].includes(one.body.out.status as string));
    const none = await v1('/status/systems/no-such-system', { machine: null });
    assert.equal(none.status, 404);
    assert.deepEqual(none.body, { description: 'System does not exists.' });
  });

  void it('parameters carry the version, utilities limits and storage settings', async () => {
    const r = await v1('/status/parameters', { machine: null });
    assert.equal(r.status, 200);
    assert.equal(r.body.description, "Firecrest's parameters");
    const value = (section: string, name: string): unknown => (r.body.out[section] as { name: string; value: unknown }[]).find((e) => e.name === name)?.value;
    assert.match(String(value('general', 'FIRECREST_VERSION')), /^v1\.\d+\.\d+$/);
    assert.match(String(value('utilities', 'UTILITIES_MAX_FILE_SIZE')), /^\d+(\.\d+)?$/);
    assert.match(String(value('utilities', 'UTILITIES_TIMEOUT')), /^\d+$/);
    assert.match(String(value('storage', 'STORAGE_TEMPURL_EXP_TIME')), /^\d+$/);
    assert.match(String(value('storage', 'STORAGE_MAX_FILE_SIZE')), /^\d+$/);
    for (const e of r.body.out.utilities as object[]) assert.deepEqual(Object.keys(e).sort(), ['description', 'name', 'unit', 'value']);
  });

  void it('filesystems per system, with int status_code and string status', async () => {
    const r = await v1('/status/filesystems', { machine: null });
    assert.equal(r.status, 200);
    const list = r.body.out[t.system] as { status_code: number; status: string; path: string }[];
    assert.ok(list.length > 0);
    assert.equal(typeof list[0].status_code, 'number');
    assert.equal(typeof list[0].status, 'string');
    const one = await v1(`/status/filesystems/${t.system}`, { machine: null });
    assert.equal(one.body.description, `Filesystem information for system ${t.system}`);
  });
});

void describe('v1 gateway paths', () => {
  void it('the gateway refuses / and /tasks/tasklist (400 Invalid) and answers 404 for unrouted paths', { skip: gatewayOnly() }, async () => {
    const root = await v1('', { machine: null });
    assert.deepEqual([root.status, root.text], [400, 'Invalid']);
    const list = await v1('/tasks/tasklist', { machine: null });
    assert.deepEqual([list.status, list.text], [400, 'Invalid']);
    assert.equal((await v1('/nowhere', { machine: null })).status, 404);
    assert.equal((await v1('/compute/jobs', { method: 'PUT' })).status, 404);
  });
});

void describe('v1 machine header', () => {
  void it('missing -> 400 No machine name given, unknown -> both header spellings by service', async () => {
    const missing = await v1('/utilities/ls', { query: { targetPath: '/' }, machine: null });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.description, 'No machine name given');
    const util = await v1('/utilities/ls', { query: { targetPath: '/' }, machine: 'no-such-machine' });
    assert.equal(util.status, 400);
    assert.ok(util.headers.has('x-machine-does-not-exist'));
    const comp = await v1('/compute/jobs', { machine: 'no-such-machine' });
    assert.equal(comp.status, 400);
    assert.ok(comp.headers.has('x-machine-does-not-exists'));
    assert.equal(comp.body.error, 'Machine does not exists');
    const stor = await v1('/storage/xfer-internal/rm', { method: 'POST', form: { targetPath: '/tmp/x' }, machine: 'no-such-machine' });
    assert.equal(stor.status, 400);
    assert.ok(stor.headers.has('x-machine-does-not-exists'));
    const missingCompute = await v1('/compute/jobs', { machine: null });
    assert.equal(missingCompute.status, 400);
    assert.equal(missingCompute.body.description, 'No machine name given');
  });
});

void describe('v1 tasks', () => {
  void it('a task is listed for its owner, with created_at/updated_at and no task_url in the list', async () => {
    const r = await v1('/compute/partitions');
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ['success', 'task_id', 'task_url']);
    assert.equal(r.body.success, 'Task created');
    assert.match(r.body.task_id as string, /^[0-9a-f]{32}$/);
    assert.equal(r.body.task_url, `/tasks/${r.body.task_id as string}`);
    const task = await waitTask(r.body.task_id as string);
    assert.equal(task.status, '200');
    assert.equal(task.task_url, undefined);
    assert.match(task.created_at as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    assert.equal(task.last_modify, task.updated_at);
    const one = await v1(`/tasks/${r.body.task_id as string}`, { machine: null });
    assert.equal(one.status, 200);
    assert.equal(one.body.task.task_url, `/tasks/${r.body.task_id as string}`);
    assert.equal(one.body.task.hash_id, r.body.task_id);
  });

  void it('unknown task -> 404 Task <id> does not exist; invalid chars in the filter -> 400', async () => {
    const id = '0123456789abcdef0123456789abcdef';
    const r = await v1(`/tasks/${id}`, { machine: null });
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { error: `Task ${id} does not exist` });
    const list = await v1('/tasks', { query: { tasks: id }, machine: null });
    assert.deepEqual(list.body, { tasks: {} });
    const bad = await v1('/tasks', { query: { tasks: 'a;b' }, machine: null });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "'tasks' has invalid char");
  });

  void it("another user's task is 403 and absent from their list", { skip: gatewayOnly() }, async () => {
    const task = await taskOf('/compute/partitions');
    const auth = await otherAuth();
    const r = await v1(`/tasks/${task.task_id as string}`, { machine: null, auth });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { description: 'Operation not permitted. Invalid task owner.' });
    const list = await v1('/tasks', { machine: null, auth });
    assert.equal(list.body.tasks[task.task_id as string], undefined);
  });
});
