/** `GET /tasks` and `GET /tasks/{id}` (§2.7.1): only the caller's tasks; 403 for another user's. */
import type { FastifyInstance } from 'fastify';
import { Fields, hasInvalidChar, v1User, type V1Deps } from './context';
import { V1Error } from './errors';
import type { Task } from './tasks';

export async function taskRoutes(app: FastifyInstance, deps: V1Deps): Promise<void> {
  app.get('/', async (req) => {
    const user = v1User(req);
    const wanted = Fields.query(req, 'Failed to retrieve tasks information').raw('tasks');
    let list: Task[] = deps.tasks.ofUser(user.name);
    if (wanted !== undefined && wanted !== '') {
      if (hasInvalidChar(wanted)) throw new V1Error(400, { description: 'Failed to retrieve tasks information', error: "'tasks' has invalid char" });
      const ids = new Set(wanted.split(',').map((s) => s.trim()));
      list = list.filter((t) => ids.has(t.task_id));
    }
    const tasks: Record<string, Task> = {};
    for (const t of list) tasks[t.task_id] = t;
    return { tasks };
  });

  app.get<{ Params: { id: string } }>('/:id', async (req) => {
    const user = v1User(req);
    const task = deps.tasks.get(req.params.id);
    if (!task) throw new V1Error(404, { error: `Task ${req.params.id} does not exist` });
    if (task.user !== user.name) throw new V1Error(403, { description: 'Operation not permitted. Invalid task owner.' });
    return { task: { ...task, task_url: `/tasks/${task.task_id}` } };
  });
}
