import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCpuTime, parseEfficiency, parseSize, rightSize, withRequest } from '../../src/core/facts/efficiency';
import { answerScript } from '../../src/core/sidecar/answer';

// sacct -P -n --format=JobID,JobIDRaw,State,ElapsedRaw,TimelimitRaw,TotalCPU,AllocCPUS,ReqMem,MaxRSS,AllocTRES (Slurm 22.05)
const REPORT = [
  '812|812|COMPLETED|720|240|35:02.500|4|32G||billing=4,cpu=4,mem=32G,node=1',
  '812.batch|812.batch|COMPLETED|720||35:02.500|4||2202009K|cpu=4,mem=32G,node=1',
  '812.extern|812.extern|COMPLETED|720||00:00:00|4||1024K|billing=4,cpu=4,mem=32G,node=1',
  '813_2|815|FAILED|30|10|00:29.000|1|4000M||billing=1,cpu=1,mem=4000M,node=1',
  '813_2.batch|815.batch|FAILED|30||00:29.000|1||512000K|cpu=1,mem=4000M,node=1',
  '814|814|CANCELLED by 1001|0|60|00:00:00|2|2000Mc||',
  'garbage line without fields',
  '|||||||||',
  "$(rm -rf ~)|1|COMPLETED|1|1|00:01.000|1|1M||",
].join('\n');

void describe('job efficiency (sacct, one side-car run)', () => {
  void it('reads sizes and CPU times as sacct writes them', () => {
    assert.equal(parseSize('2202009K'), 2202009 * 1024);
    assert.equal(parseSize('4000Mc'), 4000 * 2 ** 20);
    assert.equal(parseSize('1.5G'), 1.5 * 2 ** 30);
    assert.equal(parseSize(''), undefined);
    assert.equal(parseCpuTime('35:02.500'), 35 * 60 + 2.5);
    assert.equal(parseCpuTime('1-02:03:04'), 86400 + 2 * 3600 + 3 * 60 + 4);
    assert.equal(parseCpuTime('nonsense'), undefined);
  });

  void it('folds the steps into their jobs: CPU, memory and time against what was asked', () => {
    const jobs = parseEfficiency(REPORT);
    assert.deepEqual([...jobs.keys()], ['812', '813_2', '814'], 'lines that do not fit are left out');
    const j = jobs.get('812')!;
    assert.equal(j.cpus, 4);
    assert.equal(j.timeLimitSeconds, 240 * 60);
    assert.equal(j.memoryBytes, 32 * 2 ** 30);
    assert.equal(j.maxRssBytes, 2202009 * 1024);
    assert.ok(Math.abs(j.cpuEfficiency! - 2102.5 / (720 * 4)) < 1e-9);
    assert.ok(Math.abs(j.memoryEfficiency! - (2202009 * 1024) / (32 * 2 ** 30)) < 1e-9);
    const task = jobs.get('813_2')!;
    assert.equal(task.maxRssBytes, 512000 * 1024, 'an array task\'s steps are found by its raw id');
    assert.equal(jobs.get('814')!.state, 'CANCELLED');
    assert.equal(jobs.get('814')!.cpuEfficiency, undefined, 'a job that did not run has no efficiency');
    assert.equal(j.complete, true);
    // slurmdbd's placeholder row of a job that has just ended: no limit, no request yet.
    assert.equal(parseEfficiency('900|900|COMPLETED|3||00:00.000|1|||billing=1,cpu=1,node=1').get('900')?.complete, false);
  });

  void it('right-sizes the next run: what was used plus the margin, never below it', () => {
    const j = parseEfficiency(REPORT).get('812')!;
    assert.deepEqual(rightSize(j), { mem: '3G', time: '00:15:00' });
    assert.deepEqual(rightSize(j, 0), { mem: '3G', time: '00:15:00' });
    const small = { ...j, maxRssBytes: 100 * 2 ** 20, elapsedSeconds: 4000 };
    assert.deepEqual(rightSize(small, 0.5), { mem: '192M', time: '01:45:00' });
    for (const margin of [0, 0.1, 1]) {
      const s = rightSize(j, margin);
      assert.ok(Number(s.mem!.replace('G', '')) * 2 ** 30 >= j.maxRssBytes!);
    }
  });

  void it('a side-car script keeps its files to itself and ends with its status', () => {
    const script = answerScript('f7t-facts', ['sacct -P -n'], { output: "/h/a b/.f7t-x/out", error: '/h/a b/.f7t-x/err', scratch: '/h/a b/.f7t-x' });
    assert.match(script, /^#!\/bin\/bash\n#SBATCH --job-name=f7t-facts\n/);
    assert.match(script, /out='\/h\/a b\/\.f7t-x\/out'/);
    assert.match(script, /trap 'rm -f -- "\$part" "\$out" "\$err"; exit 143' TERM INT/);
    assert.match(script, /exec >"\$part" 2>"\$err"/);
    // The answer appears whole: written beside its file, then moved into place.
    assert.match(script, /answer; s=\$\?\nprintf '\\0F7T-END %s\\n' "\$s"\nmv -f -- "\$part" "\$out"\n$/);
  });
});

void describe('right-sizing a script (Apply to Script)', () => {
  void it('changes the request lines it has, adds the ones it lacks after its last #SBATCH line', () => {
    const script = '#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH -t 4:00:00\n#SBATCH --mem 32G\n\nsrun app\n';
    assert.equal(withRequest(script, { mem: '3G', time: '00:15:00' }), '#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --time=00:15:00\n#SBATCH --mem=3G\n\nsrun app\n');
    assert.equal(withRequest('#!/bin/bash\n#SBATCH --job-name=x\nsrun app\n', { mem: '3G', time: '00:15:00' }), '#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --mem=3G\n#SBATCH --time=00:15:00\nsrun app\n');
    assert.equal(withRequest('#!/bin/bash\nsrun app\n', { time: '00:05:00' }), '#!/bin/bash\n#SBATCH --time=00:05:00\nsrun app\n');
    assert.equal(withRequest('#!/bin/bash\n#SBATCH --mem-per-cpu=1G\n', { mem: '2G' }), '#!/bin/bash\n#SBATCH --mem-per-cpu=1G\n#SBATCH --mem=2G\n', '--mem-per-cpu is another option');
  });
});
