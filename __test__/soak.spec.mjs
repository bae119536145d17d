// Short soak: the long run's harness (benchmark/soak.mjs, 1,000,000 calls, not in the test run)
// with a few thousand `edit` calls on 2 worker threads, sync and concurrent async calls mixed.
// Every result must equal the sequential one and no call may throw; the RSS bound is generous
// (a short run cannot show a plateau; the long run checks that).

import assert from 'node:assert/strict'
import { test } from 'node:test'

import { runSoak } from '../benchmark/soak.mjs'

test('2,000 edit calls on 2 worker threads (sync + concurrent editAsync) equal the sequential results', async () => {
  const s = await runSoak({ calls: 2000, workers: 2, sampleMs: 100, maxGrowthMb: 256 })
  assert.equal(s.calls, 2000)
  assert.deepEqual(s.problems, [])
  assert.equal(s.errors, 0)
  assert.equal(s.mismatches, 0)
  assert.ok(s.sync.calls > 0 && s.async.calls > 0, 'both the sync and the async API ran')
  assert.equal(s.sync.calls + s.async.calls, 2000)
  assert.ok(Number.isFinite(s.rssMb.start) && Number.isFinite(s.rssMb.end))
  assert.equal(s.leaking, false, `RSS grew by ${s.secondHalfGrowthMb.toFixed(1)} MB in the second half`)
  assert.equal(s.ok, true)
})
