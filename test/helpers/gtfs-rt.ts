import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before } from 'node:test'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { createGtfsConnector, type GtfsConnector } from '../../src/connectors/gtfs/index.ts'
import { transit_realtime } from '../../src/connectors/gtfs/realtime.ts'
import type { CallContext, ProviderEntry } from '../../src/connectors/types/common.ts'
import type { TransitVehicle } from '../../src/connectors/types/public-transport.ts'
import { memoryKv } from '../../src/platform/kv/memory.ts'
import { testClock } from './clock.ts'

/**
 * Set-up of the GTFS vehicle-position tests: sample-feed-1 as the static feed, VehiclePositions feeds encoded with
 * the bindings and served over HTTP by a server whose answers a test sets.
 */

export const FIXTURES = fileURLToPath(new URL('../../src/connectors/gtfs/fixtures/', import.meta.url))
export const SAMPLE_DIR = join(FIXTURES, 'sample-feed-1/folder')
export const RT = join(FIXTURES, 'gtfs-realtime')
export const fileUrl = (path: string) => pathToFileURL(path).href

/** Tuesday 5 June 2007, 08:05 PDT: AB1 is between Beatty airport (08:00) and Bullfrog (08:10). */
export const NOW = Date.parse('2007-06-05T08:05:00-07:00')
export const SECOND = 1000
export const MINUTE = 60 * SECOND

export const ctx = (now: Date): CallContext => ({
  signal: AbortSignal.timeout(10_000),
  now,
  language: 'en',
  tenantId: 't',
  environment: 'test',
  scenarios: [],
})
export const entry = (options: Record<string, unknown>, id = 'gtfs-vp'): ProviderEntry => ({
  id,
  name: 'GTFS vehicles',
  connector: 'gtfs',
  environments: ['test'],
  options: { url: fileUrl(SAMPLE_DIR), ...options },
})
export const byId = (list: TransitVehicle[]) => new Map(list.map((v) => [v.id, v]))

/** Answers what a test puts under a path; `delayMs` holds answers back. */
export class FeedServer {
  readonly answers = new Map<string, { status: number; body: Uint8Array | string }>()
  delayMs = 0
  private server?: Server
  base = ''

  async listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const answer = this.answers.get(req.url ?? '')
      setTimeout(() => {
        res.writeHead(answer?.status ?? 404)
        res.end(answer?.body ?? 'not found')
      }, this.delayMs)
    })
    const server = this.server
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    this.server?.closeAllConnections()
    return new Promise((resolve) => this.server?.close(() => resolve()))
  }
}

/**
 * A feed server, a scratch folder and `started(options)`: a GTFS connector over sample-feed-1 with `options`, on a
 * test clock at `start`, started; all closed after the file's tests.
 */
export function vehicleFeedSetup() {
  const server = new FeedServer()
  const scratch = mkdtempSync(join(tmpdir(), 'gtfs-vp-'))
  const connectors: GtfsConnector[] = []
  before(() => server.listen())
  after(async () => {
    await Promise.all(connectors.map((c) => c.stop?.()))
    await server.close()
    rmSync(scratch, { recursive: true, force: true })
  })
  async function started(options: Record<string, unknown>, start = NOW) {
    const clock = testClock(start)
    const connector = createGtfsConnector(entry(options), { kv: memoryKv(), clock })
    connectors.push(connector)
    await connector.start?.()
    const vehicles = async () => {
      assert.ok(connector.vehicles, 'the connector has the vehicles capability')
      return (await connector.vehicles(ctx(clock()))).vehicles
    }
    return { connector, clock, vehicles }
  }
  return { server, scratch, started }
}

// Plain objects in the bindings' fromObject form (enums by name).
export type Entity = Record<string, any>

/** A feed with the header timestamp `timestamp` (null: none). */
export function encodeFeed(entities: Entity[], timestamp: number | null = NOW): Uint8Array {
  const message = transit_realtime.FeedMessage.fromObject({
    header: {
      gtfsRealtimeVersion: '2.0',
      incrementality: 'FULL_DATASET',
      ...(timestamp !== null ? { timestamp: Math.floor(timestamp / 1000) } : {}),
    },
    entity: entities,
  })
  return transit_realtime.FeedMessage.encode(message).finish()
}

export const vp = (id: string, vehicle: Entity): Entity => ({ id, vehicle })
export const at = (lat: number, lon: number, extra: Entity = {}) => ({
  position: { latitude: lat, longitude: lon, ...extra },
})
export const seconds = (ms: number) => Math.floor(ms / 1000)
