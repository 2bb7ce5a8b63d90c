import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import Fastify from 'fastify'
import { lazyRequestLogger } from '../../src/http/request-logger.ts'

/** The lines a Fastify app logs for three requests, with the request's child made by `factory` (or Fastify's own). */
async function linesOf(level: string, factory?: typeof lazyRequestLogger): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      const { time: _time, pid: _pid, hostname: _host, responseTime: _rt, ...line } = JSON.parse(String(chunk))
      lines.push(line)
      done()
    },
  })
  let n = 0
  const app = Fastify({
    logger: { level, stream },
    genReqId: () => `req-${++n}`,
    ...(factory ? { childLoggerFactory: factory } : {}),
  })
  app.get('/quiet', async () => ({ ok: true }))
  app.get('/loud', async (request) => {
    request.log.warn({ detail: 1 }, 'a warning')
    request.log.info('some info')
    request.log.child({ part: 'x' }).error('from a child')
    assert.equal((request.log as unknown as { bindings(): { reqId?: string } }).bindings().reqId, request.id)
    return { ok: true }
  })
  for (const url of ['/quiet', '/loud', '/missing']) await app.inject({ url })
  await app.close()
  return lines
}

test('the lazy request logger writes what pino child loggers write, at every level', async () => {
  for (const level of ['warn', 'info', 'trace']) {
    assert.deepEqual(await linesOf(level, lazyRequestLogger), await linesOf(level), level)
  }
  assert.ok(
    (await linesOf('info', lazyRequestLogger)).some((line) => line.reqId === 'req-2' && line.msg === 'some info'),
  )
})
