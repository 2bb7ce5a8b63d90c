import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { SMTPServer } from 'smtp-server'
import { bookFirst } from '../helpers/cars.ts'
import { createTenant, type Harness, skipReason, startHarness } from '../helpers/harness.ts'
import { runJobs } from '../helpers/store-faults.ts'

/** A local SMTP server that keeps every message it accepts (as the unit mail tests use). */
async function smtpSink() {
  const received: { to: string[]; raw: string }[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  return { received, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const outbox = (h: Harness) => {
  const dir = join(h.dataDir, 'outbox')
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.eml'))
        .map((f) => readFileSync(join(dir, f), 'utf8'))
    : []
}

describe('test mode never mails real people', { skip: skipReason }, () => {
  let h: Harness
  let smtp: Awaited<ReturnType<typeof smtpSink>>
  before(async () => {
    smtp = await smtpSink()
    h = await startHarness({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}` } })
  })
  after(async () => {
    await h.close()
    await smtp.close()
  })

  it('a live booking is mailed through SMTP; a test booking lands in the outbox only, marked as test', async () => {
    const t = await createTenant(h)
    const live = await bookFirst(h, t.secret, { providerId: 'sandbox-rent' })
    const test = await bookFirst(h, t.test, { providerId: 'sandbox-rent' })
    assert.equal(live.booking.status, 201, live.booking.text)
    assert.equal(test.booking.status, 201, test.booking.text)
    const liveId = live.booking.body.data.bookingId
    const testId = test.booking.body.data.bookingId
    await runJobs(h)
    const sent = smtp.received.filter((m) => m.raw.includes(liveId))
    assert.equal(sent.length, 1, 'the live confirmation went through SMTP')
    assert.deepEqual(sent[0].to, ['ada@example.com'])
    assert.doesNotMatch(sent[0].raw, /X-Test-Mode/i)
    assert.ok(!smtp.received.some((m) => m.raw.includes(testId)), 'nothing of the test booking reached SMTP')
    const kept = outbox(h).filter((m) => m.includes(testId))
    assert.equal(kept.length, 1, 'the test confirmation is in the outbox')
    assert.match(kept[0], /^X-Test-Mode: true\r?$/m)
    assert.match(kept[0], /^Subject: \[TEST\] /m)
    assert.ok(!outbox(h).some((m) => m.includes(liveId)), 'the live mail was not written to the outbox')

    // The cancellation of the test booking, too.
    const cancelled = await h.api('POST', `/cars/bookings/${testId}/cancel`, t.test)
    assert.equal(cancelled.status, 200, cancelled.text)
    await runJobs(h)
    assert.equal(outbox(h).filter((m) => m.includes(testId)).length, 2)
    assert.ok(!smtp.received.some((m) => m.raw.includes(testId)))
  })

  it('retention NONE sends at once: a test booking still only reaches the outbox', async () => {
    const t = await createTenant(h, { dataRetention: 'NONE' })
    const before = outbox(h).length
    const sentBefore = smtp.received.length
    const test = await bookFirst(h, t.test, { providerId: 'sandbox-rent' })
    assert.equal(test.booking.status, 201, test.booking.text)
    for (let i = 0; i < 50 && outbox(h).length === before; i++) await new Promise((r) => setTimeout(r, 20))
    const kept = outbox(h).slice(before)
    assert.equal(kept.length, 1)
    assert.match(kept[0], /^X-Test-Mode: true\r?$/m)
    await new Promise((r) => setTimeout(r, 200))
    assert.equal(smtp.received.length, sentBefore, 'nothing reached SMTP')
  })
})
