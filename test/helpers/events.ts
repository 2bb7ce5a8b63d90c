import type { AppDeps } from '../../src/app.ts'
import type { EventType } from '../../src/contract/webhooks.ts'
import type { DomainEvent, EventSink } from '../../src/domain/events.ts'

/** The id of the resource an event is about (booking, trip or subscription). */
export const subjectOf = (event: DomainEvent) =>
  (event.data.bookingId ?? event.data.tripId ?? event.data.subscriptionId) as string | undefined

/**
 * An EventSink that keeps every event published, in order, as the webhooks module would receive them; one sink for
 * every instance of a harness (`decorate`). `fail()` makes it throw, as a sink whose store is down would.
 */
export function recordingSink() {
  const events: DomainEvent[] = []
  let failing = false
  const sink: EventSink = {
    async publish(event) {
      if (failing) throw new Error('injected event sink failure')
      // A copy as JSON, as a sink that stores or sends the event sees it.
      events.push(JSON.parse(JSON.stringify(event)))
    },
  }
  const of = (type: EventType, id?: string) =>
    events.filter((e) => e.type === type && (id === undefined || subjectOf(e) === id))
  return {
    sink,
    events,
    decorate: (deps: AppDeps): AppDeps => ({ ...deps, events: sink }),
    fail(on = true) {
      failing = on
    },
    of,
    /** Events about the resource `id`, in order. */
    about: (id: string) => events.filter((e) => subjectOf(e) === id),
    /** Waits (up to `ms`) until an event of `type` about `id` arrived; a job on another instance may publish it. */
    async next(type: EventType, id?: string, ms = 5000) {
      const deadline = Date.now() + ms
      while (Date.now() < deadline) {
        const found = of(type, id)
        if (found.length > 0) return found[0]
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      throw new Error(`no ${type} event${id ? ` about ${id}` : ''} within ${ms} ms`)
    },
  }
}

export type RecordingSink = ReturnType<typeof recordingSink>
