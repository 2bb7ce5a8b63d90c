import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { MAX_ANSWER_BYTES, send } from '../../src/domain/webhooks/send.ts'

describe('one webhook attempt on the wire', () => {
  let port = 0
  const seen: { host?: string; path?: string; body: string }[] = []
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    '/ok': (_req, res) => res.writeHead(204).end(),
    '/hang': () => {},
    '/slow-body': (_req, res) => res.writeHead(200).write('x'),
    '/huge': (_req, res) => {
      res.writeHead(200)
      const chunk = 'y'.repeat(64 * 1024)
      // Far more than is read: the attempt must not wait for all of it.
      const pump = () => {
        while (res.write(chunk)) {}
      }
      res.on('drain', pump)
      pump()
    },
    '/redirect': (_req, res) => res.writeHead(302, { location: '/ok' }).end(),
  }
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      seen.push({ host: req.headers.host, path: req.url, body })
      routes[req.url ?? '']?.(req, res)
    })
  })
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
  })
  after(() => {
    server.closeAllConnections()
    server.close()
  })
  const target = { address: '127.0.0.1', family: 4 as const }
  const to = (path: string) => new URL(`http://hooks.example:${port}${path}`)

  it('connects to the given address with the URL host in Host, sends the body and reports the status', async () => {
    const result = await send(to('/ok'), target, { 'webhook-id': 'msg_1' }, '{"a":1}', 2000)
    assert.equal(result.statusCode, 204)
    assert.equal(result.error, undefined)
    const last = seen.at(-1)!
    assert.equal(last.host, `hooks.example:${port}`)
    assert.equal(last.body, '{"a":1}')
  })

  it('gives up after the timeout without an answer, but counts a status that came in time', async () => {
    const hung = await send(to('/hang'), target, {}, '{}', 300)
    assert.equal(hung.statusCode, undefined)
    assert.match(hung.error ?? '', /no answer within 0.3 s/)
    assert.ok(hung.durationMs >= 290 && hung.durationMs < 2000, `${hung.durationMs} ms`)
    const slow = await send(to('/slow-body'), target, {}, '{}', 300)
    assert.equal(slow.statusCode, 200)
  })

  it(`reads at most ${MAX_ANSWER_BYTES} bytes of an answer and never follows a redirect`, async () => {
    const huge = await send(to('/huge'), target, {}, '{}', 5000)
    assert.equal(huge.statusCode, 200)
    assert.ok(huge.durationMs < 2000)
    const before = seen.length
    const redirected = await send(to('/redirect'), target, {}, '{}', 2000)
    assert.equal(redirected.statusCode, 302)
    assert.equal(seen.length, before + 1, 'no second request')
  })

  it('reports a refused connection as an error', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const free = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const result = await send(new URL(`http://hooks.example:${free}/`), target, {}, '{}', 2000)
    assert.match(result.error ?? '', /ECONNREFUSED/)
  })
})
