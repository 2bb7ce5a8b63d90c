/**
 * The baseline for the benchmarks: a bare node:http server answering every request with one fixed body.
 *
 *   BARE_BODY=<body> [BARE_CONTENT_TYPE=application/json] [BARE_DELAY_MS=0] [PORT=0] [HOST=127.0.0.1] node bench/bare-server.ts
 *
 * With BARE_DELAY_MS it answers each request after that many milliseconds (one timer), as a service that waits for
 * its providers and adds nothing else would.
 *
 * Prints `listening <port>` on stdout once it accepts connections. Exits when stdin closes (the parent went away),
 * on SIGTERM or on SIGINT.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const text = process.env.BARE_BODY
if (text === undefined) {
  process.stderr.write('BARE_BODY is required\n')
  process.exit(2)
}
const body = Buffer.from(text)
const contentType = process.env.BARE_CONTENT_TYPE || 'application/json; charset=utf-8'
const headers = { 'content-type': contentType, 'content-length': String(body.length) }

const delayMs = Number(process.env.BARE_DELAY_MS ?? 0)
const answer = (response: import('node:http').ServerResponse) => {
  response.writeHead(200, headers)
  response.end(body)
}
const server = createServer((_request, response) => {
  if (delayMs > 0) setTimeout(answer, delayMs, response)
  else answer(response)
})
server.keepAliveTimeout = 72_000

server.listen(Number(process.env.PORT ?? 0), process.env.HOST || '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`)
})

const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
  setTimeout(() => process.exit(0), 2000).unref()
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
process.stdin.on('end', stop)
process.stdin.on('error', stop)
process.stdin.resume()
