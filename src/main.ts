import { API_PREFIX, createApp } from './app.ts'
import { ConfigError, configWarnings, loadConfig } from './config.ts'
import { demoBanner, ensureDemoTenant } from './demo-tenant.ts'
import { StartupError } from './platform/startup-error.ts'
import { openRuntime } from './runtime.ts'

async function main() {
  // Node 22.18+ and 23 can load this file yet miss what the service uses; src/start.js covers older ones.
  if (Number(process.versions.node.split('.')[0]) < 24) {
    throw new StartupError(`Node.js 24 or newer is needed (this is ${process.versions.node}); run \`npm start\``)
  }
  const config = loadConfig()
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
  })
  const app = await createApp(runtime)
  log = (level, message) => app.log[level](message)
  for (const { level, message } of early.splice(0)) log(level, message)
  for (const warning of configWarnings(config)) app.log.warn(warning)

  const demo = await ensureDemoTenant(config, runtime.store, app.services.tenants)
  await app.listen({ port: config.port, host: config.host })
  runtime.jobs.start()
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`
  // For the person at the terminal, on stderr: stdout is the JSON log stream.
  if (demo) {
    app.log.info({ tenantId: demo.tenant.id }, 'demo tenant created; its keys went to the terminal (stderr), not here')
    process.stderr.write(demoBanner(demo, base, API_PREFIX))
  }
  process.stderr.write(
    `\nMobility Aggregation Service on ${base}${API_PREFIX}\nAPI docs: ${base}${API_PREFIX}/docs\nMap explorer: ${base}/explorer\n\n`,
  )

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down: no new connections, finishing requests in flight')
    const force = setTimeout(() => process.exit(1), 25_000)
    force.unref()
    await app.close()
    await runtime.close()
    process.exit(0)
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
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
