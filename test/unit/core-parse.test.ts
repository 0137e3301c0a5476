import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedResponseError } from '../../src/core/errors';
import type { TransportResponse } from '../../src/core/http/transport';
import { parseBody } from '../../src/core/v2/parse';
import { JobsW, NodesW, PartitionsW, ReservationsW, TransferJobW, UserInfoW } from '../../src/core/v2/wire';

const res = (body: string, ctype = 'application/json'): TransportResponse => ({ requestId: 'r', status: 200, headers: { 'content-type': ctype }, body: new TextEncoder().encode(body) });

void describe('v2 response validation', () => {
  void it('accepts what servers differ on: int or string ids, null lists, state string or list', () => {
    assert.deepEqual(parseBody(JobsW, res('{"jobs": null}'), 'r').jobs, null);
    assert.equal(parseBody(JobsW, res('{"jobs": [{"jobId": 5, "name": "n", "status": {"state": ["RUNNING"]}}]}'), 'r').jobs?.[0].jobId, '5');
    assert.equal(parseBody(TransferJobW, res('{"transferJob": {"jobId": 7, "system": "s", "workingDirectory": "/h", "logs": {"outputLog": "/o", "errorLog": "/e"}}}'), 'r').transferJob.jobId, '7');
    assert.deepEqual(parseBody(PartitionsW, res('{"partitions": [{"name": "p", "cpus": null, "totalNodes": null, "partition": ["UP"]}]}'), 'r').partitions?.[0].partition, ['UP']);
    assert.equal(parseBody(NodesW, res('{"nodes": [{"name": "n1", "cpus": 4, "state": ["IDLE"], "features": "a,b", "slurmdVersion": "x"}]}'), 'r').nodes?.[0].name, 'n1');
    assert.equal(parseBody(ReservationsW, res('{"reservations": [{"name": "m", "nodeList": "nid1", "startTime": 1, "endTime": 2, "features": null}]}'), 'r').reservations?.[0].state, undefined);
    assert.equal(parseBody(UserInfoW, res('{"user": {"id": 1001, "name": "a"}, "group": {"id": "1", "name": "g"}, "groups": [], "accounts": null}'), 'r').user.id, '1001');
  });

  void it('rejects what the client relies on, naming the route and the field', () => {
    assert.throws(() => parseBody(JobsW, res('{"jobs": [{"name": "no id", "status": {"state": "RUNNING"}}]}'), 'GET /compute/{system}/jobs'), (e: unknown) => e instanceof MalformedResponseError && e.route === 'GET /compute/{system}/jobs' && /jobs\.0\.jobId/.test(e.message));
    assert.throws(() => parseBody(ReservationsW, res('{"reservations": [{"name": "m", "startTime": "soon", "endTime": 2}]}'), 'r'), MalformedResponseError);
  });

  void it('says when the answer is not JSON at all', () => {
    assert.throws(() => parseBody(JobsW, res('<html>Login</html>', 'text/html; charset=utf-8'), 'GET /x'), (e: unknown) => e instanceof MalformedResponseError && /not answer like FirecREST on GET \/x: expected JSON, got text\/html/.test(e.message));
  });
});
