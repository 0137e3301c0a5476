/**
 * v1 reservations (deprecated service) over real HTTP: list, create, update, delete through the
 * scheduler (scontrol as operator on Slurm, the built-in list otherwise), the validation rules and
 * their texts, the machine header, and the Deprecation/Sunset headers of the reference gateway.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { localTime, reservationSlot } from '../support/reservationSlot';
import { v1 } from './v1-support';

/** Local `YYYY-MM-DDTHH:MM:SS`, `hours` from now. */
const at = (hours: number): string => localTime(Date.now() + hours * 3600_000);

const name = `v1_rsv_${randomUUID().slice(0, 8)}`;
// Read once: a form built again a minute later would name another start (CI55 crossed 14:21 → 14:22).
// A random slot: runs side by side share one Slurm node (see reservationSlot).
const slot = reservationSlot();
const start = localTime(slot);
const end = localTime(slot + 3600_000);
const form = (extra: Record<string, string> = {}): Record<string, string> => ({
  reservation: name, account: 'proj', numberOfNodes: '1', starttime: start, endtime: end, ...extra,
});

void describe('v1 reservations', () => {
  void it('create (201), list, update (200), delete (204), with Deprecation/Sunset headers', async () => {
    const created = await v1('/reservations', { method: 'POST', form: form() });
    assert.equal(created.status, 201, created.text);
    assert.equal(typeof created.body.success, 'string');
    assert.ok(created.headers.has('deprecation'));
    assert.ok(created.headers.has('sunset'));
    const list = await v1('/reservations');
    assert.equal(list.status, 200);
    const mine = (list.body.success as Record<string, string>[]).find((r) => r.reservationname === name);
    assert.ok(mine, JSON.stringify(list.body));
    for (const k of ['starttime', 'endtime', 'duration', 'nodes', 'state']) assert.ok(k in mine, k);
    assert.equal(mine.starttime, form().starttime);
    const newEnd = localTime(slot + 2 * 3600_000);
    const updated = await v1(`/reservations/${name}`, { method: 'PUT', form: { numberOfNodes: '1', starttime: form().starttime, endtime: newEnd } });
    assert.equal(updated.status, 200, updated.text);
    const after = (await v1('/reservations')).body.success as Record<string, string>[];
    assert.equal(after.find((r) => r.reservationname === name)?.endtime, newEnd);
    const deleted = await v1(`/reservations/${name}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204, deleted.text);
    const gone = (await v1('/reservations')).body.success as Record<string, string>[];
    assert.equal(gone.find((r) => r.reservationname === name), undefined);
  });

  void it('validation: names, numberOfNodes, time format, order and past start are 400 Error creating reservation', async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [form({ reservation: 'Bad-Name' }), /reservation/],
      [form({ account: '9acc' }), /account/],
      [form({ numberOfNodes: '0' }), /numberOfNodes/],
      [form({ numberOfNodes: 'x' }), /numberOfNodes/],
      [form({ starttime: '2030-01-01 10:00:00' }), /starttime/],
      [form({ endtime: localTime(slot - 24 * 3600_000) }), /endtime/],
      [form({ starttime: at(-2), endtime: at(-1) }), /past/],
    ];
    for (const [f, re] of cases) {
      const r = await v1('/reservations', { method: 'POST', form: f });
      assert.equal(r.status, 400, JSON.stringify(f));
      assert.equal(r.body.error, 'Error creating reservation');
      assert.match(r.body.description as string, re);
    }
  });

  void it('the scheduler refusing (unknown reservation) is 400 with its text; machine header rules', async () => {
    const r = await v1('/reservations/no_such_reservation_x', { method: 'DELETE' });
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'Error deleting reservation');
    assert.ok((r.body.description as string).length > 0);
    const missing = await v1('/reservations', { machine: null });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.description, 'No machine name given');
    const unknown = await v1('/reservations', { machine: 'no-such-machine' });
    assert.equal(unknown.status, 400);
    assert.ok(unknown.headers.has('x-machine-does-not-exist'));
  });
});
