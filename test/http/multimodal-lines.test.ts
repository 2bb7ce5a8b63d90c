import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { pathToFileURL } from 'node:url'
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile'
import { PbfReader } from 'pbf'
import { overzoom, type TileLineFeature, textColorOn } from '../../src/domain/multimodal/lines.ts'
import { createTenant, type Harness, skipReason, startHarness, type TenantFixture } from '../helpers/harness.ts'
import { LINE_STOPS, SH_OUT, writeLineFeed } from '../helpers/line-feed.ts'

const ALEX = { latitude: 52.5219, longitude: 13.4132 }

function tileOf(latitude: number, longitude: number, z: number) {
  const n = 2 ** z
  const x = Math.floor(((longitude + 180) / 360) * n)
  const rad = (latitude * Math.PI) / 180
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n)
  return { z, x, y }
}

async function lines(h: Harness, key: string, t: { z: number; x: number; y: number }) {
  const res = await h.apps[0].inject({
    method: 'GET',
    url: `/mobility-api/v2/multimodal/tiles/${t.z}/${t.x}/${t.y}.mvt`,
    headers: { authorization: `Bearer ${key}` },
  })
  assert.equal(res.statusCode, 200, res.body)
  const layer = new VectorTile(new PbfReader(res.rawPayload)).layers.lines
  const features = layer ? Array.from({ length: layer.length }, (_, i) => layer.feature(i)) : []
  return { features, extent: layer?.extent }
}

/** The feature's points as longitude/latitude. */
const lonLats = (f: VectorTileFeature, t: { z: number; x: number; y: number }) => {
  const g = f.toGeoJSON(t.x, t.y, t.z).geometry
  return (g.type === 'LineString' ? [g.coordinates] : g.type === 'MultiLineString' ? g.coordinates : []).flat()
}

describe('the lines layer of the tiles (sandbox transit: lines along its stops)', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  before(async () => {
    h = await startHarness()
    t = await createTenant(h)
  })
  after(() => h.close())

  it('draws the lines through Alexanderplatz with name, mode and colours', async () => {
    const at = tileOf(ALEX.latitude, ALEX.longitude, 13)
    const { features } = await lines(h, t.secret, at)
    assert.ok(features.length > 0, 'lines near Alexanderplatz')
    for (const f of features) {
      assert.equal(f.type, 2, 'LineString')
      assert.equal(f.properties.kind, 'LINE')
      assert.equal(f.properties.provider, 'sandbox-transit')
      assert.equal(f.properties.id, `sandbox-transit:${f.properties.routeId}`)
      assert.equal(f.properties.pathSource, 'STOPS')
      assert.match(String(f.properties.color), /^#[0-9A-F]{6}$/)
      assert.match(String(f.properties.textColor), /^#[0-9A-F]{6}$/)
      assert.ok(f.properties.name && f.properties.mode)
    }
    const names = new Set(features.map((f) => f.properties.name))
    for (const name of ['S5', 'U2', 'U5', 'U8']) assert.ok(names.has(name), `${name} in ${[...names]}`)
    // A line that stops at Alexanderplatz passes within metres of the station point.
    const u5 = features.find((f) => f.properties.name === 'U5') as VectorTileFeature
    const near = lonLats(u5, at).some(
      ([lon, lat]) => Math.abs(lon - ALEX.longitude) < 0.0002 && Math.abs(lat - ALEX.latitude) < 0.0002,
    )
    assert.ok(near, 'U5 runs through S+U Alexanderplatz')
  })

  it('cuts deep tiles from their z 14 ancestor: z 18 at Alexanderplatz holds the lines, clipped to the tile', async () => {
    const at = tileOf(ALEX.latitude, ALEX.longitude, 18)
    const { features, extent } = await lines(h, t.secret, at)
    assert.ok(features.length > 0)
    for (const f of features) {
      for (const ring of f.loadGeometry()) {
        assert.ok(ring.length >= 2)
        for (const p of ring) {
          assert.ok(p.x >= -64 && p.x <= (extent ?? 4096) + 64 && p.y >= -64 && p.y <= (extent ?? 4096) + 64)
        }
      }
    }
  })

  it('keeps low zooms light: rail from z 5, buses from z 9, nothing below z 5', async () => {
    const z8 = await lines(h, t.secret, tileOf(ALEX.latitude, ALEX.longitude, 8))
    assert.ok(z8.features.length > 0)
    assert.ok(z8.features.every((f) => f.properties.mode !== 'BUS'))
    const z12 = await lines(h, t.secret, tileOf(ALEX.latitude, ALEX.longitude, 12))
    assert.ok(z12.features.some((f) => f.properties.mode === 'BUS'))
    const z4 = await lines(h, t.secret, tileOf(ALEX.latitude, ALEX.longitude, 4))
    assert.equal(z4.features.length, 0)
  })

  it('leaves a failing provider’s lines out and still answers the tile', async () => {
    const res = await h.apps[0].inject({
      method: 'GET',
      url: `/mobility-api/v2/multimodal/tiles/13/${tileOf(ALEX.latitude, ALEX.longitude, 13).x}/${tileOf(ALEX.latitude, ALEX.longitude, 13).y}.mvt`,
      headers: { authorization: `Bearer ${t.test}`, 'x-sandbox-scenario': 'provider-error:sandbox-transit' },
    })
    assert.equal(res.statusCode, 200)
    assert.equal(new VectorTile(new PbfReader(res.rawPayload)).layers.lines, undefined)
  })
})

describe('the lines layer of the tiles (a GTFS feed with shapes.txt)', { skip: skipReason }, () => {
  let h: Harness
  let t: TenantFixture
  let dir: string
  before(async () => {
    dir = writeLineFeed()
    const file = join(dir, 'providers.json')
    writeFileSync(
      file,
      JSON.stringify({
        providers: [
          {
            id: 'lines-gtfs',
            name: 'Linienbetrieb',
            connector: 'gtfs',
            environments: ['live', 'test'],
            options: { url: pathToFileURL(dir).href },
          },
        ],
      }),
    )
    h = await startHarness({ env: { PROVIDERS_FILE: file } })
    t = await createTenant(h)
  })
  after(async () => {
    await h?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('draws shapes where the feed has them, stop patterns elsewhere; default colours by mode', async () => {
    const at = tileOf(LINE_STOPS.S2[0], LINE_STOPS.S2[1], 12)
    const { features } = await lines(h, t.secret, at)
    const tram = features.filter((f) => f.properties.routeId === 'T1')
    assert.deepEqual(tram.map((f) => f.properties.shapeId).sort(), ['SH_BACK', 'SH_OUT'])
    for (const f of tram) {
      assert.equal(f.properties.pathSource, 'SHAPE')
      assert.equal(f.properties.mode, 'TRAM')
      assert.equal(f.properties.color, '#D81B60')
      assert.equal(f.properties.textColor, '#FFFFFF')
      assert.equal(f.properties.agency, 'Linienbetrieb')
    }
    // The drawn shape follows shapes.txt (its bend north between the stops), to within a few metres.
    const drawn = lonLats(tram.find((f) => f.properties.shapeId === 'SH_OUT') as VectorTileFeature, at)
    for (const [lon, lat] of SH_OUT) {
      assert.ok(
        drawn.some(([x, y]) => Math.abs(x - lon) < 0.00005 && Math.abs(y - lat) < 0.00005),
        `${lon},${lat} drawn`,
      )
    }
    const bus = features.filter((f) => f.properties.routeId === 'B1')
    assert.equal(bus.length, 1)
    assert.equal(bus[0].properties.pathSource, 'STOPS')
    assert.equal(bus[0].properties.shapeId, undefined)
    assert.equal(bus[0].properties.color, '#95276E', 'the default colour of buses')
    assert.equal(bus[0].properties.textColor, '#FFFFFF')
    assert.equal(features.find((f) => f.properties.routeId === 'B2')?.properties.name, 'Bus zwei über P')
  })
})

describe('lines: colours and deep tiles', () => {
  it('picks a readable text colour for a line colour', () => {
    assert.equal(textColorOn('#FFD800'), '#000000')
    assert.equal(textColorOn('#115D91'), '#FFFFFF')
    assert.equal(textColorOn('#FFFFFF'), '#000000')
    assert.equal(textColorOn('#000000'), '#FFFFFF')
  })

  it('overzoom scales a line into the child tile and clips it to the tile and its buffer, in parts', () => {
    const tags = { name: 'X' }
    // In the parent (extent 4096): a line across the top-left quarter, out of it and back in.
    const parent: TileLineFeature[] = [
      {
        type: 2,
        geometry: [
          [
            [0, 1000],
            [1000, 1000],
            [3000, 1000],
            [3000, 1020],
            [1000, 1020],
          ],
        ],
        tags,
      },
    ]
    const [child] = overzoom(parent, 1, 0, 0, 4096, 64)
    assert.equal(child.tags, tags)
    assert.deepEqual(child.geometry, [
      [
        [0, 2000],
        [2000, 2000],
        [4160, 2000],
      ],
      [
        [4160, 2040],
        [2000, 2040],
      ],
    ])
    // Nothing of it in the bottom-right child.
    assert.deepEqual(overzoom(parent, 1, 1, 1, 4096, 64), [])
  })
})
