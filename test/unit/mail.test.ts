import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { SMTPServer } from 'smtp-server'
import { createMailer, enqueueMail, MAIL_JOB, registerMailJobs } from '../../src/platform/mail.ts'
import { type BookingMailData, bookingMail } from '../../src/platform/mail-templates.ts'
import { currencyExponent, formatMoney, toMajor, toMinor } from '../../src/platform/money.ts'
import type { Store } from '../../src/store/db.ts'
import { createJobs } from '../../src/store/jobs.ts'
import { openPglite } from '../../src/store/pglite.ts'
import { testClock } from '../helpers/clock.ts'

const booking: BookingMailData = {
  bookingId: 'BK7QX2M9TA',
  provider: { name: 'Sixt' },
  vehicle: { make: 'Volkswagen', model: 'Golf' },
  pickupLocation: {
    name: 'Berlin Hauptbahnhof',
    address: { street: 'Europaplatz 1', postalCode: '10557', city: 'Berlin', country: 'DE' },
  },
  dropoffLocation: {
    name: 'Paris Gare de Lyon',
    address: { street: 'Place Louis-Armand', postalCode: '75012', city: 'Paris', country: 'FR' },
  },
  rentalPeriod: { start: '2026-06-01T08:00:00Z', end: '2026-06-05T16:30:00Z' },
  chargedRate: { amount: 123456, currency: 'EUR' },
  driver: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
}

const cancelled: BookingMailData = {
  ...booking,
  cancellation: { fee: { amount: 2500, currency: 'EUR' }, refund: { amount: 120956, currency: 'EUR' } },
}

/** Just enough MIME to read back what nodemailer wrote: header lines (encoded words decoded) and the text/plain part. */
function readEml(raw: string): { headers: Record<string, string>; text: string } {
  const decodeWords = (value: string) =>
    value
      .replace(/\?=\s+=\?/g, '?==?')
      .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_m, encoding: string, data: string) =>
        encoding.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64').toString('utf8')
          : Buffer.from(
              data
                .replace(/_/g, ' ')
                .replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))),
              'latin1',
            ).toString('utf8'),
      )
  const parseHeaders = (block: string) => {
    const headers: Record<string, string> = {}
    for (const line of block.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
      const colon = line.indexOf(':')
      if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = decodeWords(line.slice(colon + 1).trim())
    }
    return headers
  }
  const split = (part: string) => {
    const at = part.indexOf('\r\n\r\n')
    return { headers: parseHeaders(part.slice(0, at)), body: part.slice(at + 4) }
  }
  const decodeBody = (headers: Record<string, string>, body: string) => {
    const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase()
    if (encoding === 'base64') return Buffer.from(body, 'base64').toString('utf8')
    if (encoding === 'quoted-printable') {
      const bytes = body
        .replace(/=\r\n/g, '')
        .replace(/=([0-9A-F]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16)))
      return Buffer.from(bytes, 'latin1').toString('utf8')
    }
    return body
  }
  const top = split(raw)
  const boundary = /boundary="?([^";]+)"?/.exec(top.headers['content-type'] ?? '')?.[1]
  if (!boundary) return { headers: top.headers, text: decodeBody(top.headers, top.body) }
  for (const chunk of top.body.split(`--${boundary}`)) {
    const part = split(chunk.replace(/^\r\n/, ''))
    if (part.headers['content-type']?.startsWith('text/plain')) {
      return { headers: top.headers, text: decodeBody(part.headers, part.body).replace(/\r\n$/, '') }
    }
  }
  throw new Error('no text/plain part')
}

interface Sink {
  port: number
  received: { from: string; to: string[]; raw: string }[]
  close(): Promise<void>
}

/** A local SMTP server that accepts every message (no TLS, no auth). */
async function startSink(port = 0): Promise<Sink> {
  const received: Sink['received'] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const address = server.server.address()
  return {
    port: typeof address === 'object' && address ? address.port : port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** A port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return typeof address === 'object' && address ? address.port : 0
}

describe('booking mail templates', () => {
  it('covers the booking in English', () => {
    const mail = bookingMail('confirmation', 'en', booking)
    assert.equal(mail.subject, 'Your booking BK7QX2M9TA is confirmed')
    for (const expected of [
      'Hello Ada Lovelace,',
      'Sixt has confirmed your car rental.',
      'Booking number: BK7QX2M9TA',
      'Vehicle: Volkswagen Golf',
      'Pick-up: Berlin Hauptbahnhof, Europaplatz 1, 10557 Berlin, Germany',
      'Return: Paris Gare de Lyon, Place Louis-Armand, 75012 Paris, France',
      'June 1, 2026',
      'UTC: 2026-06-01T08:00:00Z – 2026-06-05T16:30:00Z',
      'Price: €1,234.56',
    ]) {
      assert.ok(mail.text.includes(expected), `missing "${expected}" in:\n${mail.text}`)
    }
    // 08:00 UTC is 10:00 in Berlin in summer.
    assert.match(mail.text, /10:00/)
    assert.ok(mail.html.includes('<th align="left">Vehicle</th><td>Volkswagen Golf</td>'))
  })

  it('speaks German and French, and falls back to English', () => {
    const en = bookingMail('confirmation', 'en', booking)
    const de = bookingMail('confirmation', 'de', booking)
    const fr = bookingMail('confirmation', 'fr', booking)
    assert.equal(de.subject, 'Ihre Buchung BK7QX2M9TA ist bestätigt')
    assert.equal(fr.subject, 'Votre réservation BK7QX2M9TA est confirmée')
    assert.notEqual(de.text, en.text)
    assert.notEqual(fr.text, en.text)
    assert.match(de.text, /Abholung: Berlin Hauptbahnhof, Europaplatz 1, 10557 Berlin, Deutschland/)
    assert.match(de.text, /Montag, 1\. Juni 2026/)
    assert.match(de.text, /Preis: 1\.234,56\s€/)
    assert.match(fr.text, /Restitution\s: Paris Gare de Lyon, Place Louis-Armand, 75012 Paris, France/)
    assert.match(fr.text, /lundi 1 juin 2026/)
    assert.match(fr.text, /Prix\s: 1\s234,56\s€/)
    assert.ok(de.html.startsWith('<!doctype html>') && de.html.includes('lang="de"'))
    assert.deepEqual(bookingMail('confirmation', 'ja', booking), en)
    assert.deepEqual(bookingMail('confirmation', 'not a language!', booking), en)
    assert.equal(bookingMail('confirmation', 'de-AT', booking).subject, de.subject)
  })

  it('states the cancellation fee and refund', () => {
    const en = bookingMail('cancellation', 'en', cancelled)
    assert.equal(en.subject, 'Your booking BK7QX2M9TA has been cancelled')
    assert.match(en.text, /Cancellation fee: €25\.00/)
    assert.match(en.text, /Refund: €1,209\.56/)
    const de = bookingMail('cancellation', 'de', cancelled)
    assert.equal(de.subject, 'Ihre Buchung BK7QX2M9TA wurde storniert')
    assert.match(de.text, /Stornogebühr: 25,00\s€/)
    assert.match(de.text, /Erstattung: 1\.209,56\s€/)
    assert.doesNotMatch(bookingMail('confirmation', 'en', cancelled).text, /Refund/)
  })

  it('escapes what the booking brings into the HTML', () => {
    const mail = bookingMail('confirmation', 'en', { ...booking, provider: { name: '<script>alert(1)</script> & Co' } })
    assert.ok(!mail.html.includes('<script>'))
    assert.ok(mail.html.includes('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co'))
    assert.ok(mail.text.includes('<script>alert(1)</script> & Co has confirmed'), 'plain text stays as it is')
  })
})

describe('mailer', () => {
  let dataDir: string
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'mas-mail-'))
  })
  after(() => {
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('writes an .eml file to DATA_DIR/outbox without SMTP_URL', async () => {
    const mailer = createMailer({ dataDir, clock: () => new Date('2026-06-01T10:00:00.123Z') })
    assert.equal(mailer.transport, 'outbox')
    for (const language of ['en', 'de', 'fr']) {
      const mail = bookingMail('confirmation', language, booking)
      await mailer.send({ to: booking.driver.email, ...mail, headers: { 'X-Booking-Id': booking.bookingId } })
    }
    mailer.close()
    const files = readdirSync(join(dataDir, 'outbox')).sort()
    assert.equal(files.length, 3)
    for (const file of files) assert.match(file, /^20260601T100000123Z-[0-9a-f]{12}\.eml$/)
    const mails = files.map((file) => readFileSync(join(dataDir, 'outbox', file), 'utf8'))
    for (const raw of mails) {
      assert.ok(!/[^\r]\n/.test(raw), 'lines end in CRLF (RFC 5322)')
      assert.match(raw, /^Message-ID: <.+>\r$/m)
      assert.match(raw, /^Date: .+\r$/m)
    }
    const parsed = mails.map(readEml)
    const subjects = parsed.map((m) => m.headers.subject).sort()
    assert.deepEqual(subjects, [
      'Ihre Buchung BK7QX2M9TA ist bestätigt',
      'Votre réservation BK7QX2M9TA est confirmée',
      'Your booking BK7QX2M9TA is confirmed',
    ])
    for (const mail of parsed) {
      assert.equal(mail.headers.to, 'ada@example.com')
      assert.equal(mail.headers.from, 'Mobility Aggregation Service <no-reply@localhost>')
      assert.equal(mail.headers['x-booking-id'], 'BK7QX2M9TA')
    }
    const german = parsed.find((m) => m.headers.subject.startsWith('Ihre'))!
    assert.equal(german.text, bookingMail('confirmation', 'de', booking).text.replace(/\n/g, '\r\n'))
    const french = parsed.find((m) => m.headers.subject.startsWith('Votre'))!
    assert.match(french.text, /Bonjour Ada Lovelace,/)
  })

  it('delivers over SMTP to a local server', async () => {
    const sink = await startSink()
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${sink.port}`,
      dataDir,
      from: 'bookings@mobility.test',
    })
    try {
      assert.equal(mailer.transport, 'smtp')
      const mail = bookingMail('cancellation', 'fr', cancelled)
      await mailer.send({ to: booking.driver.email, ...mail })
      assert.equal(sink.received.length, 1)
      const [message] = sink.received
      assert.equal(message.from, 'bookings@mobility.test')
      assert.deepEqual(message.to, ['ada@example.com'])
      const parsed = readEml(message.raw)
      assert.equal(parsed.headers.subject, 'Votre réservation BK7QX2M9TA a été annulée')
      assert.match(parsed.text, /Frais d'annulation\s: 25,00\s€/)
    } finally {
      mailer.close()
      await sink.close()
    }
  })
})

describe('mail.send jobs', () => {
  let store: Store
  before(async () => {
    store = await openPglite(undefined)
  })
  after(async () => {
    await store.close()
  })

  it('retries a mail while SMTP is down and delivers it once the server is up', async () => {
    const clock = testClock(Date.parse('2026-06-01T10:00:00Z'))
    const port = await closedPort()
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, dataDir: '/nonexistent' })
    const jobs = createJobs({ store, clock, random: () => 0, logger: { error: () => {}, warn: () => {} } })
    registerMailJobs(jobs, mailer)
    const message = { to: booking.driver.email, ...bookingMail('confirmation', 'de', booking) }
    const id = await enqueueMail(jobs, message, { id: `mail_confirmation_${booking.bookingId}` })
    assert.equal(await enqueueMail(jobs, message, { id: `mail_confirmation_${booking.bookingId}` }), id)

    assert.equal(await jobs.runDue(), 1)
    let row = await jobs.get(id)
    assert.equal(row?.kind, MAIL_JOB)
    assert.equal(row?.status, 'pending')
    assert.equal(row?.attempts, 1)
    assert.match(row?.lastError ?? '', /ECONNREFUSED/)
    assert.equal(row?.runAt.getTime(), clock().getTime() + 30_000)

    const sink = await startSink(port)
    try {
      assert.equal(await jobs.runDue(), 0, 'not retried before its backoff')
      assert.equal(sink.received.length, 0)
      clock.advance(30_000)
      assert.equal(await jobs.runDue(), 1)
      row = await jobs.get(id)
      assert.equal(row?.status, 'done')
      assert.equal(row?.attempts, 2)
      assert.equal(sink.received.length, 1)
      assert.equal(readEml(sink.received[0].raw).headers.subject, 'Ihre Buchung BK7QX2M9TA ist bestätigt')
    } finally {
      mailer.close()
      await sink.close()
    }
  })

  it('fails a malformed mail job at once instead of retrying it', async () => {
    const clock = testClock()
    const jobs = createJobs({ store, clock, logger: { error: () => {}, warn: () => {} } })
    const mailer = createMailer({ dataDir: '/nonexistent' })
    registerMailJobs(jobs, mailer)
    const id = await jobs.enqueue(MAIL_JOB, { subject: 'no recipient' })
    assert.equal(await jobs.runDue(), 1)
    const row = await jobs.get(id)
    assert.equal(row?.status, 'failed')
    assert.match(row?.lastError ?? '', /payload needs to, subject and text/)
  })
})

describe('money', () => {
  /** The decimal text of `amount / 10^exponent`, built from digits only. */
  const decimal = (amount: number, exponent: number) => {
    const digits = Math.abs(amount)
      .toString()
      .padStart(exponent + 1, '0')
    const text = exponent ? `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}` : digits
    return Number(`${amount < 0 ? '-' : ''}${text}`)
  }

  it('converts minor units by the exponent of the currency', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (amount) => {
        const eur = toMajor(amount, 'EUR')
        // Exactly the decimal: 7 cents is the double nearest 0.07 (and 0.07 * 100 is 7.000000000000001 in binary,
        // which is why the way back rounds).
        assert.equal(eur, decimal(amount, 2))
        assert.ok(Math.abs(eur * 100 - amount) <= Math.abs(amount) * Number.EPSILON)
        assert.equal(toMajor(amount, 'JPY'), amount)
        assert.equal(toMajor(amount, 'KWD'), amount / 1000)
        assert.equal(toMajor(amount, 'KWD'), decimal(amount, 3))
      }),
    )
    // The way back is exact while the error of two roundings stays under half a minor unit (|amount| < 2^51).
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 50), max: 2 ** 50 }), (amount) => {
        assert.equal(toMinor(toMajor(amount, 'EUR'), 'EUR'), amount)
        assert.equal(toMinor(toMajor(amount, 'KWD'), 'KWD'), amount)
        assert.equal(toMinor(toMajor(amount, 'JPY'), 'JPY'), amount)
      }),
    )
    assert.equal(currencyExponent('jpy'), 0)
    assert.equal(currencyExponent('BHD'), 3)
    assert.equal(currencyExponent('CHF'), 2)
  })

  it('formats with every minor digit, in the language', () => {
    assert.equal(formatMoney({ amount: 1999, currency: 'EUR' }, 'en'), '€19.99')
    assert.match(formatMoney({ amount: 1999, currency: 'EUR' }, 'de'), /^19,99\s€$/)
    assert.match(formatMoney({ amount: 1999, currency: 'JPY' }, 'en'), /^¥1,999$/)
    assert.match(formatMoney({ amount: 1999, currency: 'KWD' }, 'en'), /^KWD\s1\.999$/)
    assert.equal(formatMoney({ amount: 1000, currency: 'usd' }, 'en'), '$10.00')
    assert.equal(formatMoney({ amount: 1000, currency: 'EURO' }, 'en'), '10.00 EURO')
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.constantFrom('EUR', 'JPY', 'KWD', 'GBP'), (amount, cur) => {
        const digits = formatMoney({ amount, currency: cur }, 'en').replace(/[^0-9]/g, '')
        assert.equal(Number(digits), amount, 'every minor unit is shown, none invented')
      }),
    )
  })
})
