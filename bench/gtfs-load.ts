/**
 * The load half of the `gtfs` benchmark: loads a GTFS folder through the connector (`createGtfsConnector` +
 * `start()`) and measures time and memory. bench/gtfs.ts calls `measureLoad` in-process (the connector then answers
 * its queries) and also runs this file as a child process, `node bench/gtfs-load.ts <dir>`, so that one set of
 * memory figures holds nothing but the load; the child prints one line `RESULT <json>` (LoadFigures) and exits.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createGtfsConnector, type GtfsConnector, type GtfsStats } from '../src/connectors/gtfs/index.ts'
import { memoryKv } from '../src/platform/kv/memory.ts'
import type { Kv } from '../src/platform/kv/types.ts'

export const SAMPLE_MS = 50

export interface Memory {
  rss: number
  heapUsed: number
  arrayBuffers: number
}

export interface LoadFigures {
  seconds: number
  stats: GtfsStats
  problems: string[]
  /** After a full GC, before the load. */
  before: Memory
  /**
   * Highest values of process.memoryUsage() sampled every SAMPLE_MS during the load (and once at its end). The
   * timetable is built synchronously after the files are read, so samples miss whatever peaks inside that step.
   */
  sampledPeak: Memory & { samples: number }
  /** Peak RSS over the load from /proc/self/status VmHWM, reset just before it (Linux); undefined elsewhere. */
  vmHwm?: number
  /** Whether VmHWM could be reset before the load; if not, it is the peak of the whole process. */
  vmHwmReset: boolean
  /** After a full GC with the timetable loaded. */
  after: Memory
}

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const usage = (): Memory => {
  const { rss, heapUsed, arrayBuffers } = process.memoryUsage()
  return { rss, heapUsed, arrayBuffers }
}

export function memoryAfterGc(): Memory {
  gc()
  gc()
  return usage()
}

function readHwm(): number | undefined {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}

/** Writing 5 to clear_refs resets VmHWM to the current RSS (Linux ≥ 4.0). */
function resetHwm(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5')
    return true
  } catch {
    return false
  }
}

export async function measureLoad(dir: string): Promise<{ figures: LoadFigures; connector: GtfsConnector; kv: Kv }> {
  const before = memoryAfterGc()
  const vmHwmReset = resetHwm()
  const peak = { ...usage(), samples: 0 }
  const sample = () => {
    const now = usage()
    peak.rss = Math.max(peak.rss, now.rss)
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed)
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers)
    peak.samples++
  }
  const kv = memoryKv()
  const connector = createGtfsConnector(
    {
      id: 'bench-city',
      name: 'Bench City',
      connector: 'gtfs',
      environments: ['live'],
      options: { url: `file:${dir}` },
    },
    { kv, clock: () => new Date() },
  )
  const timer = setInterval(sample, SAMPLE_MS)
  const started = performance.now()
  try {
    await connector.start?.()
  } finally {
    clearInterval(timer)
  }
  const seconds = (performance.now() - started) / 1000
  sample()
  const vmHwm = readHwm()
  const after = memoryAfterGc()
  return {
    figures: {
      seconds,
      stats: connector.stats(),
      problems: connector.problems(),
      before,
      sampledPeak: peak,
      ...(vmHwm !== undefined ? { vmHwm } : {}),
      vmHwmReset,
      after,
    },
    connector,
    kv,
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2]
  if (!dir) {
    process.stderr.write('usage: node bench/gtfs-load.ts <GTFS folder>\n')
    process.exit(2)
  }
  const { figures, connector, kv } = await measureLoad(dir)
  process.stdout.write(`RESULT ${JSON.stringify(figures)}\n`)
  await connector.stop?.()
  await kv.close()
}
