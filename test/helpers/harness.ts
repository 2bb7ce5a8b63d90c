import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import pg from 'pg'
import { type AppDeps, createApp } from '../../src/app.ts'
import { type Config, loadConfig } from '../../src/config.ts'
import { generateTokenKeys } from '../../src/platform/tokens.ts'
import { openRuntime, type Runtime } from '../../src/runtime.ts'
import { serviceHours, type TestClock, testClock } from './clock.ts'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'
export const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

export type ShapeName = 'embedded' | 'distributed'
export const SHAPE: ShapeName = process.env.TEST_SHAPE === 'distributed' ? 'distributed' : 'embedded'

export interface Res<T = any> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
  text: string
}

export interface RequestOptions {
  method?: string
  url: string
  key?: string
  headers?: Record<string, string>
  body?: unknown
  /** Raw payload instead of JSON (malformed bodies, other content types). */
  payload?: string | Buffer
  /** Which instance answers (distributed shape); default: round robin. */
  instance?: number
  /** The client's socket address (inject's default is 127.0.0.1). */
  remoteAddress?: string
}

export interface Harness {
  shape: ShapeName
  /** DATA_DIR of this harness (mail outbox and the like). */
  dataDir: string
  clock: TestClock
  runtimes: Runtime[]
  apps: Awaited<ReturnType<typeof createApp>>[]
  request<T = any>(options: RequestOptions): Promise<Res<T>>
  api<T = any>(
    method: string,
    path: string,
    key?: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Res<T>>
  admin<T = any>(method: string, path: string, body?: unknown): Promise<Res<T>>
  /** Stops every instance and starts them again on the same data (DATA_DIR, database, Redis keys). */
  restart(): Promise<void>
  close(): Promise<void>
}

async function reachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
  } catch (error) {
    return `PostgreSQL at ${POSTGRES_URL} is not reachable (${(error as Error).message})`
  } finally {
    await client.end().catch(() => {})
  }
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  })
  try {
    await redis.connect()
    await redis.ping()
  } catch (error) {
    return `Redis at ${REDIS_URL} is not reachable (${(error as Error).message})`
  } finally {
    redis.disconnect()
  }
  return undefined
}

/** Why the distributed shape cannot run here, or undefined when it can (or when the embedded shape is tested). */
export const skipReason: string | undefined =
  SHAPE === 'distributed' ? await reachable().then((r) => r && `distributed shape skipped: ${r}`) : undefined
if (skipReason) process.stderr.write(`\n*** ${skipReason} ***\n\n`)

/** A database of its own per harness (or suite), so parallel test files never see each other's rows. */
export async function freshDatabase(label = 't'): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mas_${label}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: POSTGRES_URL })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(POSTGRES_URL)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: POSTGRES_URL })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

export interface HarnessOptions {
  env?: Record<string, string>
  /** Number of instances in the distributed shape (default 2). */
  instances?: number
  /** Embedded shape: the database in DATA_DIR, as `npm start` has it, instead of in memory (for `restart`). */
  persistent?: boolean
  /** Changes what each app is built from (a test wraps a repository or the key-value store); at every start. */
  decorate?: (deps: AppDeps) => AppDeps
}

/** Starts the service in the shape under test: one embedded instance, or two instances on PostgreSQL + Redis. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = testClock(serviceHours())
  const dataDir = mkdtempSync(join(tmpdir(), 'mas-test-'))
  const baseEnv = { ADMIN_TOKEN, LOG_LEVEL: 'silent', DATA_DIR: dataDir, ...options.env }
  let drop = async () => {}
  const runtimes: Runtime[] = []
  let open: () => Promise<Runtime[]>
  if (SHAPE === 'distributed') {
    const db = await freshDatabase()
    drop = db.drop
    const config: Config = loadConfig({ ...baseEnv, DATABASE_URL: db.url, REDIS_URL, TOKEN_KEYS: generateTokenKeys() })
    const redisPrefix = `mas_t_${randomBytes(6).toString('hex')}:`
    open = async () => {
      const opened: Runtime[] = []
      for (let i = 0; i < (options.instances ?? 2); i++) {
        opened.push(await openRuntime(config, { clock, logger: false, redisPrefix }))
      }
      return opened
    }
  } else {
    const config = loadConfig({ ...baseEnv, TOKEN_KEYS: generateTokenKeys() })
    open = async () => [await openRuntime(config, { clock, logger: false, inMemory: !options.persistent })]
  }
  const apps: Awaited<ReturnType<typeof createApp>>[] = []
  const start = async () => {
    runtimes.push(...(await open()))
    const decorate = options.decorate ?? ((deps: AppDeps) => deps)
    apps.push(...(await Promise.all(runtimes.map((runtime) => createApp(decorate(runtime))))))
  }
  const stop = async () => {
    for (const app of apps.splice(0)) await app.close()
    for (const runtime of runtimes.splice(0)) await runtime.close()
  }
  await start()
  let next = 0

  const request = async <T>(o: RequestOptions): Promise<Res<T>> => {
    const app = apps[o.instance ?? next++ % apps.length]
    const headers: Record<string, string> = { ...o.headers }
    if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`
    let payload: string | Buffer | undefined = o.payload
    if (o.body !== undefined) {
      payload = JSON.stringify(o.body)
      headers['content-type'] ??= 'application/json'
    }
    const res = await app.inject({
      method: (o.method ?? 'GET') as 'GET',
      url: o.url,
      headers,
      payload,
      ...(o.remoteAddress ? { remoteAddress: o.remoteAddress } : {}),
    })
    let body: unknown
    try {
      body = res.body ? JSON.parse(res.body) : undefined
    } catch {
      body = undefined
    }
    return { status: res.statusCode, headers: res.headers as Res['headers'], body: body as T, text: res.body }
  }

  return {
    shape: SHAPE,
    dataDir,
    clock,
    runtimes,
    apps,
    request,
    api: (method, path, key, body, headers) => request({ method, url: `/mobility-api/v2${path}`, key, body, headers }),
    admin: (method, path, body) => request({ method, url: `/admin/v1${path}`, key: ADMIN_TOKEN, body }),
    restart: async () => {
      await stop()
      await start()
    },
    close: async () => {
      await stop()
      await drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export interface TenantFixture {
  tenant: any
  secret: string
  publishable: string
  test: string
  testPublishable: string
}

/** A tenant with one key of each kind; `settings` go to POST /admin/v1/tenants. */
export async function createTenant(h: Harness, settings: Record<string, unknown> = {}): Promise<TenantFixture> {
  const created = await h.admin('POST', '/tenants', { name: `Tenant ${randomBytes(3).toString('hex')}`, ...settings })
  if (created.status !== 201) throw new Error(`tenant creation failed: ${created.text}`)
  const tenant = created.body.data.tenant
  const key = async (body: Record<string, unknown>) => {
    const res = await h.admin('POST', `/tenants/${tenant.id}/keys`, body)
    if (res.status !== 201) throw new Error(`key creation failed: ${res.text}`)
    return res.body.data.key.secret as string
  }
  return {
    tenant,
    secret: await key({ type: 'secret', environment: 'live' }),
    publishable: await key({ type: 'publishable', environment: 'live' }),
    test: await key({ type: 'secret', environment: 'test' }),
    testPublishable: await key({ type: 'publishable', environment: 'test' }),
  }
}

export async function createKey(h: Harness, tenantId: string, body: Record<string, unknown>) {
  const res = await h.admin('POST', `/tenants/${tenantId}/keys`, body)
  if (res.status !== 201) throw new Error(`key creation failed: ${res.text}`)
  return res.body.data.key as { id: string; secret: string }
}
