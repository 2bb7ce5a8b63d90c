import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Browser, chromium } from 'playwright-core'

/** Debian's Chromium (apt-get install chromium); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
/** Where page tests leave screenshots (kept by CI as artifacts). */
export const RESULTS = fileURLToPath(new URL('../../test-results/', import.meta.url))

/** Why `what` is skipped on this machine (no Chromium), printed once; undefined when it can run. */
export function noChromium(what: string): string | undefined {
  if (existsSync(CHROMIUM)) return undefined
  const reason = `${what} skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
  process.stderr.write(`\n*** ${reason} ***\n\n`)
  return reason
}

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true, timeout: 60_000 })
