/** sbatch's refusals get a sentence that says what to change, and keep the scheduler's text (issue 17). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explainSbatchRefusal } from '../../src/common/sbatchRefusals';

void describe('explainSbatchRefusal', () => {
  void it('puts a sentence before the common refusals and keeps the text', () => {
    const raw = 'sbatch: error: Batch job submission failed: Access denied to requested reservation';
    const said = explainSbatchRefusal(raw);
    assert.match(said, /^You may not use this reservation/);
    assert.ok(said.endsWith(`(The scheduler said: ${raw})`));
    assert.match(explainSbatchRefusal('sbatch: error: invalid partition specified: nope'), /^The partition does not exist/);
    assert.match(explainSbatchRefusal('Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)'), /^The time limit is above/);
    assert.match(explainSbatchRefusal('Job violates accounting/QOS policy (job submit limit, user\'s size and/or time limits)'), /^A limit of your account or QOS/);
  });
  void it('leaves an unknown text as it is', () => {
    assert.equal(explainSbatchRefusal('something else entirely'), 'something else entirely');
  });
});
