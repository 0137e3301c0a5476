import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ComputeNode, Job } from '../../src/core/model';
import { loadDescription, loadTooltip, partitionLoads } from '../../src/views/systems/partitionLoad';

const node = (name: string, states: string[], partitions: string[]): ComputeNode => ({ name, states, cpus: 4, partitions });
const job = (id: string, stateClass: Job['stateClass'], partition: string, submitTime?: number): Job =>
  ({ id, name: id, state: stateClass.toUpperCase(), stateClass, isFinal: false, partition, submitTime });

void describe('partition load (Systems view)', () => {
  void it('counts idle and total nodes, running and pending jobs per partition, and the longest wait', () => {
    const loads = partitionLoads(
      [node('n1', ['IDLE'], ['debug', 'long']), node('n2', ['MIXED'], ['debug']), node('n3', ['IDLE', 'DRAIN'], ['debug'])],
      [job('1', 'running', 'debug'), job('2', 'pending', 'debug', 1000), job('3', 'pending', 'debug,long', 1600), job('4', 'completed', 'debug')],
      4600,
    );
    assert.deepEqual(loads.get('debug'), { nodes: 3, idleNodes: 1, running: 1, pending: 2, longestWaitSeconds: 3600 });
    assert.deepEqual(loads.get('long'), { nodes: 1, idleNodes: 1, running: 0, pending: 1, longestWaitSeconds: 3000 });
    assert.equal(loadDescription(loads.get('debug')!), '1/3 idle · 1 running · 2 pending');
    assert.match(loadTooltip(loads.get('debug')!), /longest current wait: 60 min/);
  });

  void it('says only what it knows: no job listing (refused), no node listing', () => {
    const noJobs = partitionLoads([node('n1', ['IDLE'], ['debug'])], undefined).get('debug')!;
    assert.equal(loadDescription(noJobs), '1/1 idle');
    assert.match(loadTooltip(noJobs), /not available/);
    const noNodes = partitionLoads(undefined, [job('1', 'running', 'debug')]).get('debug')!;
    assert.equal(loadDescription(noNodes), '1 running · 0 pending');
  });
});
