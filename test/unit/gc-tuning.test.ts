import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'

const tuning = fileURLToPath(new URL('../../src/platform/gc-tuning.ts', import.meta.url))

/**
 * A child node that allocates, from array literals, objects that outlive scavenges, and prints what V8's pretenuring
 * weighs after each one (`--trace-pretenuring-statistics`: the allocation sites it visited and its decisions). Whether
 * a site ends up tenured depends on timing, so the test looks for the weighing itself, which every run does while
 * pretenuring is on and none once it is off.
 */
function pretenuringTrace(turnOff: boolean, extraFlags: string[] = []): string {
  const script = `
    ${turnOff ? `const { noAllocationSitePretenuring } = await import(${JSON.stringify(tuning)}); noAllocationSitePretenuring()` : ''}
    const kept = []
    function make(i) { return [[i], [i]] }
    for (let i = 0; i < 3_000_000; i++) {
      kept.push(make(i))
      if (kept.length > 200_000) kept.splice(0, 100_000)
    }
    console.log('done', kept.length > 0)
  `
  const child = spawnSync(
    process.execPath,
    ['--trace-pretenuring', '--trace-pretenuring-statistics', ...extraFlags, '--input-type=module', '-e', script],
    { encoding: 'utf8', timeout: 60_000 },
  )
  assert.equal(child.status, 0, child.stderr)
  assert.match(child.stdout, /done true/)
  return child.stdout
}

const weighed = (trace: string) => /pretenuring: /.test(trace)

describe('GC tuning: no allocation-site pretenuring in the service', () => {
  it('V8 weighs allocation sites for pretenuring after scavenges, and no longer once the service turned it off', () => {
    assert.ok(
      weighed(pretenuringTrace(false)),
      'the workload should make V8 weigh its sites (else this test proves nothing)',
    )
    assert.ok(!weighed(pretenuringTrace(true)), 'no site may be weighed for pretenuring once it is off')
  })

  it('leaves a pretenuring flag that node was started with as it is', () => {
    assert.ok(weighed(pretenuringTrace(true, ['--allocation-site-pretenuring'])))
  })
})
