import { type FuzzResult, printable, printExchange } from './fuzzer.ts'
import { RULES } from './oracle.ts'

const COLUMNS = ['2xx', '400', '401', '403', '404', '409', '422', '429', '4xx', '5xx', '5xx!', 'bad', 'hang'] as const

const pad = (s: string | number, n: number) => String(s).padStart(n)

/** Answers by status, by route (a compact table), expected 5xx by rule, then every unexpected answer. */
export function report(result: FuzzResult, seed: number, shape: string): string {
  const out: string[] = []
  const unexpected = [...result.findings.values()].reduce((n, f) => n + f.count, 0)
  out.push(
    `\n${shape}: ${result.requests} fuzzed requests (+${result.setupRequests} setup) in ${(result.ms / 1000).toFixed(1)} s, ` +
      `seed ${seed}: ${unexpected} unexpected answers`,
  )
  const statuses = [...result.byStatus].sort(([a], [b]) => a - b)
  out.push(`\nanswers by status: ${statuses.map(([s, n]) => `${s}: ${n}`).join(', ')}`)

  out.push(
    '\nanswers by route (5xx = asked for by a scenario or the spec; 5xx! = unexpected; bad = not the envelope or a',
  )
  out.push('status that does not fit the code; hang = no answer; ms, max = mean and longest time to answer):')
  const name = (route: string) => route.replace(' /mobility-api/v2/', ' /')
  const width = Math.max(...[...result.byRoute.keys()].map((k) => name(k).length), 10)
  out.push(
    `${'route (public API under /mobility-api/v2)'.padEnd(width)} ${pad('n', 6)} ${pad('ms', 5)} ${pad('max', 6)} ${COLUMNS.map((c) => pad(c, 5)).join(' ')}`,
  )
  const rows = [...result.byRoute].sort(([a], [b]) => name(a).localeCompare(name(b)))
  for (const [route, counts] of rows) {
    const n = [...counts].filter(([k]) => k !== 'ms' && k !== 'max').reduce((a, [, b]) => a + b, 0)
    const ms = Math.round((counts.get('ms') ?? 0) / Math.max(1, n))
    out.push(
      `${name(route).padEnd(width)} ${pad(n, 6)} ${pad(ms, 5)} ${pad(Math.round(counts.get('max') ?? 0), 6)} ${COLUMNS.map((c) => pad(counts.get(c) ? String(counts.get(c)) : '.', 5)).join(' ')}`,
    )
  }
  if (result.expected5xx.size) {
    out.push('\n5xx answers a rule asked for:')
    for (const [id, n] of result.expected5xx)
      out.push(`  ${pad(n, 6)}  ${id}: ${RULES.find((r) => r.id === id)?.why ?? ''}`)
  }
  if (result.problems.length) {
    out.push(`\nsetup steps that failed (the fuzzer went on with what it had): ${result.problems.length}`)
    for (const p of result.problems.slice(0, 10)) out.push(`  ${printable(p.slice(0, 300))}`)
  }
  if (unexpected) {
    out.push(`\nUNEXPECTED ANSWERS: ${unexpected} in ${result.findings.size} kinds`)
    const groups = [...result.findings].sort(([, a], [, b]) => b.count - a.count)
    for (const [sig, { count, examples }] of groups) {
      out.push(`\n× ${count}  ${printable(sig)}`)
      for (const f of examples) out.push(printExchange(seed, f))
    }
  }
  return out.join('\n')
}
