import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { createApp } from '../../src/app.ts'
import { loadConfig } from '../../src/config.ts'
import { generateTokenKeys } from '../../src/platform/tokens.ts'
import { openRuntime, type Runtime } from '../../src/runtime.ts'
import { ADMIN_TOKEN, freshDatabase } from './harness.ts'
import { call, listenAll } from './listen.ts'

/** A TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * A Redis of the test's own (the machine's `redis-server`, no persistence), so it can be killed and restarted empty
 * without touching the shared one. Answers undefined when the binary is missing.
 */
export async function ownRedis(): Promise<
  { url: string; kill(): void; start(): Promise<void>; stop(): Promise<void> } | undefined
> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'mas-redis-'))
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    )
    const failed = new Promise<never>((_, reject) => child!.once('error', reject))
    const probe = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    probe.on('error', () => {})
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await Promise.race([probe.connect().then(() => probe.ping()), failed])
          return
        } catch (error) {
          if (attempt > 50 || (error as NodeJS.ErrnoException).code === 'ENOENT') throw error
          probe.disconnect()
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
    } finally {
      probe.disconnect()
    }
  }
  try {
    await start()
  } catch {
    child?.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    return undefined
  }
  const kill = () => {
    child?.kill('SIGKILL')
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    stop: async () => {
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve))
        kill()
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/**
 * A TCP proxy to `target` that the test can cut: while cut, connections are accepted and data is swallowed, nothing
 * is answered (a server that hangs, the harder case than one that refuses); `mend` drops what was cut off and
 * forwards again.
 */
export async function tcpProxy(target: { host: string; port: number }) {
  let cut = false
  const pairs = new Set<{ client: Socket; upstream?: Socket }>()
  const server: Server = createServer((client) => {
    const pair: { client: Socket; upstream?: Socket } = { client }
    pairs.add(pair)
    client.on('error', () => {})
    client.on('close', () => {
      pair.upstream?.destroy()
      pairs.delete(pair)
    })
    if (cut) {
      client.on('data', () => {})
      return
    }
    const upstream = tcpConnect(target.port, target.host)
    pair.upstream = upstream
    upstream.on('error', () => client.destroy())
    upstream.on('close', () => client.destroy())
    client.on('data', (chunk) => {
      if (!cut) upstream.write(chunk)
    })
    upstream.on('data', (chunk) => {
      if (!cut) client.write(chunk)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    port,
    cut: () => {
      cut = true
    },
    mend: () => {
      cut = false
      for (const pair of pairs) pair.client.destroy()
    },
    close: async () => {
      for (const pair of pairs) pair.client.destroy()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/**
 * Instances of the distributed shape on a database of their own and the given Redis (keys under a prefix of their
 * own, deleted at the end), listening on real ports; `via` reroutes the database URL (through a proxy).
 */
export async function startInstances(options: { count: number; redisUrl: string; via?: (url: string) => string }) {
  const db = await freshDatabase('outage')
  const databaseUrl = options.via ? options.via(db.url) : db.url
  const redisPrefix = `mas_outage_${randomBytes(4).toString('hex')}:`
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-outage-'))
  const config = loadConfig({
    ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl,
    TOKEN_KEYS: generateTokenKeys(),
  })
  const runtimes: Runtime[] = []
  for (let i = 0; i < options.count; i++) runtimes.push(await openRuntime(config, { logger: false, redisPrefix }))
  const apps = await Promise.all(runtimes.map((runtime) => createApp(runtime)))
  const urls = await listenAll({ apps } as never)
  const tenant = await call(urls[0], 'POST', '/admin/v1/tenants', ADMIN_TOKEN, { name: 'Outage' })
  const key = await call(urls[0], 'POST', `/admin/v1/tenants/${tenant.body.data.tenant.id}/keys`, ADMIN_TOKEN, {
    type: 'secret',
    environment: 'test',
    rateLimit: { limit: 1_000_000, windowSeconds: 60 },
  })
  return {
    urls,
    key: key.body.data.key.secret as string,
    close: async () => {
      for (const app of apps) await app.close()
      for (const runtime of runtimes) await runtime.close()
      await db.drop()
      const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 0, retryStrategy: () => null })
      redis.on('error', () => {})
      const keys = await redis.keys(`${redisPrefix}*`).catch(() => [])
      if (keys.length > 0) await redis.del(...keys)
      redis.disconnect()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** One request as the load saw it. */
export interface Sample {
  name: string
  start: number
  end: number
  status: number
  code?: string
  reason?: string
  retryAfter?: string | null
  body?: any
}

/** A request over HTTP that records when it started and ended (ms, performance.now) and how it was answered. */
export async function timed(
  base: string,
  name: string,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
): Promise<Sample> {
  const start = performance.now()
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(20_000),
    })
    const text = await res.text()
    let parsed: any
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return {
      name,
      start,
      end: performance.now(),
      status: res.status,
      code: parsed?.error?.code,
      reason: parsed?.error?.details?.reason,
      retryAfter: res.headers.get('retry-after'),
      body: parsed,
    }
  } catch (error) {
    // No answer at all (the client gave up after 20 s): a hang.
    return { name, start, end: performance.now(), status: 0, code: (error as Error).name }
  }
}

/** Count of samples per `status code/reason`, for the diagnostics. */
export function histogram(samples: Sample[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const s of samples) {
    const label = `${s.name} ${s.status}${s.code ? ` ${s.code}` : ''}${s.reason ? `/${s.reason}` : ''}`
    counts[label] = (counts[label] ?? 0) + 1
  }
  return counts
}
