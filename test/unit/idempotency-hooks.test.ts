import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { createIdempotency, type IdempotencyDeps } from '../../src/http/idempotency.ts'

/**
 * The Idempotency-Key hooks sit on the routes that take POST or PATCH only, first among a route's own hooks; a GET
 * runs none of them (issue 17: three async hooks per GET showed in the GET /auth/check profile).
 */
test('idempotency hooks: on POST and PATCH routes only, before the route’s own', async () => {
  const app = Fastify()
  const deps = { repo: {}, jobs: {}, clock: () => new Date(), leaseMs: 1000, maxAnswerBytes: 1000, apiPrefix: '/api' }
  createIdempotency(deps as unknown as IdempotencyDeps).install(app)
  const seen: Record<string, string[]> = {}
  app.addHook('onRoute', (route) => {
    const names = (hooks: unknown) => [hooks ?? []].flat().map((h) => (h as { name: string }).name)
    seen[`${[route.method].flat().join(',')} ${route.url}`] = [
      ...names(route.preValidation),
      ...names(route.preHandler),
      ...names(route.onSend),
    ]
  })
  const ownPreValidation = async () => {}
  app.get('/api/things', async () => ({}))
  app.post('/api/things', { preValidation: ownPreValidation }, async () => ({}))
  app.patch('/api/things/:id', async () => ({}))
  app.route({ method: ['GET', 'DELETE'], url: '/api/other', handler: async () => ({}) })
  await app.ready()
  assert.deepEqual(seen['GET /api/things'], [])
  assert.deepEqual(seen['GET,DELETE /api/other'], [])
  assert.deepEqual(seen['POST /api/things'], ['preValidation', 'ownPreValidation', 'preHandler', 'onSend'])
  assert.deepEqual(seen['PATCH /api/things/:id'], ['preValidation', 'preHandler', 'onSend'])
  await app.close()
})
