/**
 * What one in-memory database costs (`openPglite(undefined)`, as the tests and `inMemory` runtimes open it): each run
 * is a fresh process that opens one, migrations included, runs a query and reports wall time, process CPU and peak RSS
 * (getrusage). Alternates a start from the install's template (.cache/pglite-template, made by `npm ci`) with a start
 * without one (PGlite's initdb, as before the template was used in memory) and prints the medians.
 *
 *   node bench/pglite-memory-open.ts [runs=3]
 */
import { execFileSync } from 'node:child_process'
import { resourceUsage } from 'node:process'

if (process.argv[2] === '--child') {
  const { openPglite } = await import('../src/store/pglite.ts')
  const template = process.argv[3] === 'template' ? undefined : '/nonexistent/pglite-template'
  const started = performance.now()
  const cpu = process.cpuUsage()
  const store = await openPglite(undefined, template)
  await store.exec('select 1')
  const used = process.cpuUsage(cpu)
  const figures = {
    wallMs: performance.now() - started,
    cpuMs: (used.user + used.system) / 1000,
    peakMiB: resourceUsage().maxRSS / 1024,
  }
  await store.close()
  process.stdout.write(JSON.stringify(figures))
} else {
  // Only here: the child's peak is the database's, not also bench/support.ts's imports (autocannon).
  const { median } = await import('./support.ts')
  const runs = Number(process.argv[2] ?? 3)
  const results: Record<string, { wallMs: number; cpuMs: number; peakMiB: number }[]> = { template: [], initdb: [] }
  for (let i = 0; i < runs; i++) {
    for (const kind of ['template', 'initdb'] as const) {
      const out = execFileSync(process.execPath, [import.meta.filename, '--child', kind], { encoding: 'utf8' })
      results[kind]?.push(JSON.parse(out))
      process.stderr.write(`${kind} ${out}\n`)
    }
  }
  for (const [kind, list] of Object.entries(results)) {
    const m = (key: 'wallMs' | 'cpuMs' | 'peakMiB') => median(list.map((r) => r[key])).toFixed(0)
    console.log(`${kind.padEnd(9)} wall ${m('wallMs')} ms  CPU ${m('cpuMs')} ms  peak RSS ${m('peakMiB')} MiB`)
  }
}
