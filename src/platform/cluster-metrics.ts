import cluster from 'node:cluster'
import { AggregatorRegistry, type Registry } from 'prom-client'

const ASK = 'mas:metrics-req'
const ANSWER = 'mas:metrics-res'

interface Answer {
  type: typeof ANSWER
  id: number
  text?: string
  error?: string
}

/**
 * Primary side: answers a worker that asks for the metrics of all workers (a scrape reaches one worker at random, so
 * that one asks here). prom-client's aggregator collects every worker's registry over IPC and merges them (sums,
 * or the aggregator a metric names).
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry()
  cluster.on('message', (worker, message: { type?: string; id: number }) => {
    if (message?.type !== ASK) return
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text } satisfies Answer),
      (error: Error) => worker.send({ type: ANSWER, id: message.id, error: error.message } satisfies Answer),
    )
  })
}

/**
 * Worker side: offers this worker's registry to the primary's aggregator, and answers a scrape with the metrics of
 * every worker (asked of the primary).
 */
export function workerMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry])
  // Constructing one installs prom-client's listener that hands this worker's metrics to the primary.
  new AggregatorRegistry()
  let next = 0
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>()
  process.on('message', (message: Answer) => {
    if (message?.type !== ANSWER) return
    const pending = waiting.get(message.id)
    waiting.delete(message.id)
    if (message.error !== undefined) pending?.reject(new Error(message.error))
    else pending?.resolve(message.text ?? '')
  })
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++
      const timer = setTimeout(() => {
        waiting.delete(id)
        reject(new Error('the primary did not answer with the cluster metrics'))
      }, 6000)
      waiting.set(id, {
        resolve: (text) => {
          clearTimeout(timer)
          resolve(text)
        },
        reject: (error) => {
          clearTimeout(timer)
          reject(error)
        },
      })
      process.send?.({ type: ASK, id })
    })
}
