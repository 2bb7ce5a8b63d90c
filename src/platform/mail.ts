import { randomBytes } from 'node:crypto'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import { type Jobs, PermanentJobError } from './jobs.ts'

export interface MailMessage {
  to: string
  subject: string
  text: string
  html?: string
  headers?: Record<string, string>
  /**
   * `test` for mails about test-environment activity: they go to the outbox only, never through SMTP, marked as
   * test (subject prefix and `X-Test-Mode: true`), so test keys never mail real people.
   */
  environment?: 'live' | 'test'
}

/** What a test-environment mail's subject starts with. */
export const TEST_SUBJECT_PREFIX = '[TEST] '

export interface MailerOptions {
  /** `smtp://` or `smtps://` URL (user and password in it); unset writes `.eml` files to `<dataDir>/outbox`. */
  smtpUrl?: string
  dataDir: string
  from?: string
  /** Names the `.eml` files (default: the wall clock). */
  clock?: () => Date
}

export interface Mailer {
  /** `smtp` or `outbox`, for the start-up log. */
  readonly transport: 'smtp' | 'outbox'
  /** Resolves once the SMTP server accepted the message or the file is written; rejects otherwise. */
  send(message: MailMessage): Promise<void>
  close(): void
}

export const DEFAULT_FROM = '"Mobility Aggregation Service" <no-reply@localhost>'
export const MAIL_JOB = 'mail.send'

/** The mailer the configuration asks for: SMTP when `smtpUrl` is set, otherwise files a person or a test can open. */
export function createMailer(options: MailerOptions): Mailer {
  const from = options.from ?? DEFAULT_FROM
  const outbox = outboxWriter(options, from)
  if (options.smtpUrl) {
    const transport = nodemailer.createTransport({
      url: options.smtpUrl,
      // Fail within seconds: the job runner retries, and a hung connection would hold the job's lease.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    })
    return {
      transport: 'smtp',
      async send({ environment, ...message }) {
        // Test mode never mails real people: whatever the configuration, its mails stay in the outbox.
        if (environment === 'test') return outbox.write(markedAsTest(message))
        await transport.sendMail({ from, ...message })
      },
      close: () => {
        transport.close()
        outbox.close()
      },
    }
  }
  return {
    transport: 'outbox',
    send: ({ environment, ...message }) => outbox.write(environment === 'test' ? markedAsTest(message) : message),
    close: () => outbox.close(),
  }
}

const markedAsTest = (message: Omit<MailMessage, 'environment'>): Omit<MailMessage, 'environment'> => ({
  ...message,
  subject: `${TEST_SUBJECT_PREFIX}${message.subject}`,
  headers: { ...message.headers, 'X-Test-Mode': 'true' },
})

/** `.eml` files in `<dataDir>/outbox`, as a person or a test can open them. */
function outboxWriter(options: MailerOptions, from: string) {
  const outbox = join(options.dataDir, 'outbox')
  const clock = options.clock ?? (() => new Date())
  // RFC 5322 wants CRLF line ends; nodemailer builds the message exactly as it would send it.
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
  return {
    async write(message: Omit<MailMessage, 'environment'>) {
      const info = await composer.sendMail({ from, ...message })
      await mkdir(outbox, { recursive: true })
      const stamp = clock().toISOString().replace(/[-:.]/g, '')
      const file = join(outbox, `${stamp}-${randomBytes(6).toString('hex')}.eml`)
      // Written aside and renamed, so whoever watches the outbox never reads half a message.
      await writeFile(`${file}.tmp`, info.message as Buffer)
      await rename(`${file}.tmp`, file)
    },
    close: () => composer.close(),
  }
}

const isMessage = (payload: unknown): payload is MailMessage => {
  const p = payload as Record<string, unknown> | null
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.to === 'string' &&
    typeof p.subject === 'string' &&
    typeof p.text === 'string' &&
    (p.html === undefined || typeof p.html === 'string') &&
    (p.environment === undefined || p.environment === 'live' || p.environment === 'test')
  )
}

/**
 * Mails go out as jobs: a booking only enqueues (in its own request), and an SMTP failure is retried by the job runner
 * with backoff, so a failed mail never fails a booking.
 */
export function registerMailJobs(jobs: Jobs, mailer: Mailer): void {
  jobs.register(MAIL_JOB, async (payload) => {
    if (!isMessage(payload)) throw new PermanentJobError('mail.send payload needs to, subject and text strings')
    await mailer.send(payload)
  })
}

/** Enqueues a mail; pass `id` (e.g. `mail_confirmation_<bookingId>`) so a repeated request sends it once. */
export function enqueueMail(
  jobs: Jobs,
  message: MailMessage,
  options: { id?: string; runAt?: Date; maxAttempts?: number } = {},
): Promise<string> {
  return jobs.enqueue(MAIL_JOB, message, options)
}
