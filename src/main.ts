import { API_PREFIX, createApp } from './app.ts'
import { ConfigError, configWarnings, loadConfig } from './config.ts'
import { demoBanner, ensureDemoTenant } from './demo-tenant.ts'
import { openRuntime } from './runtime.ts'

async function main() {
  const config = loadConfig()
  const problems: string[] = []
  // Providers report problems while they run (a feed failing on refresh) to the service's log once it exists.
  let warn = (message: string): void => {
    problems.push(message)
  }
  const runtime = await openRuntime(config, {
    onProviderProblem: (id, message) => warn(`provider unavailable: ${id}: ${message}`),
    providerLogger: { warn: (message) => warn(`provider problem: ${message}`) },
  })
  const app = await createApp(runtime)
  warn = (message) => app.log.warn(message)
  for (const problem of problems) app.log.warn(problem)
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
  } else {
    process.stderr.write(
      `Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    )
  }
  process.exit(1)
})
