import type { Booking, Driver } from '../../contract/car-bookings.ts'
import type { Jobs } from '../../platform/jobs.ts'
import { enqueueMail, type Mailer, type MailMessage } from '../../platform/mail.ts'
import { bookingMail } from '../../platform/mail-templates.ts'
import type { Caller } from '../providers/calls.ts'
import type { BookingNotifier } from './bookings.ts'

const RETRIES_WITHOUT_STORE_MS = [1_000, 10_000, 60_000]

/**
 * Confirmation and cancellation mails in the tenant's language, never for tenants that opted out; those of
 * test-environment bookings never leave the outbox.
 * Retention STANDARD: queued as jobs (retried with backoff; a failed mail never fails a booking).
 * Retention NONE: nothing may be stored, so the mail is sent at once and retried in memory a few times; the
 * cancellation mail goes to the driver the `zr1_` reference carries (the platform keeps no address).
 */
export function createMailNotifier({
  jobs,
  mailer,
  log,
}: {
  jobs: Jobs
  mailer: Mailer
  log: (error: unknown) => void
}): BookingNotifier {
  const message = (
    kind: 'confirmation' | 'cancellation',
    caller: Caller,
    booking: Booking,
    to: Driver,
  ): MailMessage => {
    const mail = bookingMail(kind, caller.tenant.defaultLanguage, { ...booking, driver: to })
    // A test key's booking is mailed to the outbox only, marked as test (see createMailer).
    return { to: to.email, subject: mail.subject, text: mail.text, html: mail.html, environment: caller.environment }
  }
  const sendWithoutStore = (msg: MailMessage, attempt = 0) => {
    mailer.send(msg).catch((error) => {
      log(error)
      const delay = RETRIES_WITHOUT_STORE_MS[attempt]
      if (delay !== undefined) setTimeout(() => sendWithoutStore(msg, attempt + 1), delay).unref()
    })
  }
  const deliver = async (kind: 'confirmation' | 'cancellation', caller: Caller, booking: Booking, to: Driver) => {
    if (caller.tenant.emailOptOut) return
    const msg = message(kind, caller, booking, to)
    if (caller.tenant.dataRetention === 'NONE') return sendWithoutStore(msg)
    try {
      await enqueueMail(jobs, msg, { id: `mail_${kind}_${booking.bookingId}` })
    } catch (error) {
      log(error)
    }
  }
  return {
    confirmed: (caller, booking, recipient) => deliver('confirmation', caller, booking, recipient),
    cancelled: async (caller, booking, recipient) => {
      if (!recipient) return
      await deliver('cancellation', caller, booking, recipient)
    },
  }
}
