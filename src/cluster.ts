import cluster, { type Worker } from 'node:cluster'
import type { Config } from './config.ts'
import { serveClusterMetrics } from './platform/cluster-metrics.ts'

const LEVELS = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10, silent: Infinity } as const
/** How long the workers get to finish their requests after SIGTERM before they are killed. */
const DRAIN_MS = 30_000

/**
 * The primary of `WORKERS` > 1: it serves nothing itself. It starts the workers (each a full instance of the
 * distributed shape, sharing the port through node:cluster), replaces one that dies, passes SIGTERM and SIGINT on and
 * waits for every worker to finish its requests, and merges the workers' metrics for /metrics.
 */
export function runPrimary(config: Config, banner: (workers: number) => string): void {
  // The same JSON lines as the workers' pino logs, so one log stream stays parseable.
  const log = (level: keyof typeof LEVELS, msg: string, extra: Record<string, unknown> = {}) => {
    if (LEVELS[level] < LEVELS[config.logLevel]) return
    process.stdout.write(
      `${JSON.stringify({ level: LEVELS[level], time: Date.now(), pid: process.pid, role: 'primary', ...extra, msg })}\n`,
    )
  }
  serveClusterMetrics()

  const listening = new WeakSet<Worker>()
  const deaths: number[] = []
  let announced = false
  let stopping = false

  const fork = () => {
    const worker = cluster.fork()
    worker.once('listening', () => {
      listening.add(worker)
      const up = Object.values(cluster.workers ?? {}).filter((w) => w && listening.has(w)).length
      if (!announced && up === config.workers) {
        announced = true
        log('info', `${up} workers listening`)
        process.stderr.write(banner(up))
      }
    })
  }

  let exitCode = 0
  const stopAll = (signal: NodeJS.Signals) => {
    const workers = Object.values(cluster.workers ?? {})
    if (workers.length === 0) process.exit(exitCode)
    for (const worker of workers) worker?.process.kill(signal)
    setTimeout(() => {
      log('error', 'workers did not stop in time; killing them')
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL')
      process.exit(1)
    }, DRAIN_MS).unref()
  }

  cluster.on('exit', (worker, code, signal) => {
    const how = signal ? `signal ${signal}` : `code ${code}`
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log('info', 'all workers stopped')
        process.exit(exitCode)
      }
      return
    }
    if (!listening.has(worker)) {
      // It died starting up (it printed why): the others would too, so restarting in a loop helps nobody.
      log('fatal', `a worker failed to start (${how}); stopping`, { worker: worker.process.pid })
      stopping = true
      exitCode = 1
      stopAll('SIGTERM')
      return
    }
    // Replaced at once; a worker that keeps dying is replaced at most once a second so it cannot spin the machine.
    const now = Date.now()
    deaths.push(now)
    while (deaths.length > 0 && deaths[0] < now - 60_000) deaths.shift()
    const delay = deaths.length > 3 ? 1000 : 0
    log('warn', `worker died (${how}); starting a replacement`, { worker: worker.process.pid, delayMs: delay })
    setTimeout(() => {
      if (!stopping) fork()
    }, delay)
  })

  const stop = (signal: string) => {
    if (stopping) return
    stopping = true
    log('info', 'shutting down: the workers finish their requests in flight', { signal })
    stopAll('SIGTERM')
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))

  log('info', `starting ${config.workers} workers`)
  for (let i = 0; i < config.workers; i++) fork()
}
