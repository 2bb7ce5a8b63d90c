import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { OUTAGE_REASONS } from '../../src/platform/outage.ts'

const ROOT = join(import.meta.dirname, '..', '..')

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`
    if (entry.isDirectory()) return sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/**
 * Every `details.reason` the code can answer: the literals after `reason:` (also in `a ? 'X' : 'Y'` and `x ?? 'Z'`),
 * the reasons given to the refusal helpers (`refused('X')`, `expired('X')`, `permanentProviderError('X')`), the busy
 * reasons of the sandbox's locks, the key failures and the outages; the API document's error examples too, so they
 * show only reasons the service answers.
 */
function reasonsInCode(): Set<string> {
  const found = new Set<string>(Object.values(OUTAGE_REASONS))
  const literal = /'([A-Z][A-Z0-9_]{2,})'/g
  for (const file of sources('src')) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const line of text.split('\n')) {
      const at = line.search(/\breason: |busyReason[:=] |\b(refused|expired|permanentProviderError)\(/)
      if (at < 0) continue
      // Catalog keys of detail texts on the same line are no reasons.
      for (const m of line
        .slice(at)
        .replace(/detail\('\w+'/g, '')
        .matchAll(literal))
        found.add(m[1])
    }
    const keyFailure = /type KeyFailure = ([^\n]+)/.exec(text)
    if (keyFailure) for (const m of keyFailure[1].matchAll(literal)) found.add(m[1])
  }
  return found
}

describe('the README documents every details.reason (issue 21)', () => {
  it('each reason the code answers is in the README error table', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const start = readme.indexOf('**Errors that say how to fix them.**')
    const table = readme.slice(start, readme.indexOf('Each reason has its envelope message', start))
    const reasons = reasonsInCode()
    assert.ok(reasons.size > 60, `found ${reasons.size} reasons`)
    const missing = [...reasons].filter((reason) => !table.includes(`\`${reason}\``)).sort()
    assert.deepEqual(missing, [])
  })
})
