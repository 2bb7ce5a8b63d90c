import cluster from 'node:cluster'
import { API_PREFIX, createApp } from './app.ts'
import { runPrimary } from './cluster.ts'
import { type Config, ConfigError, configWarnings, loadConfig } from './config.ts'
import { demoBanner, ensureDemoTenant } from './demo-tenant.ts'
import { workerMetrics } from './platform/cluster-metrics.ts'
import { noAllocationSitePretenuring } from './platform/gc-tuning.ts'
import { collectStartGarbage } from './platform/start-garbage.ts'
import { StartupError } from './platform/startup-error.ts'
import { openRuntime } from './runtime.ts'

async function main() {
  // Node 22.18+ and 23 can load this file yet miss what the service uses; src/start.js covers older ones.
  if (Number(process.versions.node.split('.')[0]) < 24) {
    throw new StartupError(`Node.js 24 or newer is needed (this is ${process.versions.node}); run \`npm start\``)
  }
  // Before any request: objects that live through a provider's wait must not make V8 allocate in the old generation.
  noAllocationSitePretenuring()
  const config = loadConfig()
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config, (workers) => serviceBanner(config, workers))
  // Providers report problems while they run (a feed failing on refresh); until the service's log exists they wait here.
  const early: { level: 'warn' | 'info' | 'debug'; message: string }[] = []
  let log = (level: 'warn' | 'info' | 'debug', message: string): void => {
    early.push({ level, message })
  }
  const runtime = await openRuntime(config, {
    onProviderProblem: (id, message) => log('warn', `provider unavailable: ${id}: ${message}`),
    providerLogger: { warn: (message) => log('warn', `provider problem: ${message}`) },
    sampleLogger: { info: (message) => log('info', message), debug: (message) => log('debug', message) },
    // Before the log exists, and worth seeing at once: the start is waiting, not hanging.
    onStartupNotice: (message) => process.stderr.write(`Waiting: ${message}\n`),
    onWarning: (message) => log('warn', message),
  })
  // A scrape reaches one worker; it answers for all of them.
  if (cluster.isWorker) runtime.metrics.text = workerMetrics(runtime.metrics.registry)
  const app = await createApp(runtime)
  log = (level, message) => app.log[level](message)
  for (const { level, message } of early.splice(0)) log(level, message)
  for (const warning of configWarnings(config)) app.log.warn(warning)

  const demo = await ensureDemoTenant(config, runtime.store, app.services.tenants)
  await app.listen({ port: config.port, host: config.host })
  runtime.jobs.start()
  collectStartGarbage()
  const stopSweeps = app.services.idempotency.startSweeps((err) =>
    app.log.warn({ err }, 'could not schedule the sweep of expired idempotency keys'),
  )
  // For the person at the terminal, on stderr: stdout is the JSON log stream.
  if (demo) {
    app.log.info({ tenantId: demo.tenant.id }, 'demo tenant created; its keys went to the terminal (stderr), not here')
    process.stderr.write(demoBanner(demo, baseUrl(config), API_PREFIX))
  }
  // With workers, the primary says it once for all of them.
  if (!cluster.isWorker) process.stderr.write(serviceBanner(config))

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight')
    const force = setTimeout(() => process.exit(1), 25_000)
    force.unref()
    stopSweeps()
    await app.close()
    await runtime.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
  // A worker whose primary is gone gets no more connections: it finishes what it has and leaves.
  if (cluster.isWorker) cluster.worker?.on('disconnect', () => void stop('primary gone'))
}

const baseUrl = (config: Config) => `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`

function serviceBanner(config: Config, workers = 1): string {
  const base = baseUrl(config)
  const processes = workers > 1 ? ` (${workers} worker processes)` : ''
  return `\nMobility Aggregation Service on ${base}${API_PREFIX}${processes}\nAPI docs: ${base}${API_PREFIX}/docs\nMap explorer: ${base}/explorer\n\n`
}

main().catch((error) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`)
  } else if (error instanceof StartupError) {
    // Something in the configuration or the environment to fix: the sentence says what; a stack would bury it.
    process.stderr.write(`Failed to start: ${error.message}\n`)
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
  }
  process.exit(1)
})
