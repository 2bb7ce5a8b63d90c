import { randomBytes } from 'node:crypto'
import { Webhook } from 'standardwebhooks'

/** A new endpoint secret: `whsec_` and 32 random bytes in base64 (Standard Webhooks asks for 24 to 64). */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

/**
 * The three Standard Webhooks headers of one attempt. Every secret given signs (the current one first, then the one
 * a rotation replaced, while it is still valid), space separated in `webhook-signature`, so receivers that still hold
 * the old secret verify as well as those that took the new one.
 */
export function signatureHeaders(id: string, sentAt: Date, body: string, secrets: string[]) {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(id, sentAt, body))
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  }
}
